"""The setting phase's opening book (controller/engine/book.py): the fold
is a symmetry of the rules, best_move answers from the book at full
strength only (book_move is the book's move for a position, if any), and
the packaged books are well formed and legal."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.engine import api, csearch
from controller.engine.book import (
    SYMMETRIES,
    VARIANTS,
    BookError,
    book_for,
    fold,
    load,
    map_move,
    parse,
    transform,
)
from controller.rules import Game, find_any_variant, find_variant
from controller.rules.leap_factory import make_game


def setting_positions(variant: str, count: int, seed: int) -> list[str]:
    """Positions of random setting phases after 1 to 12 placements."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        g = Game.new(variant)
        for _ in range(rng.randint(1, 12)):
            g.play(rng.choice(g.legal_moves()))
        out.append(g.position())
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_fold_is_a_symmetry_of_the_rules(variant: str) -> None:
    for position in setting_positions(variant, 6, seed=len(variant)):
        game = Game.from_position(variant, position)
        n = game.variant.size
        legal = {str(m) for m in game.legal_moves()}
        key = fold(position)[0]
        for sym in SYMMETRIES:
            image = transform(position, sym)
            assert fold(image)[0] == key
            moved = {str(m) for m in Game.from_position(variant, image).legal_moves()}
            assert moved == {map_move(m, sym, n) for m in legal}
        folded, sym = fold(position)
        back = {map_move(m, sym, n, inverse=True)
                for m in (str(x) for x in Game.from_position(variant, folded).legal_moves())}
        assert back == legal


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_book_move_is_legal(variant: str) -> None:
    book = book_for(variant)
    assert book is not None and len(book) >= 8
    for key, entry in book.entries.items():
        game = Game.from_position(variant, key)
        assert game.setting
        assert entry.move in {str(m) for m in game.legal_moves()}, key
        assert entry.depth >= 1


@pytest.mark.skipif(not csearch.available(), reason="the C search extension was not built")
@pytest.mark.parametrize("variant", VARIANTS)
def test_best_move_plays_the_book_move_through_the_symmetry(variant: str) -> None:
    book = book_for(variant)
    assert book is not None
    rng = random.Random(variant)
    for key in rng.sample(sorted(book.entries), 5):
        entry = book.entries[key]
        sym = rng.choice(SYMMETRIES)
        game = Game.from_position(variant, transform(key, sym))
        n = game.variant.size
        booked = Game.from_position(variant, key)
        booked.play(entry.move)
        for level in (None, 5):
            r = api.best_move(game, 5.0, level=level)
            after = game.copy()
            after.play(str(r.move))
            # the book move through the symmetry; in a position symmetric
            # itself, possibly a move equivalent to it
            assert fold(after.position())[0] == fold(booked.position())[0]
            if len({transform(key, other) for other in SYMMETRIES}) == len(SYMMETRIES):
                assert str(r.move) == map_move(entry.move, sym, n)
            assert (r.score, r.depth, r.pv, r.nodes, r.seconds) == (
                entry.score, entry.depth, [str(r.move)], 0, 0.0)
        # a bounded search, a weaker level or book=False search instead
        assert api.best_move(game, 5.0, max_depth=2).nodes > 0
        assert api.best_move(game, 0.05, book=False).nodes > 0
        assert api.best_move(game, 0.05, level=4).nodes > 0


@pytest.mark.skipif(not csearch.available(), reason="the C search extension was not built")
def test_a_position_outside_the_book_is_searched() -> None:
    book = book_for("kharbga")
    assert book is not None
    outside = [p for p in setting_positions("kharbga", 20, seed=5)
               if fold(p)[0] not in book.entries]
    assert outside
    game = Game.from_position("kharbga", outside[0])
    r = api.best_move(game, 0.2)
    assert r.nodes > 0 and r.depth >= 1
    assert str(r.move) in {str(m) for m in game.legal_moves()}


def test_a_moving_phase_position_never_consults_the_book() -> None:
    assert api.book_move(Game.from_position(
        "sabouiyya", "AADDA/DADDA/AD.AD/ADADA/DDAAD a m - 1")) is None


@pytest.mark.parametrize("variant", VARIANTS)
def test_book_move_is_the_books_move_in_the_book_and_none_outside(variant: str) -> None:
    book = book_for(variant)
    assert book is not None
    rng = random.Random(f"book_move {variant}")
    for key in rng.sample(sorted(book.entries), 4):
        entry = book.entries[key]
        sym = rng.choice(SYMMETRIES)
        game = Game.from_position(variant, transform(key, sym))
        before = game.position()
        found = api.book_move(game)
        assert found is not None and found.move is not None
        assert game.position() == before  # the game is left as it was
        # the move the book holds for the position as it stands on the board
        hit = book.lookup(before)
        assert hit is not None
        assert (str(found.move), found.score, found.depth) == hit
        assert (found.pv, found.nodes, found.seconds) == ([hit[0]], 0, 0.0)
        after = Game.from_position(variant, key)
        after.play(entry.move)
        game.play(found.move)
        assert fold(game.position())[0] == fold(after.position())[0]
    outside = [p for p in setting_positions(variant, 30, seed=7)
               if fold(p)[0] not in book.entries]
    assert outside
    for position in outside[:5]:
        assert api.book_move(Game.from_position(variant, position)) is None


GOOD = "...../...../...../...../....A a s - 0\t@e2\t12\t9\n"


@pytest.mark.parametrize("line, problem", [
    ("...../...../...../...../....A a s - 0\t@e2\t12\n", "4 tab-separated fields"),
    ("...../...../...../...../....A a s - 0\t@f9\t12\t9\n", "placement"),
    ("...../...../...../...../....A a s - 0\t@e2\tgood\t9\n", "integers"),
    ("...../...../...X./...../....A a s - 0\t@e2\t12\t9\n", "position"),
    ("A..../...../...../...../..... a s - 0\t@e2\t12\t9\n", "folded"),
])
def test_a_malformed_book_line_is_refused_naming_file_and_line(
        tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "book-sabouiyya.tsv"
    path.write_text("# a comment\n" + GOOD + line, encoding="utf-8")
    with pytest.raises(BookError) as err:
        load(path, "sabouiyya")
    message = str(err.value)
    assert message.startswith(f"{path}:3: ")
    assert problem in message and "\n" not in message
    assert len(load_good(tmp_path)) == 1


def load_good(tmp_path: Path) -> object:
    path = tmp_path / "good.tsv"
    path.write_text(GOOD, encoding="utf-8")
    return load(path, "sabouiyya").entries


def test_parse_reads_comments_blank_lines_and_entries() -> None:
    book = parse("# header\n\n" + GOOD, "mem", "sabouiyya")
    hit = book.lookup("A..../...../...../...../..... a s - 0")
    assert hit is not None and hit[1:] == (12, 9)
    game = Game.from_position("sabouiyya", "A..../...../...../...../..... a s - 0")
    assert hit[0] in {str(m) for m in game.legal_moves()}


def test_a_game_under_other_rule_options_never_consults_the_book() -> None:
    # The book was searched under the named variant's rules; the same name
    # with another setting rule or blocked rule is searched instead.
    plain = Game.new("kharbga")
    assert api.book_move(plain) is not None
    for options in ({"blocked": "remove"}, {"setting_rule": "free"}):
        other = Game.new(find_variant("kharbga").with_options(**options))
        assert other.variant.name == "kharbga"
        assert other.position() == plain.position()  # the same position, other rules
        assert api.book_move(other) is None
    assert api.book_move(make_game(find_any_variant("english-draughts"))) is None
