"""Uniformly random games through the low-level interface of :class:`Game`.

Every action is chosen uniformly among :meth:`Game.raw_moves` (the same
actions, in the same order, as :meth:`Game.legal_moves`) and played with
:meth:`Game.push_raw`.  The benchmark and the property tests use it.

:func:`lasting_moves` is the choice of a simulated player that keeps a game
going (the hall simulator, the service's tests).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .game import Game
from .leap_factory import AnyGame
from .moves import PASS, SIDE_NAMES, Move
from .variants import Variant

__all__ = ["Playout", "lasting_moves", "random_playout"]


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


def lasting_moves(game: AnyGame) -> list[Move]:
    """The legal actions but passes that leave ``game`` unfinished, in
    :meth:`Game.legal_moves` order; every action but passes when each one
    ends it.  A random player choosing among them keeps a game going where
    a blocked side loses at once (khamousiyya, sabouiyya), and never makes
    a pass, which leaves nothing on a board to see."""
    moves = [m for m in game.legal_moves() if m.kind != PASS]
    going = []
    for m in moves:
        game.play(m)
        if game.outcome is None:
            going.append(m)
        game.pop()
    return going or moves
