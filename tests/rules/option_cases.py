"""A case for every rule option of the Kharbga family (a field of
``Variant``): a value other than its base variant's that changes play,
with where to start and how many seeded random games show it.

tests/rules/test_rule_options.py plays each case on both cores (the same
actions, states and results move by move) and fails when a case's games
play exactly as its base's (an option the cores ignore) or when an option,
or a word of one, has no case; tests/rules/test_differential.py plays
each case with ``reference=True`` against tests/rules/reference.py.
A new option needs its case here."""

from __future__ import annotations

import random
from dataclasses import dataclass, fields

from helpers import filled, pos

from controller.rules import Game, Variant, find_variant

OPTIONS = [f.name for f in fields(Variant) if f.name not in ("name", "description")]
# The values of the options that take a word (any other word is refused).
WORDS = {
    "setting_rule": ("open-first-move", "first-piece-adjacent", "free"),
    "chain": ("mandatory", "optional"),
    "blocked": ("lose", "move-again", "reopen", "remove"),
}

KH = find_variant("kharbga")
RF = find_variant("kharbga-refuge")
KM = find_variant("khamousiyya")
SB = find_variant("sabouiyya")

# Only c4 can enter the centre, and then the Defender cannot move
# (tests/rules/test_kharbga_rules.py's first_turn_board): on the first turn
# of the moving phase, and later.
_WALLED = filled(a="c4 b4 c5 c3", d="d5 e4 d3 d6 f4 d2", empty="d4")
FIRST_TURN = pos(*_WALLED, tail="a m - 1")
BLOCKING = pos(*_WALLED, tail="a m - 7")
# Two holes in a full board, a1 and b1: the pieces next to them step to
# and fro, and a position comes back a third time in some games.
REPEATING = pos(*filled(empty="a1 b1"), tail="a m - 5")
# A diagonal wall and a Defender soldier shuffling inside: H'ajeb may be
# declared (tests/rules/test_hajeb.py's WALL).
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"


@dataclass(frozen=True)
class Case:
    """Rule option ``option`` set to ``value`` on ``base``, played from
    ``position`` (empty: the empty board) in ``games`` seeded random games
    of at most ``cut`` actions."""

    option: str
    value: object
    base: Variant
    position: str = ""
    games: int = 10
    cut: int = 300
    reference: bool = True  # tests/rules/reference.py plays it too

    @property
    def variant(self) -> Variant:
        return self.base.with_options(**{self.option: self.value})

    def __str__(self) -> str:
        value = str(self.value).lower() if isinstance(self.value, bool) else self.value
        return f"{self.option}={value} on {self.base.name}"


CASES = [
    Case("size", 5, KH),
    Case("setting_rule", "free", KH),
    Case("setting_rule", "first-piece-adjacent", KH),
    Case("setting_rule", "open-first-move", KM),
    Case("compulsory_capture", True, KH),
    Case("chain", "optional", KH),
    Case("chain", "mandatory", KM),
    Case("refuge", True, KH),
    Case("exchange", False, KH),
    Case("blocked", "lose", KH, BLOCKING, games=3),
    Case("blocked", "reopen", KH, BLOCKING, games=3),
    Case("blocked", "remove", KH, BLOCKING, games=3),
    Case("blocked", "move-again", RF, BLOCKING, games=3),
    Case("blocked_first_turn_defender_wins", False, KH, FIRST_TURN, games=3),
    Case("no_progress_turns", 8, KH),
    Case("repetition", False, KH, REPEATING, games=6),
    Case("win_kinds", True, KH.with_options(no_progress_turns=6)),
    Case("turn_limit", 40, KH),
    # H'ajeb's declaration is no legal move: the games below declare it
    # when they may (``play``); reference.py does not know it.
    Case("hajeb", True, SB, WALL, games=6, reference=False),
]


class PureGame(Game):
    """A game on the pure core whatever the variant (Game hands out the
    compiled core where it can play the variant)."""


def start(cls: type[Game], variant: Variant, position: str = "") -> Game:
    return cls.from_position(variant, position) if position else cls.new(variant)


def play(game: Game, seed: int, cut: int) -> list[tuple[object, ...]]:
    """A seeded random game: what each decision offered (the raw actions,
    then any H'ajeb action) and the state it led to, action by action."""
    rng = random.Random(seed)
    seen: list[tuple[object, ...]] = []
    while game.outcome is None and len(seen) < cut:
        raws = list(game.raw_moves())
        extra = [str(m) for m in game.hajeb_actions()] if game.variant.hajeb else []
        k = rng.randrange(len(raws) + len(extra))
        if k < len(raws):
            game.push_raw(raws[k])
        else:
            game.play(extra[k - len(raws)])
        seen.append((raws, extra, k, game.state()))
    return seen
