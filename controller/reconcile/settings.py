"""The reconciler's settings: timing, and the limits of its search."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Settings", "SETTLE_RANGE", "ERROR_DELAY_RANGE", "timing_problem"]

SETTLE_RANGE = (0.01, 5.0)
"""The settle windows (seconds) a board may be given: shorter reads a hand
in passing as a move, longer makes a player wait for the board."""
ERROR_DELAY_RANGE = (0.0, 60.0)
"""The error delays (seconds) a board may be given."""


def timing_problem(settle: float, error_delay: float) -> tuple[str, str] | None:
    """``(setting, problem)`` when a settle window or an error delay is out
    of its range (NaN included), else None."""
    if not SETTLE_RANGE[0] <= settle <= SETTLE_RANGE[1]:
        return "settle", f"must be {SETTLE_RANGE[0]:g} to {SETTLE_RANGE[1]:g} seconds, not {settle}"
    if not ERROR_DELAY_RANGE[0] <= error_delay <= ERROR_DELAY_RANGE[1]:
        return "error_delay", (f"must be {ERROR_DELAY_RANGE[0]:g} to {ERROR_DELAY_RANGE[1]:g} "
                               f"seconds, not {error_delay}")
    return None


@dataclass(frozen=True)
class Settings:
    """Timing in seconds, and the caps that keep the search bounded.

    The caps only matter for pathological positions: in simulated games a
    position has at most about 50 explanations, none over 3 actions.
    """

    settle: float = 0.25
    """How long a reading must stay to count."""
    error_delay: float = 1.0
    """How long a wrong reading stays before ``error`` lights."""
    max_actions: int = 8
    """The longest run of actions read from one reading."""
    max_candidates: int = 20000
    """Explanations generated for one position (memory stays bounded)."""
    cached_positions: int = 64
    """Positions whose explanations are kept; beyond it the cache starts over."""
    max_unproven: int = 8
    """Unproven explanations kept for the next reading to confirm."""
