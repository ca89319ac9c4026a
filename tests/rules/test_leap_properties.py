"""Properties of the leap games over random games (hypothesis chooses the
seeds): nothing raises, undo restores every position, position strings
round-trip, soldiers are conserved; and the position strings' errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leap_helpers import leap_pos, legal

from controller.rules.leap import LeapGame
from controller.rules.leap_variants import LEAP_VARIANTS
from controller.rules.moves import PositionError

NAMES = [v.name for v in LEAP_VARIANTS]


def _random_game(variant: str, seed: int, limit: int = 400) -> LeapGame:
    """A random game checked at every action."""
    rng = random.Random(seed)
    g = LeapGame.new(variant)
    for _ in range(limit):
        if g.outcome is not None:
            break
        before = g.position()
        moves = g.legal_moves()
        assert moves, f"no move and no outcome in {before}"
        assert [(m.kind, m.frm, m.to) for m in moves] == [r[:3] for r in g.raw_moves()]
        a, d = g.bitboards()
        m = moves[rng.randrange(len(moves))]
        played = g.play(m)
        a2, d2 = g.bitboards()
        lost = (a.bit_count() - a2.bit_count(), d.bit_count() - d2.bit_count())
        side = g.history[-1][0].side
        # A capture or a huff takes one soldier of the other side; nothing
        # else leaves the board.
        expect = 1 if played.capture or played.kind == "remove" else 0
        assert (lost[side], lost[1 - side]) == (0, expect), (before, str(played))
        assert g.pop() == played
        assert g.position() == before
        g.play(played)
    return g


@pytest.mark.parametrize("variant", NAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_never_raise_and_undo_restores(variant: str, seed: int) -> None:
    g = _random_game(variant, seed)
    while g.ply:
        g.pop()
    assert g.position() == LeapGame.new(variant).position()
    assert g.outcome is None


@pytest.mark.parametrize("variant", NAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_positions_round_trip(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    g = _random_game(variant, seed, limit=rng.randrange(1, 300))
    if g.outcome is not None:
        g.pop()
    text = g.position()
    again = LeapGame.from_position(variant, text)
    assert again.position() == text
    assert legal(again) == legal(g)
    assert again.start_position == text


@pytest.mark.parametrize("variant", NAMES)
def test_copy_is_independent(variant: str) -> None:
    g = _random_game(variant, 7, limit=20)
    c = g.copy()
    before = g.position()
    c.play(c.legal_moves()[0])
    assert g.position() == before
    assert c.ply == g.ply + 1


def test_finished_games_end_by_the_rules() -> None:
    reasons = set()
    for variant in NAMES:
        for seed in range(6):
            g = _random_game(variant, seed, limit=6000)
            assert g.outcome is not None, variant
            reasons.add(g.outcome.reason)
    assert reasons <= {"all-captured", "blocked", "repetition", "no-progress", "turn-limit"}
    assert "all-captured" in reasons


KHARBGA_START = "AADDADA/DDAADAD/AADDADA/DAD.ADA/ADADADA/DADADAD/ADADADA a m - 1"


@pytest.mark.parametrize(
    ("variant", "text", "board"),
    [
        ("sixteen-soldiers", KHARBGA_START, "37-point board has 9 rows of 3,3,5,5,5,5,5,3,3"),
        ("hewakam-keliya", LeapGame.new("checkers").position(), "37-point board"),
        ("checkers", LeapGame.new("sixteen-soldiers").position(), "8x8 board has 8 rows of 8"),
        ("english-draughts", KHARBGA_START, "8x8 board"),
    ],
)
def test_a_position_of_another_board_is_refused_in_one_line(
    variant: str, text: str, board: str
) -> None:
    with pytest.raises(PositionError) as err:
        LeapGame.from_position(variant, text)
    message = str(err.value)
    assert "\n" not in message
    assert variant in message and board in message


@pytest.mark.parametrize(
    ("variant", "pieces", "tail", "words"),
    [
        ("checkers", {"A": "b1"}, "a m - 1", "light square"),
        ("checkers", {"A": "b3"}, "a m - 1", "light square"),
        ("checkers", {"A": "b8", "D": "a1"}, "a m - 1", "crowning row"),
        ("sixteen-soldiers", {"a": "c3", "D": "c5"}, "a m - 1", "no kings"),
        ("sixteen-soldiers", {"A": "c3", "D": "c5"}, "a s - 0", "moving phase"),
        ("sixteen-soldiers", {"A": "c3", "D": "c5"}, "a m c3 1", "can capture"),
        ("sixteen-soldiers", {"A": "c3", "D": "c5"}, "a m - 1 hf=c3", "other side"),
        ("checkers", {"A": "c3", "D": "c5"}, "d m - 1 hf=c3", "no huffing"),
        ("checkers", {"A": "c3", "D": "c5"}, "a m - 1 zz=1", "unknown extra field"),
        ("checkers", {"A": "c3", "D": "c5"}, "a m - 1 np=1 np=2", "'np' given twice"),
        ("checkers", {"A": "c3", "D": "c5"}, "a m - 0", "turn number '0' is not a whole number"),
        ("checkers", {"A": "c3", "D": "c5"}, "a m - 99999999999999999999", "from 1 to 1,000,000"),
        ("sixteen-soldiers", {"A": "c3", "D": "c5"}, "a m - 1 np=-1", "'np=-1': the count"),
    ],
)
def test_bad_positions_are_refused(
    variant: str, pieces: dict[str, str], tail: str, words: str
) -> None:
    if pieces.get("A") in ("b1", "b3"):
        g = LeapGame.new(variant).geometry
        rows = ["........"] * 8
        sq = g.index[pieces["A"]]
        r = 7 - sq // 8
        rows[r] = rows[r][: sq % 8] + "A" + rows[r][sq % 8 + 1:]
        text = "/".join(rows) + " " + tail
    else:
        text = leap_pos(variant, tail, **pieces)
    with pytest.raises(PositionError, match=words) as err:
        LeapGame.from_position(variant, text)
    assert "\n" not in str(err.value)  # said on one line


def test_kings_and_huffs_round_trip() -> None:
    text = leap_pos("checkers", "a m c5 9 np=3", a="c5", D="d6 h8", d="b2")
    assert LeapGame.from_position("checkers", text).position() == text
    text = leap_pos("sixteen-soldiers", "d m - 4 np=0 hf=c3,e5", A="c3 e5", D="a9")
    g = LeapGame.from_position("sixteen-soldiers", text)
    assert g.position() == text
    assert legal(g) == ["xc3", "xe5"]


def test_a_position_read_after_the_huff_ends_its_turn_as_one_with_a_huff() -> None:
    """Between the huff and the step of the side that took it, the string
    says the huff is taken (``hf=done``): read back there, the step ends a
    turn of progress as in the game it came from (before, the count of turns
    without progress went on, here to a draw at 100), and the position, in
    the middle of a turn, counts for no repetition."""
    from controller.rules import game_from_position

    a = game_from_position("sixteen-soldiers",
                           "DDD/DDD/DDDDD/DD.DD/A.D../AAAAA/.AAAA/AAA/AAA d m - 4 np=99 hf=c4")
    a.play("xc4")
    assert a.position().endswith(" d m - 4 np=99 hf=done")
    b = game_from_position("sixteen-soldiers", a.position())
    assert b.position() == a.position() and b.state() == a.state()
    for game in (a, b):
        game.play("d6-e5")
    assert b.position() == a.position() and a.no_progress == 0 and b.outcome is None
    a.pop()
    assert a.position().endswith(" hf=done")  # undone to the huff taken
    a.pop()
    assert a.position().endswith(" np=99 hf=c4")


def test_a_position_in_a_chain_after_a_huff_reads_back_as_it_was() -> None:
    """The huff taken, then a capture whose chain goes on: the string says
    both (``b6 ... hf=done``) and reads back to the same game, played on to
    its end. Before, the service published such a position (its state) and
    refused it as a start: "a huff is taken at the start of a turn"."""
    from controller.rules import game_from_position

    rng = random.Random(2)
    found = 0
    for _ in range(400):
        game = LeapGame.new("sixteen-soldiers")
        while game.outcome is None and len(game.moves) < 200:
            game.play(rng.choice(game.legal_moves()))
            if game.chain_point < 0 or not game.position().endswith(" hf=done"):
                continue
            found += 1
            read = game_from_position("sixteen-soldiers", game.position())
            assert read.position() == game.position() and read.state() == game.state()
            rest = game.copy()
            while rest.outcome is None and len(rest.moves) < 400:
                move = rng.choice(rest.legal_moves())
                rest.play(move)
                read.play(str(move))
                assert read.position() == rest.position()
            assert read.outcome == rest.outcome
        if found >= 5:
            break
    assert found >= 5
