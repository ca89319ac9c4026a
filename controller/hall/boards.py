"""What the hall holds of one board: its games (:class:`HallGame`), its
last state, the store its messages come from and the one it left
(:class:`Left`), and what the page shows of each (``summary``,
``detail``).  Plain data: :class:`controller.hall.model.Hall` fills it
from the board's messages.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .records import known_variant
from .trust import is_int
from .turns import Replay, Turns, turns_of

__all__ = ["TWIN_KEPT", "HallBoard", "HallGame", "Left"]

TWIN_KEPT = 120.0  # seconds two boards under one id are said after the other's last new message


@dataclass
class HallGame:
    id: int
    variant: str
    options: str = ""  # the variant's rule options (key=value words)
    start: str | None = None  # the position it was set up from; None: the variant's start
    attacker: str = "Attacker"
    defender: str = "Defender"
    moves: list[str] = field(default_factory=list)
    positions: list[str] = field(default_factory=list)
    # when each move was made (the hall's clock); None: filled in from the
    # board's record, its time not known (the hall started after it)
    times: list[float | None] = field(default_factory=list)
    result: str | None = None
    record: str | None = None  # the board's own record of ``record_moves``
    record_moves: list[str] = field(default_factory=list)
    gap: bool = False  # moves were missed: the next record fills them
    epoch: int = 0  # grows when moves are taken back or replaced (not appended)
    replay: Replay | None = field(default=None, repr=False, compare=False)
    store: str | None = None  # the board's store it came from (set aside with it)

    def turns(self) -> Turns:
        """The moves numbered by turn as the board page and the KGN write
        them, and how the game ended in words."""
        key = (self.epoch, self.variant, self.options, self.start)
        self.replay, shown = turns_of(self.replay, key, self.variant, self.options, self.start,
                                      self.moves)
        return shown

    def summary(self) -> dict[str, Any]:
        return {"game_id": self.id, "variant": self.variant, "options": self.options,
                "known_variant": known_variant(self.variant),
                "attacker": self.attacker, "defender": self.defender, "ply": len(self.moves),
                "result": self.result, "ending": self.turns().ending,
                "last_time": self.times[-1] if self.times else None,
                "last_move": self.moves[-1] if self.moves else None,
                "position": self.positions[-1] if self.positions else None}


@dataclass
class Left:
    """A board's store it left for a new one, kept to go back to: its
    games, its current game and the highest ``seq`` heard from it."""

    store: str
    games: dict[int, HallGame]
    current: int | None
    seq: int


@dataclass
class HallBoard:
    id: str
    state: dict[str, Any] | None = None
    online: bool | None = None
    seq: int = 0
    games: dict[int, HallGame] = field(default_factory=dict)
    current: int | None = None
    pending: tuple[int, str] | None = None  # a record not read yet: game id, text
    heard: float = 0.0  # when a move or record last came (monotonic)
    heard_at: float | None = None  # when the board last spoke itself (wall clock; not retained)
    gone_at: float | None = None  # when its last will came live (wall clock), while offline
    store: str | None = None  # the board's store its messages come from
    old_stores: set[str] = field(default_factory=set)
    left: Left | None = None  # the store it last left, to go back to if that one goes on
    earlier: list[HallGame] = field(default_factory=list)  # games of its earlier stores
    told: set[str] = field(default_factory=set)  # troubles said once in the log
    # Two boards under this id: the other's store, when its last new message
    # came, and when the store followed last spoke (monotonic).
    twin: str | None = None
    twin_heard: float = 0.0
    store_heard: float = 0.0
    old_seqs: dict[str, int] = field(default_factory=dict)  # highest seq of each store left

    def game(self) -> HallGame | None:
        return None if self.current is None else self.games.get(self.current)

    def summary(self) -> dict[str, Any]:
        g = self.game()
        s = self.state or {}
        out: dict[str, Any] = {"board": self.id, "online": self.online, "heard": self.heard_at,
                               "gone": self.gone_at if self.online is False else None,
                               "status": s.get("status"), "to_move": s.get("to_move"),
                               "size": s.get("size"),
                               # the board to draw, as the service sent it (any variant's)
                               "geometry": s.get("geometry") if isinstance(s.get("geometry"), dict)
                               else None,
                               "twin": self.twin if self.twin is not None and
                               time.monotonic() - self.twin_heard < TWIN_KEPT else None}
        if g is not None:
            out.update(g.summary())
            out["heard"] = self.heard_at or out["last_time"]  # else: its last move's time
            if out["position"] is None and s.get("game_id") == g.id:
                out["position"] = s.get("position")
        if out.get("position") and not is_int(out.get("size")):
            out["size"] = len(str(out["position"]).split(" ")[0].split("/"))
        return out

    def detail(self) -> dict[str, Any]:
        out = self.summary()
        g = self.game()
        out["moves"] = list(g.moves) if g else []
        out["positions"] = list(g.positions) if g else []
        out["times"] = list(g.times) if g else []
        out["turns"] = g.turns().turns if g else []
        return out

