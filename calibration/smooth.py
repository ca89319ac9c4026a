"""Temporal smoothing of a live stream of cells strings."""

from __future__ import annotations

__all__ = ["CellSmoother"]


class CellSmoother:
    """Stops single squares flickering.  With ``frames`` = n:

    - a square takes a new value (``a``, ``d`` or ``.``) once it has been
      read as that value n times with nothing between but ``?``, at most
      n - 1 of them in a row (a value and ``?`` alternating: taken at the
      (2n-1)th frame); another value between starts the count again;
    - a square reads ``?`` once its value has gone unread n frames running
      (``?``, or values that do not agree), unless a new value is taken
      first: the old reading is not held against what the camera sees;
    - a square read as its value now and then, ``?`` between, keeps it
      (``?`` says nothing against it).

    The first frame is reported as it is.
    """

    def __init__(self, frames: int = 3) -> None:
        if frames < 1:
            raise ValueError("frames must be at least 1")
        self.frames = frames
        self.stable: list[str] | None = None
        self.pending: list[str] = []  # a new value being counted, or "" for none
        self.count: list[int] = []  # its readings so far
        self.gap: list[int] = []  # frames of '?' since it was last read
        self.missed: list[int] = []  # frames running without the square's value read

    def update(self, cells: str) -> str:
        if len(cells) != 49 or cells.strip("ad.?"):
            raise ValueError("cells must be 49 characters of a, d, . and ?")
        if self.stable is None:
            self.stable = list(cells)
            self.pending, self.count = [""] * 49, [0] * 49
            self.gap, self.missed = [0] * 49, [0] * 49
            return cells
        for i, ch in enumerate(cells):
            self._square(i, ch)
        return "".join(self.stable)

    def _square(self, i: int, ch: str) -> None:
        assert self.stable is not None
        n = self.frames
        self.missed[i] = 0 if ch == self.stable[i] else self.missed[i] + 1
        if ch == "?":
            self.gap[i] += 1
            if self.gap[i] >= n:  # unseen too long: the count starts again
                self.pending[i] = ""
        elif ch == self.stable[i]:
            self.pending[i] = ""  # read as it stands: a change not yet taken is dropped
        else:
            if ch == self.pending[i]:
                self.count[i] += 1
            else:
                self.pending[i], self.count[i] = ch, 1
            self.gap[i] = 0
            if self.count[i] >= n:
                self.stable[i], self.pending[i], self.missed[i] = ch, "", 0
                return
        if self.missed[i] >= n:
            self.stable[i], self.missed[i] = "?", 0
