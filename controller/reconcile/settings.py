"""The reconciler's settings: timing, and the limits of its search."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Settings"]


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
