"""Temporal smoothing of a live stream of cells strings."""

from __future__ import annotations

__all__ = ["CellSmoother"]


class CellSmoother:
    """Stops single squares flickering: a square's reported value changes only
    once the new value (``?`` included) has been seen in ``frames`` consecutive
    frames.  The first frame is reported as it is.
    """

    def __init__(self, frames: int = 3) -> None:
        if frames < 1:
            raise ValueError("frames must be at least 1")
        self.frames = frames
        self.stable: list[str] | None = None
        self.pending: list[str] = []
        self.count: list[int] = []

    def update(self, cells: str) -> str:
        if len(cells) != 49 or cells.strip("ad.?"):
            raise ValueError("cells must be 49 characters of a, d, . and ?")
        if self.stable is None:
            self.stable = list(cells)
            self.pending = list(cells)
            self.count = [0] * 49
            return cells
        for i, ch in enumerate(cells):
            if ch == self.stable[i]:
                self.count[i] = 0
                self.pending[i] = ch
                continue
            if ch == self.pending[i]:
                self.count[i] += 1
            else:
                self.pending[i] = ch
                self.count[i] = 1
            if self.count[i] >= self.frames:
                self.stable[i] = ch
                self.count[i] = 0
        return "".join(self.stable)
