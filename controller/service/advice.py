"""The engine's part in the board service: hints, the computer's moves and
pondering, all searched in child processes (:mod:`.thinker`), so the
board's loop (frames in, lights out) never waits for a search.

While the person to move thinks, the engine ponders that position; the
page shows the latest round (an evaluation for the attacker, the depth and
the best line).  A hint asked for after the ponder has thought at least
the hint's time is answered from it at once.  When the person plays the
move the ponder's line expected, and the ponder had thought at least the
computer's time, the computer's reply at full strength is the line's next
move at once; otherwise (or below full strength) it searches as usual.

The web app's ticker calls :meth:`Advice.follow` (through
``BoardService.think_ahead``) every 50 ms; the jobs
(:meth:`Advice.hint_job`, :meth:`Advice.computer_job`) are made on the
loop from a copy of the game and run in a worker thread, which only waits
for the child's answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.rules.record import sided_turns

from .thinker import Thinker, Thought

__all__ = ["Advice", "played", "thought_view"]

# A hint: the game's length when asked, the game, the squares to light, the
# action, and its whole turn when that goes on past it (else "").
Hint = tuple[int, Any, list[str], str, str]

KEEP = 4  # finished ponders remembered for the computer's reply (a turn's actions)


def played(game: Any) -> tuple[str, ...]:
    """The actions of ``game`` so far, in notation."""
    return tuple(str(m) for _, m in game.history)


def thought_view(t: Thought) -> dict[str, object]:
    """A thought as the page shows it: the attacker's evaluation in
    pieces and in words, the depth, the best line."""
    out = t.as_json()
    won = abs(t.score) >= 90_000
    pieces = round(t.score / 100, 1)
    out["pieces"] = pieces
    if won:
        out["words"] = "Attacker wins by force" if t.score > 0 else "Defender wins by force"
    elif abs(pieces) < 0.2:
        out["words"] = "even"
    else:
        out["words"] = "Attacker better" if pieces > 0 else "Defender better"
    return out


def line_turns(game: Any, line: list[str]) -> list[str]:
    """The best ``line`` from ``game`` by turns, as the move list writes
    them: a chain one token (``f3xe3xe4xf4``, not three that read as the
    sides' alternate moves), a setting turn's placements together."""
    return [turn for turn, _ in sided_line(game, line)]


def sided_line(game: Any, line: list[str]) -> list[tuple[str, str]]:
    """:func:`line_turns` with each turn's side ("attacker", "defender"):
    two of one side in a row, the other side was blocked."""
    g = game.copy()
    start = len(g.history)
    for token in line:
        try:
            g.play(token)
        except ValueError:  # not this game's (a line of a position since left)
            break
    if len(g.history) <= start:
        return []
    return [(" ".join(turn), ("attacker", "defender")[side])
            for side, turn in sided_turns(g, start)]


def _move_of(game: Any, text: str | None) -> Any:
    if text is None:
        return None
    return next((m for m in game.legal_moves() if str(m) == text), None)


class Advice:
    """Pondering on the person's time, and the service's searches."""

    def __init__(self, ponder: bool = True, thinker: Thinker | None = None,
                 threads: int = 1) -> None:
        self.thinker = thinker if thinker is not None else Thinker(ponder_on=ponder,
                                                                   threads=threads)
        self.thinker.ponder_on = ponder
        self._key: tuple[object, ...] | None = None
        # The last thought's line by turns, with each turn's side.
        self._turns: tuple[object, list[tuple[str, str]]] = (None, [])
        self._base: tuple[int, tuple[str, ...]] | None = None  # the game pondered, its actions
        self._priors: list[tuple[Thought, int, tuple[str, ...]]] = []
        # The computer's last search at full strength (a weaker level's
        # scores carry its noise and depth cap: never shown as the view).
        self._searched: Thought | None = None
        self.from_ponder = 0  # computer moves taken from the ponder's line

    @property
    def on(self) -> bool:
        return self.thinker.ponder_on

    def set_ponder(self, on: bool) -> None:
        self.thinker.set_ponder(on)
        self._key = None

    def follow(self, game: Any, computer: str | None) -> None:
        """Ponder the position when the person is to move (cheap when the
        game has not changed); a change stops the searches about the old
        position."""
        person = game.outcome is None and game.to_move != computer
        key = (id(game), game.ply, game.last_move, person, self.on)
        if key == self._key:
            return
        changed = self._key is not None and self._key[:3] != key[:3]
        self._key = key
        if self._base is not None:  # what the ponder thought of the position it leaves
            t = self.thinker.thought()
            if t is not None:
                self._priors = [*self._priors[-(KEEP - 1):], (t, *self._base)]
        if changed:
            self.thinker.cancel_searches()
        if person and self.on:
            self.thinker.ponder(game)
            self._base = (id(game), played(game))
        else:
            self.thinker.stop_ponder()
            self._base = None

    def thought(self, game: Any) -> dict[str, object] | None:
        """The latest thought about ``game``'s position for the page (the
        ponder's, or the computer's search at full strength waiting to be
        played), or None."""
        if not self.on:
            return None
        t = self.thinker.thought(game)
        s = self._searched
        if t is None and s is not None and s.position == game.position() and s.ply == game.ply:
            t = s
        if t is None:
            return None
        view = thought_view(t)
        key = (game.position(), game.ply, t.pv)
        if self._turns[0] != key:  # the state is made often; a thought's turns once
            self._turns = (key, sided_line(game, list(t.pv)))
        view["turns"] = [turn for turn, _ in self._turns[1]]
        view["sides"] = [side for _, side in self._turns[1]]
        return view

    def ponder_reply(self, game: Any, seconds: float) -> str | None:
        """The next move of a ponder's line when the actions played since
        it began are that line's first ones and it thought long enough."""
        now = played(game)
        for t, gid, base in reversed(self._priors):
            if gid != id(game) or t.seconds < seconds or now[:len(base)] != base:
                continue
            k = len(now) - len(base)
            if 1 <= k < len(t.pv) and now[len(base):] == t.pv[:k]:
                return t.pv[k]
        return None

    # -- jobs: made on the loop, run in a worker thread -------------------

    def hint_job(self, game: Any, seconds: float) -> Callable[[], Hint]:
        """The hint for ``game``: from the ponder when it thought long
        enough, else a search of ``seconds``.  Besides the action (lit),
        its whole turn in the engine's line when the turn goes on (a
        chain's further captures, a setting turn's second placement)."""
        marker, snapshot = len(game.moves), game.copy()
        t = self.thinker.thought(game)
        ready = t if t is not None and t.move and t.seconds >= seconds else None

        def run() -> Hint:
            found = ready or self.thinker.search(snapshot, seconds)
            m = _move_of(snapshot, None if found is None else found.move)
            if found is None or m is None:  # nothing to suggest
                return marker, game, [], "", ""
            turns = line_turns(snapshot, list(found.pv))
            turn = turns[0] if turns and turns[0].split(" ")[0].startswith(str(m)) else ""
            return (marker, game, [sq for sq in (m.from_square, m.to_square) if sq], str(m),
                    turn if turn != str(m) else "")

        return run

    def computer_job(self, game: Any, seconds: float, level: int = 5,
                     seed: int = 0) -> Callable[[], tuple[int, Any, str | None]]:
        """The computer's action for ``game`` at ``level``: at full strength
        the ponder's line when it expected the person's move, else a search
        (below full strength always a search at that level, its choice
        among near-best moves drawn under ``seed``: the ponder searches at
        full strength)."""
        marker, snapshot = len(game.moves), game.copy()
        ready = self.ponder_reply(game, seconds) if level >= 5 else None

        def run() -> tuple[int, Any, str | None]:
            if ready is not None:
                self.from_ponder += 1
                return marker, game, ready
            full = level >= 5
            found = self.thinker.search(snapshot, seconds, level=None if full else level,
                                        seed=seed)
            self._searched = found if full else None
            if found is None:
                return marker, game, None
            return marker, game, found.move

        return run

    def close(self) -> None:
        self.thinker.close()
