"""What every game of the rules engine shows the same way: the side to
move, the outcome, the chaining piece, the pieces on the board, and point
lookups.  :class:`~.game.Game` and :class:`~.leap.LeapGame` both take
these views; each keeps its own state in the attributes named here."""

from __future__ import annotations

from controller.board.geometry import Geometry

from .moves import SIDE_NAMES, NotationError, Outcome

__all__ = ["BoardViews"]


class BoardViews:
    """Read-only views over the attributes a game keeps: ``_bb`` (the two
    sides' bitboards), ``_side``, ``_chain`` (-1: none), ``_outcome``,
    ``_names`` (the point names) and ``geometry``."""

    geometry: Geometry
    _bb: list[int]
    _side: int
    _chain: int
    _outcome: Outcome | None
    _names: tuple[str, ...]

    @property
    def to_move(self) -> str:
        """``"attacker"`` or ``"defender"``."""
        return SIDE_NAMES[self._side]

    @property
    def side(self) -> int:
        """The side to move as an int (0 Attacker, 1 Defender)."""
        return self._side

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def chain_point(self) -> int:
        """The point of the piece that must or may continue a chain (-1: none)."""
        return self._chain

    @property
    def chain_square(self) -> str | None:
        """The name of the point of the piece that must or may continue a chain."""
        return self._names[self._chain] if self._chain >= 0 else None

    def bitboards(self) -> tuple[int, int]:
        """The Attacker's and the Defender's pieces as bitboards."""
        return self._bb[0], self._bb[1]

    def piece_at(self, square: str | int) -> str | None:
        """``"attacker"``, ``"defender"`` or ``None``."""
        bit = 1 << self._point(square)
        if self._bb[0] & bit:
            return "attacker"
        if self._bb[1] & bit:
            return "defender"
        return None

    def count(self, side: str | int) -> int:
        """Pieces of ``side`` on the board."""
        s = side if isinstance(side, int) else SIDE_NAMES.index(side)
        return self._bb[s].bit_count()

    def _point(self, square: str | int) -> int:
        """The point ``square`` names (or is); :class:`NotationError` if none."""
        if isinstance(square, int):
            if not 0 <= square < self.geometry.size:
                raise NotationError(f"no point {square} on the {self.geometry.name} board")
            return square
        try:
            return self.geometry.parse_point(square)
        except ValueError as exc:
            raise NotationError(str(exc)) from None
