"""Looking back at a finished game: every turn scored by the engine
(``kharbga-board games analyse``, docs/engine.md "Looking back at a game").

Pure: :func:`review` takes a game's variant, the position it began from and
its action tokens (as the archive keeps them), never the archive itself.
Each turn is judged at the same search budget on both sides of it: the
engine searches the position before the turn (its score and its own turn
there), and the positions after the turn played and after the engine's
turn; the loss is how much worse the first is than the second, for the
side that moved.  A setting turn (one side's two placements) is judged
the same way, the engine's turn being its best first placement and then
its best second one; the opening book answers instead of the search where
it holds the positions (it searched them deeper).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.rules.leap_factory import AnyVariant, make_game
from controller.rules.moves import RulesError
from controller.rules.record import group_turns, numbered_turns, split_token

from . import csearch
from .api import MAX_SECONDS, best_move, book_move
from .evaluate import WIN
from .negamax import WON, AnyGame
from .search import SearchResult

__all__ = ["DEFAULT_NODES", "PYTHON_NODES", "MISTAKE", "BLUNDER", "CAP", "TurnReview",
           "Review", "check_budget", "review", "score_words", "turn_line"]

DEFAULT_NODES = 100_000
"""The node budget of each position's search on the compiled search (the
Kharbga family): a 60-turn game in a few seconds on a desktop, the same
marks on any machine with that search."""

PYTHON_NODES = 5_000
"""The node budget where the search runs in Python, about 20 times slower
a node: the leap-capture games, H'ajeb, a build without the compiled
search."""

MISTAKE = 100
"""A loss of this much (hundredths of a piece) or more is a mistake, ``?``."""

BLUNDER = 300
"""A loss of this much or more is a blunder, ``??`` (so is a forced win
given away)."""

CAP = 2000
"""Scores count at most this much either way in a loss (a forced win is
worth 20 pieces), so one given-away win does not swamp the average."""

ENDINGS = ("resign:attacker", "resign:defender", "agreement", "barrier")
"""Stored action tokens that end a game but are no move of it."""


@dataclass(frozen=True)
class TurnReview:
    """One turn: its number as the record numbers it, the side that
    played it, the tokens played, the engine's score before it for that
    side, the engine's turn when it differs from the one played, the loss (hundredths of a
    piece) and its mark ("", "?" or "??")."""

    number: int
    side: str
    played: str
    score: int
    best: str | None
    loss: int
    mark: str


@dataclass(frozen=True)
class Review:
    turns: list[TurnReview]

    def summary(self, side: str) -> str:
        """One line: the side's mistakes, blunders and average loss."""
        mine = [t for t in self.turns if t.side == side]
        mistakes = sum(t.mark == "?" for t in mine)
        blunders = sum(t.mark == "??" for t in mine)
        average = sum(t.loss for t in mine) / len(mine) / 100 if mine else 0.0
        return (f"{side}: {mistakes} mistake{'s' if mistakes != 1 else ''}, {blunders} "
                f"blunder{'s' if blunders != 1 else ''}, average loss {average:.2f} pieces "
                f"over {len(mine)} turn{'s' if len(mine) != 1 else ''}")


MAX_NODES = 10**12  # a position: days of search at any speed this engine has


def check_budget(nodes: int | None, seconds: float | None) -> None:
    """Refuse a search budget that is no budget (``ValueError``, one line)."""
    if seconds is not None and nodes is not None:
        raise ValueError("give --nodes or --time, not both")
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"--time must be more than 0 and at most {MAX_SECONDS:g} seconds, "
                         f"not {seconds:.15g}")
    if nodes is not None and not 0 < nodes <= MAX_NODES:
        told = str(nodes) if len(str(nodes)) <= 20 else f"{str(nodes)[:17]}..."
        raise ValueError(f"--nodes must be from 1 to {MAX_NODES:,}, not {told}")


def review(variant: AnyVariant, start: str | None, tokens: Sequence[str], *,
           nodes: int | None = None, seconds: float | None = None,
           each: Callable[[TurnReview], None] | None = None) -> Review:
    """Judge every turn of the game ``tokens`` plays from ``start`` (None:
    the variant's start).  ``nodes`` bounds each search (default
    :data:`DEFAULT_NODES`, :data:`PYTHON_NODES` where the search runs in
    Python);
    ``seconds`` bounds it by time instead (results then vary with the
    machine).  ``each`` is called with every turn as it is judged.
    ``ValueError`` in one line: a bad budget, a game with no moves, a
    token the rules refuse."""
    check_budget(nodes, seconds)
    game = _replayed(variant, start, tokens)
    turns = numbered_turns(game)
    if not turns:
        raise ValueError("the game has no moves to look back at")
    if seconds is None and nodes is None:
        nodes = DEFAULT_NODES if csearch.available(game) else PYTHON_NODES
    judge = _Judge(nodes, seconds)
    g = make_game(variant, start)
    out = []
    since = 0  # where the last turn played in g began
    for number, toks in turns:
        begun = len(g.history)
        out.append(judge.turn(g, number, toks, since))
        since = begun
        if each is not None:
            each(out[-1])
    return Review(out)


def _replayed(variant: AnyVariant, start: str | None, tokens: Sequence[str]) -> AnyGame:
    game = make_game(variant, start)
    for i, token in enumerate(tokens, 1):
        if token in ENDINGS:
            continue
        try:
            game.play(token)
        except (ValueError, LookupError) as exc:
            raise ValueError(f"the game does not replay: action {i} ({token}): {exc}") from None
    return game


def _actions(game: AnyGame, tokens: Sequence[str]) -> list[str]:
    return [a for t in tokens for a in split_token(game.variant, game.geometry, t)]


class _Judge:
    """Scores positions at one budget, remembering every position scored
    (the position after a turn is the next turn's position before it)."""

    def __init__(self, nodes: int | None, seconds: float | None) -> None:
        self.nodes = nodes
        self.seconds = MAX_SECONDS if seconds is None else seconds
        self.books: dict[str, SearchResult | None] = {}
        self.searched: dict[str, SearchResult] = {}

    def answer(self, game: AnyGame, book: bool = True) -> SearchResult:
        """The engine's answer in ``game``: the opening book's when ``book``
        and the book holds the position, else the search's."""
        found = self._book(game) if book else None
        if found is not None:
            return found
        key = game.position()
        if key not in self.searched:
            self.searched[key] = best_move(game, self.seconds, max_nodes=self.nodes,
                                           book=False)
        return self.searched[key]

    def _book(self, game: AnyGame) -> SearchResult | None:
        key = game.position()
        if key not in self.books:
            self.books[key] = book_move(game)
        return self.books[key]

    def value(self, game: AnyGame, side: str, book: bool) -> int | None:
        """``game``'s score for ``side``: the book's when ``book`` (None:
        the book has none), else the search's."""
        outcome = game.outcome
        if outcome is not None:
            return 0 if outcome.winner is None else (WIN if outcome.winner == side else -WIN)
        found = self._book(game) if book else self.answer(game, book=False)
        if found is None:
            return None
        return found.score if game.to_move == side else -found.score

    def turn(self, g: AnyGame, number: int, toks: list[str], since: int) -> TurnReview:
        """Judge the turn ``toks`` in ``g`` and play it there; ``since`` is
        the action where ``g``'s last turn began (0 when none): the turns
        are grouped from there on only, so a game is judged in time
        linear in its length."""
        side = str(g.to_move)
        played = _actions(g, toks)
        found = self.answer(g)
        engine = self._engine_turn(g, found, since)
        copy = g.copy()
        for action in engine:
            copy.play(action)
        for action in played:
            g.play(action)
        if played[:len(engine)] == engine:
            return TurnReview(number, side, " ".join(toks), found.score, None, 0, "")
        # Both sides of the gap at the same depth: the book's when it holds
        # both positions, else the search's at the budget.
        after, best = self.value(g, side, True), self.value(copy, side, True)
        if after is None or best is None:
            after, best = self.value(g, side, False), self.value(copy, side, False)
        assert after is not None and best is not None
        loss = max(0, _capped(best) - _capped(after))
        given_away = found.score >= WON and after < WON
        mark = "??" if loss >= BLUNDER or given_away else "?" if loss >= MISTAKE else ""
        shown = " ".join(_last_turn(copy, since))
        return TurnReview(number, side, " ".join(toks), found.score, shown, loss, mark)

    def _engine_turn(self, g: AnyGame, found: SearchResult, since: int) -> list[str]:
        """The engine's actions for this turn: its line while the side
        still moves in the same turn; in the setting phase, its first
        placement, then its answer (book or search) in the position that
        leaves, for the second.  Turns are counted from action ``since``
        (where ``g``'s last turn began)."""
        copy = g.copy()
        side = copy.to_move
        turns = len(list(group_turns(copy, since)))
        line: list[str] = []
        pv = list(found.pv[:1] if getattr(copy, "setting", False) else found.pv)
        while copy.outcome is None and copy.to_move == side:
            if not pv:
                if not getattr(copy, "setting", False):
                    break
                pv = list(self.answer(copy).pv[:1])
                if not pv:
                    break
            action = pv.pop(0)
            try:
                copy.play(action)
            except RulesError:
                break
            if len(list(group_turns(copy, since))) > turns + 1:
                break  # the same side's next turn (the other side is blocked)
            line.append(str(copy.history[-1][1]) if copy.history else action)
        return line


def _last_turn(game: AnyGame, since: int) -> list[str]:
    """The last turn's record tokens of ``game``, whose turns are grouped
    from action ``since`` on (the first action of one of them)."""
    groups = list(group_turns(game, since))
    return groups[-1] if groups else []


def _capped(score: int) -> int:
    return max(-CAP, min(CAP, score))


def score_words(score: int) -> str:
    """A score for the side to move, in pieces or as a forced result."""
    if score >= WON:
        k = WIN - score
        return f"wins in {k}"
    if score <= -WON:
        return f"loses in {WIN + score}"
    return f"{score / 100:+.2f}"


def turn_line(t: TurnReview) -> str:
    """One turn of the review as a line: number, side, the turn played,
    the score before it, and when the engine preferred another turn, that
    turn, the loss in pieces and the mark."""
    text = f"{t.number:4d}. {t.side:<8} {t.played:<16} {score_words(t.score):>12}"
    if t.best is not None:
        text += f"  best {t.best:<16} loss {t.loss / 100:.2f} {t.mark}"
    return text.rstrip()
