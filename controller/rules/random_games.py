"""Uniformly random games through the low-level interface of :class:`Game`.

Every action is chosen uniformly among :meth:`Game.raw_moves` (the same
actions, in the same order, as :meth:`Game.legal_moves`) and played with
:meth:`Game.push_raw`.  The benchmark and the property tests use it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .game import Game
from .moves import SIDE_NAMES
from .variants import Variant

__all__ = ["Playout", "random_playout"]


@dataclass(frozen=True)
class Playout:
    """The end of a random game: ``winner`` (0 Attacker, 1 Defender, None
    for a draw), ``actions`` (every action, placements and passes
    included) and, when asked for, the actions in notation."""

    winner: int | None
    actions: int
    moves: tuple[str, ...] = ()


def random_playout(
    variant: str | Variant,
    rng: random.Random | None = None,
    record: bool = False,
    game: Game | None = None,
) -> Playout:
    """Play a uniformly random game to its end, from the empty board or
    from ``game`` (which is played on)."""
    rand = (rng or random.Random()).random
    g = game if game is not None else Game.new(variant)
    start = g.ply
    while g.outcome is None:
        raws = g.raw_moves()
        g.push_raw(raws[int(rand() * len(raws))])
    moves = tuple(str(m) for m in g.moves[start:]) if record else ()
    winner = g.outcome.winner
    return Playout(None if winner is None else SIDE_NAMES.index(winner), g.ply - start, moves)
