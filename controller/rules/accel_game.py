""":class:`~.game.Game` on the compiled core.

:class:`CompiledGame` is a :class:`~.game.Game` whose state lives in C
(:class:`~.accel.CompiledCore` comes first in its bases, so the core's
attributes and methods are the compiled ones and everything else is
Game's).  It overrides only what Game does to the pure core's Python
attributes directly: construction, :meth:`copy`, :meth:`play` (the Move is
found and played in C) and the endings by the players.

:func:`game_class` gives the class to make a game of a variant with:
CompiledGame when :func:`~.accel.compiled` says the compiled core can play
it, else Game.  See docs/core.md.
"""

from __future__ import annotations

from typing import cast

from .accel import CompiledCore, compiled
from .game import Game
from .moves import IllegalMoveError, Move, Termination
from .variants import Variant

__all__ = ["CompiledGame", "game_class"]

_HAJEB_KINDS = ("hajeb", "rescind")


class CompiledGame(CompiledCore, Game):  # type: ignore[misc, override]
    """A :class:`~.game.Game` on the compiled core (same API, same moves)."""

    def __init__(self, variant: str | Variant = "kharbga") -> None:
        CompiledCore.__init__(self, variant)
        self._start: str | None = None

    def copy(self) -> CompiledGame:
        """An independent copy, history included."""
        other = cast(CompiledGame, type(self).__new__(type(self)))
        other.__dict__.update(self.__dict__)
        self._copy_core_to(other)
        return other

    def play(self, move: Move | str) -> Move:
        """Play one action (a legal :class:`Move` or its notation)."""
        m = self.parse_move(move) if isinstance(move, str) else move
        if m.kind in _HAJEB_KINDS:
            return Game.play(self, m)  # refused: no H'ajeb on this core
        if not self._play_move(m):
            raise IllegalMoveError(f"illegal move {m} in {self.position()}")
        return m

    def _end_by_players(self, winner: int | None, reason: Termination, minor: bool) -> None:
        if self._outcome is not None:
            raise IllegalMoveError("the game is over")
        self._push_marker((reason.value, -1, -1, 0, False))
        self._finish(winner, reason, minor)


def game_class(variant: str | Variant) -> type[Game]:
    """The class to make a game of ``variant`` with (see the module)."""
    return CompiledGame if compiled(variant) else Game
