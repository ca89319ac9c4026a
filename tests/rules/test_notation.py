"""Notation, position strings and records: reading, writing, errors."""

from __future__ import annotations

import io
import random

import pytest

from controller.rules import Game, NotationError, PositionError, find_variant
from controller.rules.record import Record, RecordError, parse_record, read_record

START_MOVING = "ADADADA/DADADAD/DADADAD/ADA.ADA/DADADAD/DADADAD/ADADADA a m - 1"


def test_move_strings_and_lookup() -> None:
    g = Game.from_position("kharbga", START_MOVING)
    assert sorted(str(m) for m in g.legal_moves()) == ["c4-d4", "d3-d4", "d5-d4", "e4-d4"]
    assert str(g.find_move("c4", "d4")) == "c4-d4"
    assert g.find_move(g.geometry.parse_point("d5"), "d4").from_square == "d5"
    with pytest.raises(ValueError, match="no legal b4-d4"):
        g.find_move("b4", "d4")
    # "-" and "x" are accepted alike; the notation says what happened.
    assert str(g.play("c4xd4")) == "c4-d4"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ADADADA/DADADAD a m - 1", "its 7x7 board has 7 ranks, this one 2"),
        ("ADADADA/DADADAD/ADADADA/DAD.DAD/ADADADA/DADADAD/ADADAD a m - 1", "rank 1"),
        ("ADADADA/DADADAD/ADADADA/DAD.DAD/ADADADA/DADADAD/ADADADX a m - 1", "unknown piece 'X'"),
        (START_MOVING.replace(" a m", " b m"), "side to move 'b'"),
        (START_MOVING.replace(" a m", " a q"), "phase 'q'"),
        (START_MOVING.replace(" - 1", " - x"), "turn number 'x'"),
        # Numbers beyond any game, which the compiled core cannot hold.
        (START_MOVING.replace(" - 1", " - 99999999999999999999"),
         "turn number '99999999999999999999' is not a whole number from 0 to 1,000,000"),
        (START_MOVING.replace(" - 1", " - -3"), "turn number '-3' is not a whole number"),
        (START_MOVING + " np=2147483648", "'np=2147483648': the count"),
        (START_MOVING + " off=99999999999999999999,0,0,0,0,0", "the count '9999"),
        (START_MOVING + " off=1,0,0,0,0,0", "the Attacker has 24 on the board and 1 off it"),
        (START_MOVING.replace(" - 1", " z9 1"), "chain square 'z9'"),
        (START_MOVING + " ex=9:d4", "extra field 'ex=9:d4'"),
        (START_MOVING + " foo", "not key=value"),
        (START_MOVING + " np=1 np=2", "extra field 'np' given twice"),  # before: np=2
        ("AA", "needs 5 fields"),
        # The setting phase: the Attacker places first, two at a time, so it
        # leads by 0, 1 or 2; three ahead (the Defender's turn by the count)
        # no game reaches, nor one ahead for the Defender.
        ("......./......./......./......./......./......./AAA.... d s - 0",
         "piece counts or turn number impossible in the setting phase"),
        ("......./......./......./......./......./......./AADDD.. a s - 0",
         "piece counts or turn number impossible in the setting phase"),
        ("......./......./......./......./......./......./AA..... d s - 3",
         "piece counts or turn number impossible in the setting phase"),
    ],
)
def test_bad_positions_name_the_field(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message) as err:
        Game.from_position("kharbga", text)
    assert "\n" not in str(err.value)  # said on one line


def test_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown variant 'chess'"):
        Game.new("chess")


def test_bad_moves() -> None:
    g = Game.new("kharbga")
    for text in ("@d4", "@z1", "d1-d9", "hello", "@"):
        with pytest.raises(ValueError):
            g.play(text)
    assert g.moves == []


GOOD = """[Variant "sabouiyya"]
[Attacker "Amel"]
[Result "*"]

1. @c2 @a1 2. @b3 @a2 {a comment
over two lines} 3. @a3 @a4 *
"""


def test_record_reads_from_a_handle_and_writes_back() -> None:
    record = read_record(io.StringIO(GOOD))
    assert record.tags["Attacker"] == "Amel"
    assert [t.tokens for t in record.turns] == [["@c2", "@a1"], ["@b3", "@a2"], ["@a3", "@a4"]]
    assert record.turns[1].comments == ["{a comment\nover two lines}"]
    game = record.game()
    assert game.count("attacker") == 4 and game.count("defender") == 2
    assert game.to_move == "defender"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace("@b3", "@b9"), r"line 5: token '@b9'"),
        (GOOD.replace("@a3 @a4", "@a3 @a3"), r"line 6: token '@a3': illegal move"),
        (GOOD.replace("@b3", "b3"), r"line 5: token 'b3': cannot read move"),
        # Before: "IndexError: list index out of range" (the x of x4 taken for a capture).
        (GOOD.replace("@b3", "b3-x4"), r"line 5: token 'b3-x4': bad square"),
        (GOOD.replace(" *\n", "\n"), "does not end with a result"),
        (GOOD.replace("[Result", "[Result oops"), r"line 3: cannot read tag"),
        (GOOD.replace("sabouiyya", "go"), "unknown variant 'go'"),
        (GOOD.replace("1. @c2", "@c2"), r"line 5: token '@c2' before the first turn number"),
        (GOOD.replace("*\n", "* 4. @b1\n"), "after the result"),
        (GOOD.replace("two lines}", "two lines"), "comment not closed"),
        (GOOD.replace('[Result "*"]', '[Result "1-0"]'), "tag Result '1-0'"),
    ],
)
def test_bad_records_name_line_and_token(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message) as err:
        parse_record(text).game()
    assert "\n" not in str(err.value)  # said on one line


def test_chains_and_pass_are_written_as_one_turn() -> None:
    start = "......D/......./......./..DA.../..DA.../A.DA.../....... a m - 5"
    g = Game.from_position("khamousiyya", start)
    g.play("a2-b2")  # takes c2: the chain goes on
    assert g.chain_square == "b2" and g.to_move == "attacker"
    assert sorted(str(m) for m in g.legal_moves()) == ["b2xb3", "pass"]
    g.play("b2-b3")  # takes c3
    assert sorted(str(m) for m in g.legal_moves()) == ["b3xb4", "pass"]
    g.play("pass")
    assert g.to_move == "defender" and g.chain_square is None
    record = Record.from_game(g, start=start)
    assert record.turns[0].tokens == ["a2xb2xb3", "pass"]
    again = parse_record(str(record)).game()
    assert again.position() == g.position()


def test_resignation_round_trips_through_the_record() -> None:
    g = Game.new("kharbga")
    g.play("@a1")
    g.play("@b1")
    g.resign("attacker")
    assert g.outcome is not None and g.outcome.winner == "defender"
    text = str(Record.from_game(g))
    assert '[Termination "resignation"]' in text and text.rstrip().endswith("0-1")
    again = parse_record(text).game()
    assert again.outcome == g.outcome


def test_notation_errors_are_value_errors() -> None:
    assert issubclass(NotationError, ValueError)
    assert issubclass(RecordError, ValueError)


def test_a_chain_square_whose_soldier_cannot_capture_again_is_refused() -> None:
    import pytest

    from controller.rules import Game
    from controller.rules.moves import PositionError

    stuck = "......./......./......./......./......./D....../A.D.... a m a1 5"
    with pytest.raises(PositionError, match="chain square a1: its soldier has no capture"):
        Game.from_position("kharbga", stuck)
    # A chain in progress reads back as it was written.
    g = Game.from_position("kharbga", "......./......./......./..DA.../..DA.../A.DA.../......D "
                           "a m - 5")
    g.play("a2xb2")
    again = Game.from_position("kharbga", g.position())
    assert again.chain_square == "b2" and [str(m) for m in again.legal_moves()] == ["b2xb3"]


def test_a_tag_value_with_a_line_break_stays_on_its_line() -> None:
    # Whatever a tag's value holds, its tag is one line: a line break, a
    # NUL or a bidi override is written '?', quotes and backslashes escaped.
    record = Record(tags={"Variant": "kharbga", "Attacker": 'a"]\n[Result "1-0"]\\',
                          "Defender": "b\u202ec\x00"})
    text = str(record)
    back = parse_record(text)
    assert back.tags["Attacker"] == 'a"]?[Result "1-0"]\\'
    assert back.tags["Defender"] == "b?c?"
    # Spaces of every kind, and any script, stay as written.
    names = {"Attacker": "Jean\u00a0Dupont", "Defender": "山田\u3000太郎 محمد"}
    assert parse_record(str(Record(tags={"Variant": "kharbga", **names}))).tags == {
        "Variant": "kharbga", **names}
    assert text.splitlines()[1].startswith('[Attacker "') and "[Result" not in text.splitlines()[2]


def test_a_tag_given_twice_is_refused() -> None:
    # Which is meant? Read as the last (checkers) before, the game played on
    # the other board.
    text = '[Variant "kharbga"]\n[Attacker "A"]\n[Variant "checkers"]\n\n*\n'
    with pytest.raises(RecordError, match=r"^line 3: tag Variant given twice$"):
        parse_record(text)
    # Numbers are not checked: a record written by hand replays by its tokens.
    record = parse_record('[Variant "kharbga"]\n\n5. @a1 @b1 3. @c1 @d1 *\n')
    assert [t.tokens for t in record.turns] == [["@a1", "@b1"], ["@c1", "@d1"]]


def test_a_position_read_mid_chain_ends_its_turn_as_a_capturing_turn() -> None:
    """A chain square says the side captured this turn: read back mid-chain
    and the chain given up (``pass``, kharbga with chains optional), a game
    counts the turn as progress, as the game that reached it does (the
    count of turns without a capture back to 0, not one more)."""
    variant = find_variant("kharbga").with_options(chain="optional")
    rng = random.Random(3)
    found = 0
    while found < 5:
        game = Game.new(variant)
        while game.outcome is None:
            if game.state().chain >= 0 and game.no_progress > 0:
                back = Game.from_position(variant, game.position())
                game.play("pass")
                back.play("pass")
                assert back.no_progress == game.no_progress == 0
                assert back.position() == game.position()
                found += 1
                break
            game.play(rng.choice(game.legal_moves()))
