"""The hall's bookkeeping without a network: moves in order, repeats
dropped, undo, missed moves filled from the board's record, malformed and
foreign messages ignored and counted, the evening's KGN."""

from __future__ import annotations

import json
import logging
import random
import time

import pytest
from bchelp import random_game

from controller.hall.boards import TWIN_KEPT
from controller.hall.model import Hall
from controller.rules import Game
from controller.rules.record import Record, parse_record


def _moves(actions: list[str], board: str = "b1", gid: int = 1, seq0: int = 0,
           **extra: object) -> list[bytes]:
    g = Game.new("sabouiyya")
    out = []
    for i, a in enumerate(actions):
        g.play(a)
        out.append(json.dumps({"seq": seq0 + i + 1, "board": board, "game_id": gid,
                               "ply": i + 1, "move": a, "position": g.position(),
                               "time": 1000.0 + i, "variant": "sabouiyya",
                               "attacker": "Ali", "defender": "Badr",
                               "result": None, **extra}).encode())
    return out


def _record(actions: list[str], gid: int = 1, **tags: str) -> bytes:
    g = Game.new("sabouiyya")
    for a in actions:
        g.play(a)
    return str(Record.from_game(g, {"Attacker": "Ali", "Defender": "Badr",
                                    "GameId": str(gid), **tags})).encode()


def _undo(seq: int, ply: int, g: Game) -> bytes:
    """The board's undo message: ``ply`` actions left, at ``g``'s position."""
    return json.dumps({"seq": seq, "game_id": 1, "ply": ply, "undo": True,
                       "position": g.position(), "time": 2000.0,
                       "variant": "sabouiyya"}).encode()


def test_moves_in_order_repeats_dropped() -> None:
    actions = random_game(1)[:20]
    hall = Hall()
    msgs = _moves(actions)
    for m in msgs[:12] + msgs[8:12] + msgs[12:]:  # four repeated (QoS 1)
        hall.handle("kharbga/b1/moves", m)
    d = hall.boards["b1"].detail()
    assert d["moves"] == actions and d["ply"] == 20
    assert d["attacker"] == "Ali" and d["last_move"] == actions[-1]
    assert hall.repeats == 4 and hall.stats()["ignored"] == 0
    replay = Game.new("sabouiyya")
    for a in actions:
        replay.play(a)
    assert d["position"] == replay.position()


def test_undo_and_replacement() -> None:
    actions = random_game(2)[:10]
    hall = Hall()
    for m in _moves(actions):
        hall.handle("kharbga/b1/moves", m)
    g = Game.new("sabouiyya")
    for a in actions[:8]:
        g.play(a)
    hall.handle("kharbga/b1/moves", _undo(11, 8, g))
    assert hall.boards["b1"].detail()["moves"] == actions[:8]
    # Another action in place of the one taken back.
    move = next(str(m) for m in g.legal_moves() if str(m) != actions[8])
    g.play(move)
    hall.handle("kharbga/b1/moves", json.dumps(
        {"seq": 12, "game_id": 1, "ply": 9, "move": move, "position": g.position(),
         "time": 2001.0, "variant": "sabouiyya"}).encode())
    d = hall.boards["b1"].detail()
    assert d["moves"] == [*actions[:8], move] and d["positions"][-1] == g.position()


def test_missed_moves_filled_from_the_record() -> None:
    actions = random_game(4)[:16]
    hall = Hall()
    msgs = _moves(actions)
    for m in msgs[:5] + msgs[9:12]:  # the broker lost 5..8
        hall.handle("kharbga/b1/moves", m)
    assert hall.boards["b1"].detail()["moves"] == actions[:5]
    hall.handle("kharbga/b1/game", _record(actions[:12]))
    assert hall.boards["b1"].detail()["moves"] == actions[:12]
    for m in msgs[12:]:
        hall.handle("kharbga/b1/moves", m)
    d = hall.boards["b1"].detail()
    assert d["moves"] == actions
    kgn = parse_record(hall.kgn())  # the moves after the record are in it too
    assert [str(m) for m in kgn.game().moves] == actions
    # A record behind the moves (it is sent every two seconds at most) changes nothing.
    hall.handle("kharbga/b1/game", _record(actions[:14]))
    assert hall.boards["b1"].detail()["moves"] == actions
    g = Game.new("sabouiyya")
    for a in actions:
        g.play(a)
    assert d["positions"][-1] == g.position() and len(d["positions"]) == 16


def test_a_game_put_aside_comes_back() -> None:
    """The state names the board's current game, even an older one."""
    hall = Hall()
    first, second = random_game(9)[:6], random_game(10)[:4]
    for m in _moves(first, gid=1):
        hall.handle("kharbga/b1/moves", m)
    for m in _moves(second, gid=2, seq0=50):
        hall.handle("kharbga/b1/moves", m)
    assert hall.boards["b1"].detail()["moves"] == second
    state = {"game_id": 1, "position": "x", "variant": "sabouiyya", "players": {}}
    hall.handle("kharbga/b1/state", json.dumps(state).encode())
    assert hall.boards["b1"].detail()["moves"] == first


def test_malformed_and_foreign_messages_are_counted() -> None:
    hall = Hall()
    bad = [
        ("kharbga/b1/moves", b"not json"),
        ("kharbga/b1/moves", b"[1, 2]"),
        ("kharbga/b1/moves", b'{"seq": "1"}'),
        ("kharbga/b1/moves", json.dumps({"seq": 1, "game_id": 1, "ply": -1, "move": "@a1",
                                         "position": "x", "time": 1, "variant": "v"}).encode()),
        ("kharbga/b1/moves", b"\xff\xfe"),
        ("kharbga/b1/state", b'{"game_id": true, "position": 3}'),
        ("kharbga/b1/game", b"[Variant \"nonsense\"]\n\n1. @z9 *\n"),
        ("kharbga/b1/game", b"1. @c2 *\n"),  # no GameId
        # A square named x read as a capture: before, an IndexError out of handle().
        ("kharbga/b1/game", b'[Variant "kharbga"]\n[GameId "1"]\n\n1. @a1 a1-x2 *\n'),
        ("kharbga/b1/game", b'[Variant "checkers"]\n[GameId "2"]\n\n1. c3-x4 *\n'),
        ("kharbga/b1/online", b"yes"),
        ("kharbga/b1/other", b"{}"),
        ("kharbga/a+b/moves", b"{}"),
        ("kharbga/b1", b"{}"),
        ("elsewhere/b1/moves", b"{}"),
        ("kharbga/b1/moves", b"[" * 100000),
        ("kharbga/b1/moves", b" " * 300000),
    ]
    for topic, payload in bad:
        assert hall.handle(topic, payload) is None, (topic, payload[:30])
    assert hall.stats()["ignored"] == len(bad)
    assert hall.boards == {}  # no card for a board heard only in junk
    # A good message still works afterwards.
    actions = random_game(5)[:3]
    for m in _moves(actions):
        assert hall.handle("kharbga/b1/moves", m) == "b1"
    assert hall.boards["b1"].detail()["moves"] == actions


def test_a_move_at_ply_0_is_malformed() -> None:
    # A move is its game's action 1 or later (only an undo leaves 0):
    # ply 0 read as action 0 cut the game's last move and put the
    # message's in its place.
    actions = random_game(10)[:8]
    hall = Hall()
    msgs = _moves(actions)
    for m in msgs[:5]:
        assert hall.handle("kharbga/b1/moves", m) == "b1"
    bad = dict(json.loads(msgs[5]), ply=0)
    assert hall.handle("kharbga/b1/moves", json.dumps(bad).encode()) is None
    assert hall.boards["b1"].detail()["moves"] == actions[:5]
    assert hall.stats()["ignored_by_reason"] == {"malformed moves": 1}
    for m in msgs[5:]:
        assert hall.handle("kharbga/b1/moves", m) == "b1"
    assert hall.boards["b1"].detail()["moves"] == actions


def test_numbers_json_has_no_word_for_are_malformed() -> None:
    # The page reads the hall's answers as strict JSON: one board's
    # Infinity must not blank every board.
    hall = Hall()
    good = json.loads(_moves(random_game(3)[:1])[0])
    for t in ("1e400", "-1e400", "NaN", "Infinity"):
        text = json.dumps(good).replace('"time": 1000.0', f'"time": {t}')
        assert hall.handle("kharbga/b1/moves", text.encode()) is None, t
    state = json.dumps({"game_id": 1, "position": good["position"], "size": 5})
    assert hall.handle("kharbga/b1/state", state.replace("5}", "NaN}").encode()) is None
    assert hall.stats()["ignored_by_reason"] == {"malformed moves": 4, "malformed state": 1}
    assert hall.handle("kharbga/b1/moves", json.dumps(good).encode()) == "b1"
    json.dumps(hall.summaries(), allow_nan=False)
    json.dumps(hall.boards["b1"].detail(), allow_nan=False)


def test_a_geometry_that_does_not_hold_together_is_not_passed_on() -> None:
    from controller.rules import find_any_variant, new_game
    from controller.service.boardview import board_view

    hall = Hall()
    position = Game.new("sabouiyya").position()
    for variant in ("kharbga", "sabouiyya", "sixteen-soldiers", "checkers", "hewakam-keliya"):
        geo = board_view(new_game(variant))
        state = {"game_id": 1, "position": position, "geometry": geo}
        hall.handle(f"kharbga/{variant}/state", json.dumps(state).encode())
        assert hall.boards[variant].summary()["geometry"] == geo, variant
        assert find_any_variant(variant).geometry.name == geo["name"]
    grid = board_view(Game.new("sabouiyya"))
    bad = [
        {"kind": "points", "width": 7, "height": 7, "points": [["a1", 0, 0]],
         "lines": [["a1", "zz"]]},  # a line to no point
        {**grid, "width": 100000, "height": 100000},
        {**grid, "points": [["a1", 9, 0]]},  # beyond the width
        {**grid, "points": [["a1", 0, 0], ["a1", 1, 0]]},  # a name twice
        {**grid, "points": "a1"},
        {**grid, "centre": "z9"},
        {**grid, "dark": [3]},
        {**grid, "kind": "hex"},
        [1, 2],
    ]
    for i, geo in enumerate(bad):
        state = {"game_id": 1, "position": position, "geometry": geo}
        assert hall.handle(f"kharbga/bad{i}/state", json.dumps(state).encode()) == f"bad{i}"
        summary = hall.boards[f"bad{i}"].summary()
        assert summary["geometry"] is None and summary["position"] == position, geo


def test_a_board_set_up_again_with_a_fresh_store_is_a_new_start() -> None:
    first, second = random_game(11)[:14], random_game(12)[:6]
    hall = Hall()
    for m in _moves(first, store="aaaa"):
        hall.handle("kharbga/b1/moves", m)
    hall.handle("kharbga/b1/online", b"0")
    # The same board name, a fresh store: its seq and game ids start over.
    hall.handle("kharbga/b1/online", b"1")
    for m in _moves(second, store="bbbb"):
        assert hall.handle("kharbga/b1/moves", m) == "b1"
    assert hall.boards["b1"].detail()["moves"] == second and hall.repeats == 0
    # A late repeat from the earlier store changes nothing.
    assert hall.handle("kharbga/b1/moves", _moves(first, store="aaaa")[-1]) is None
    state = {"game_id": 1, "position": "x", "store": "aaaa"}
    assert hall.handle("kharbga/b1/state", json.dumps(state).encode()) is None
    assert hall.boards["b1"].detail()["moves"] == second and hall.repeats == 2
    # Both games are in the evening's file, the earlier first.
    hall.handle("kharbga/b1/game", _record(second, 1))
    records = [parse_record("[Variant" + p) for p in hall.kgn().split("[Variant")[1:]]
    assert [[str(m) for m in r.game().moves] for r in records] == [first, second]


def test_evening_kgn() -> None:
    hall = Hall()
    games = {("b1", 1): random_game(6)[:12], ("b1", 2): random_game(7)[:9],
             ("b2", 5): random_game(8)[:14]}
    seq = 0
    for (board, gid), actions in games.items():
        for m in _moves(actions, board, gid, seq):
            hall.handle(f"kharbga/{board}/moves", m)
        seq += 100
    hall.handle("kharbga/b2/game", _record(games[("b2", 5)], 5))
    text = hall.kgn()
    records = [parse_record("[Variant" + p) for p in text.split("[Variant")[1:]]
    assert len(records) == 3
    for record, actions in zip(records, games.values(), strict=True):
        assert [str(m) for m in record.game().moves] == actions
    assert records[0].tags["BoardId"] == "b1" and records[2].tags["GameId"] == "5"
    assert records[2].tags["BoardId"] == "b2"  # also in the board's own record


def test_the_evening_kgn_survives_moves_that_do_not_replay() -> None:
    """A garbled move (or a game of a variant unknown here) from one board
    does not cost the evening's file its other games."""
    hall = Hall()
    good = random_game(6)[:10]
    for m in _moves(good, "b1", 1):
        hall.handle("kharbga/b1/moves", m)
    bad = random_game(7)[:6]
    for m in _moves(bad, "b2", 2):
        hall.handle("kharbga/b2/moves", m)
    garbled = {"seq": 7, "board": "b2", "game_id": 2, "ply": 7, "move": "@z9",
               "position": "x", "time": 1007.0, "variant": "sabouiyya", "result": None}
    assert hall.handle("kharbga/b2/moves", json.dumps(garbled).encode()) == "b2"
    unknown = dict(garbled, seq=1, game_id=3, ply=1, move="@a1", variant="chess")
    assert hall.handle("kharbga/b3/moves", json.dumps(unknown).encode()) == "b3"
    text = hall.kgn()
    records = [parse_record("[Variant" + p) for p in text.split("[Variant")[1:]]
    assert [r.tags["BoardId"] for r in records] == ["b1", "b2"]
    assert [str(m) for m in records[0].game().moves] == good
    assert "Note" not in records[0].tags
    assert [str(m) for m in records[1].game().moves] == bad  # up to the garbled move
    assert records[1].tags["Note"].startswith("the moves received do not replay from "
                                              "action 7 (@z9): ")
    assert hall.stats()["ignored_by_reason"] == {"game of an unknown variant": 1}


def test_a_start_the_rules_refuse_is_named_in_the_evening_kgn() -> None:
    hall = Hall()
    for m in _moves(random_game(6)[:4], "b1", 1):
        msg = dict(json.loads(m), start="AAA/?? a m - 1", options="")
        hall.handle("kharbga/b1/moves", json.dumps(msg).encode())
    bad_option = dict(json.loads(_moves(["@c2"], "b2", 2)[0]), options="hajeb=maybe")
    hall.handle("kharbga/b2/moves", json.dumps(bad_option).encode())
    records = [parse_record("[Variant" + p) for p in hall.kgn().split("[Variant")[1:]]
    assert len(records) == 2
    for record in records:
        assert record.tags["Note"].startswith(
            "the game received does not replay: its start (sabouiyya): "), record.tags
        assert record.game().moves == []


def _from_position(seed: int, n: int) -> tuple[str, list[str], Game]:
    """A sabouiyya game set up from a moving-phase position: the start,
    ``n`` actions from it, and the game."""
    rng = random.Random(seed)
    g = Game.new("sabouiyya")
    while g.phase != "moving":
        g.play(rng.choice(g.legal_moves()))
    start = g.position()
    g = Game.from_position("sabouiyya", start)
    while len(g.moves) < n:
        g.play(rng.choice([m for m in g.legal_moves() if m.kind != "pass"]))
    return start, [str(m) for m in g.moves], g


def _messages(setup: str, actions: list[str], first: int = 0,
              fields: dict[str, object] | None = None) -> list[bytes]:
    """The moves messages of ``actions`` played from ``setup``, from the
    ``first`` on (``seq`` the action's number), with ``fields`` added."""
    g = Game.from_position("sabouiyya", setup)
    out = []
    for i, a in enumerate(actions):
        g.play(a)
        if i >= first:
            out.append(json.dumps({"seq": i + 1, "game_id": 1, "ply": i + 1, "move": a,
                                   "position": g.position(), "time": 1000.0 + i,
                                   "variant": "sabouiyya", "result": None,
                                   **(fields or {})}).encode())
    return out


def test_the_start_a_board_sends_last_is_the_one_kept() -> None:
    """``start`` null is the variant's start, an empty one too; a start
    that comes only with later messages is taken; a start longer than a
    position can be makes its message malformed (ignored and counted)."""
    start, actions, game = _from_position(21, 6)
    hall = Hall()
    msgs = _messages(start, actions[:2])  # a board that did not send it yet
    msgs += _messages(start, actions, 2, {"start": start, "options": ""})
    for m in msgs:
        hall.handle("kharbga/b1/moves", m)
    record = parse_record(hall.kgn())
    assert "Note" not in record.tags and record.game().position() == game.position()
    fresh = Hall()
    one = json.loads(_messages(start, actions[:1], 0, {"start": start})[0])
    fresh.handle("kharbga/b2/moves", json.dumps(one).encode())
    assert fresh.boards["b2"].games[1].start == start
    fresh.handle("kharbga/b2/moves", json.dumps(dict(one, seq=9, start=None)).encode())
    assert fresh.boards["b2"].games[1].start is None  # taken back to the variant's start
    fresh.handle("kharbga/b2/moves", json.dumps(dict(one, seq=10, start=start)).encode())
    fresh.handle("kharbga/b2/moves", json.dumps(dict(one, seq=11, start="")).encode())
    assert fresh.boards["b2"].games[1].start is None
    long = dict(one, seq=12, start=start + " " * 2000)
    assert fresh.handle("kharbga/b2/moves", json.dumps(long).encode()) is None
    assert fresh.stats()["ignored"] == 1 and fresh.boards["b2"].seq == 11
    odd = dict(one, seq=13, options=["hajeb=true"])
    assert fresh.handle("kharbga/b2/moves", json.dumps(odd).encode()) is None


def test_a_record_gives_the_start_to_the_moves_after_it() -> None:
    """A board of an earlier version sends no start: its record gives it,
    and the moves that come after the record replay from it."""
    start, actions, game = _from_position(22, 8)
    hall = Hall()
    for m in _messages(start, actions[:5]):
        hall.handle("kharbga/b1/moves", m)
    before = Game.from_position("sabouiyya", start)
    for a in actions[:5]:
        before.play(a)
    hall.handle("kharbga/b1/game", str(Record.from_game(before, {"GameId": "1"})).encode())
    hall.check_quiet(0.0)
    for m in _messages(start, actions, 5):
        hall.handle("kharbga/b1/moves", m)
    record = parse_record(hall.kgn())
    assert "Note" not in record.tags, record.tags["Note"]
    assert record.tags["Position"] == start
    assert [str(m) for m in record.game().moves] == actions
    assert record.game().position() == game.position()


def test_a_leap_game_in_the_hall() -> None:
    """A checkers game: its moves, the board the service sent for the page,
    and the evening's KGN made from the moves alone replay it."""
    from controller.rules import new_game
    from controller.service.boardview import board_view

    game = new_game("checkers")
    hall = Hall()
    tokens = ["g3-f4", "b6-a5", "e3-d4", "a5-b4", "c3xa5"]
    for i, token in enumerate(tokens):
        game.play(token)
        hall.handle("kharbga/b2/moves", json.dumps({
            "seq": i + 1, "board": "b2", "game_id": 4, "ply": i + 1, "move": token,
            "position": game.position(), "time": 1000.0 + i, "variant": "checkers",
            "attacker": "Ali", "defender": "Badr", "result": None}).encode())
    state = {"game_id": 4, "position": game.position(), "variant": "checkers",
             "players": {}, "size": 8, "geometry": board_view(game)}
    hall.handle("kharbga/b2/state", json.dumps(state).encode())
    summary = hall.boards["b2"].summary()
    assert summary["geometry"]["name"] == "8x8" and len(summary["geometry"]["dark"]) == 32
    assert hall.boards["b2"].detail()["moves"] == tokens
    record = parse_record(hall.kgn())
    assert [str(m) for m in record.game().moves] == tokens
    assert record.game().position() == game.position()


def test_what_the_hall_ignores_is_said_in_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """Junk, a foreign topic and a second board under one board id: one
    line each naming the topic and why, not repeated at every message."""
    h = Hall()
    actions = random_game(21)[:6]
    with caplog.at_level(logging.WARNING, logger="kharbga.hall"):
        for _ in range(5):
            h.handle("kharbga/b1/moves", b"{bad json")
        h.handle("kharbga/b1/state", b'{"game_id": "one"}')
        h.handle("kharbga/b1/odd\nline/x", b"{}")
        for m in _moves(actions[:3], store="a" * 16):
            h.handle("kharbga/b2/moves", m)
        for m in _moves(actions[:3], store="b" * 16, seq0=10):  # another board named b2
            h.handle("kharbga/b2/moves", m)
        for m in _moves(actions[:3], store="a" * 16, seq0=3):
            h.handle("kharbga/b2/moves", m)
    lines = [r.getMessage() for r in caplog.records]
    assert all("\n" not in line for line in lines)
    bad = [line for line in lines if line.startswith("hall: kharbga/b1/moves: malformed moves")]
    assert len(bad) == 1, lines  # five messages, one line
    assert "JSONDecodeError" in bad[0]
    assert any(line.startswith("hall: kharbga/b1/state: malformed state") for line in lines)
    assert any(line.startswith("hall: kharbga/b1/odd?line/x: foreign topic") for line in lines)
    assert any("b2: now sends from store " + "b" * 16 in line for line in lines)
    # The first store going on: followed again, the second one's refused from then on.
    two = [line for line in lines if "two boards under one board id" in line]
    assert len(two) == 1 and "b2: store " + "a" * 16 + " speaks again" in two[0], lines
    assert h.boards["b2"].game() is not None and h.boards["b2"].game().moves == actions[:3]


def test_two_boards_under_one_id_are_said_on_the_card_and_a_gone_one_is_let_go(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A copied configuration: two boards send as b2. The card said nothing
    # but a count of ignored messages, and once the board it followed had
    # gone it showed that board's dead game for the rest of the evening.
    now = [5000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    h = Hall()
    first, second = random_game(21)[:8], random_game(22)[:8]
    a, b = "a" * 16, "b" * 16
    ours = _moves(first, board="b2", store=a)
    theirs = _moves(second, board="b2", store=b, seq0=10)
    for m in (*ours[:3], *theirs[:2], *ours[3:4]):  # b2 follows a again, refuses b
        h.handle("kharbga/b2/moves", m)
    assert h.boards["b2"].summary()["twin"] is None  # one stray message: not yet two boards
    h.handle("kharbga/b2/moves", theirs[2])  # b goes on: two boards
    summary = h.boards["b2"].summary()
    assert summary["twin"] == b and summary["last_move"] == first[3]
    h.handle("kharbga/b2/moves", theirs[2])  # a repeat is no news of b
    now[0] += 50
    h.handle("kharbga/b2/moves", theirs[3])  # a silent 50 s: still followed
    assert h.boards["b2"].store == a
    now[0] += 20
    h.handle("kharbga/b2/moves", theirs[4])  # a silent 70 s: gone, b followed
    board = h.boards["b2"]
    assert board.store == b and board.summary()["twin"] is None  # the other one went
    h.handle("kharbga/b2/game", _record(second[:5], Store=b))
    assert board.game() is not None and board.game().moves == second[:5]
    # Its two moves heard before it was refused are that game's, not a
    # game of their own beside it: the evening's file holds each game once.
    games = [[str(m) for m in parse_record("[Variant" + part).game().moves]
             for part in h.kgn().split("[Variant")[1:]]
    assert sorted(games) == sorted([first[:4], second[:5]]), games
    # It comes back after all: followed again (it goes on), b said as the other.
    h.handle("kharbga/b2/moves", _moves(first[:5], board="b2", store=a)[4])
    h.handle("kharbga/b2/moves", theirs[5])
    assert board.store == a and board.summary()["twin"] == b
    now[0] += TWIN_KEPT + 1  # nothing new of b since: said no more
    assert board.summary()["twin"] is None


def test_a_name_with_a_line_break_does_not_forge_a_game_in_the_evening_kgn() -> None:
    """A player's name from a board's message (a board refuses such names in
    its own, but the broker may carry anything) with a line break and
    quotes: before, the evening's file held a forged game made of it, and
    the record's own reader refused the file. Now the name is kept with '?'
    for what is not printable, and the file reads back as the one game."""
    hall = Hall()
    actions = random_game(6)[:6]
    forged = 'X"]\n[Result "1-0"]\n\n1. @a1 1-0\n\n[Variant "kharbga'
    for m in _moves(actions, attacker=forged, defender="B\u202eadr\x00"):
        hall.handle("kharbga/b1/moves", m)
    text = hall.kgn()
    lines = text.splitlines()
    assert [line[:8] for line in lines if line.startswith("[")] == [
        "[Variant", "[Attacke", "[Defende", "[BoardId", "[GameId ", "[Result "]
    record = parse_record(text)
    assert record.tags["Attacker"] == forged.replace("\n", "?")
    assert record.tags["Defender"] == "B?adr?"
    assert [str(m) for m in record.game().moves] == actions
    assert hall.boards["b1"].game().attacker == forged.replace("\n", "?")  # type: ignore[union-attr]


def test_a_record_of_unclosed_comments_is_refused_at_once() -> None:
    # Each '{' scanned on for a '}' that never came: a quarter megabyte of
    # them held the hall (and its page) for a minute, and the broker,
    # counting it gone, sent the retained record again on reconnecting.
    hall = Hall()
    actions = random_game(6)[:4]
    for m in _moves(actions):
        hall.handle("kharbga/b1/moves", m)
    head = b'[Variant "sabouiyya"]\n[GameId "1"]\n[Result "*"]\n\n'
    assert hall.handle("kharbga/b1/game", head + b"{" * 2_000_000) is None
    assert hall.stats()["ignored"] == 1
    assert hall.boards["b1"].detail()["moves"] == actions
    # Turn numbers alone (the line of each token counted once, not from the top).
    assert hall.handle("kharbga/b1/game", head + b"1. " * 400_000) is None
    assert hall.stats()["ignored"] == 2


def test_a_position_no_board_has_is_refused() -> None:
    # A board of 450 ranks of 450 held every spectator's browser for
    # seconds a frame, redrawing 202,500 squares.
    hall = Hall()
    actions = random_game(7)[:3]
    msgs = _moves(actions)
    huge = json.loads(msgs[0])
    huge["position"] = "/".join(["AD" * 225] * 450) + " a m - 1"
    assert hall.handle("kharbga/b1/moves", json.dumps(huge).encode()) is None
    wide = {**huge, "position": "A" * 27 + " a m - 1"}
    assert hall.handle("kharbga/b1/moves", json.dumps(wide).encode()) is None
    state = {"game_id": 1, "position": "/".join(["A"] * 27) + " a m - 1"}
    assert hall.handle("kharbga/b1/state", json.dumps(state).encode()) is None
    assert hall.stats()["ignored"] == 3
    for m in msgs:
        assert hall.handle("kharbga/b1/moves", m) == "b1"
    assert hall.boards["b1"].detail()["moves"] == actions


@pytest.mark.parametrize("pure", ["1", "0"], ids=["pure core", "compiled core"])
def test_a_rule_option_beyond_any_count_is_refused_by_both_rules_cores(
        pure: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Above the compiled core's integers: an OverflowError out of the
    # hall's page and its record check, which then never ran again.
    monkeypatch.setenv("KHARBGA_PURE", pure)
    big = "turn_limit=99999999999999999999"
    hall = Hall()
    actions = random_game(8)[:4]
    for m in _moves(actions, options=big):
        assert hall.handle("kharbga/b1/moves", m) == "b1"
    assert hall.summaries(None)[0]["board"] == "b1"  # the page's summaries (was a 500)
    assert "rule option turn_limit: at most 1,000,000" in hall.kgn()  # in its Note tag
    text = _record(actions).decode().replace("\n\n", f'\n[Options "{big}"]\n\n', 1)
    hall.handle("kharbga/b1/game", text.encode())
    hall.check_quiet(0.0)  # the record read in full: refused, counted
    assert hall.stats()["ignored"] == 1
    assert hall.boards["b1"].detail()["moves"] == actions


def test_the_per_move_lists_keep_in_step() -> None:
    # A game's moves, positions and times are parallel lists, cut back by an
    # undo or a move replaced and rebuilt from a record that fills missed
    # moves: a field added beside them and forgotten in one of those places
    # would show one move's value for another (every list of one move each
    # is held to the moves' length here).
    from dataclasses import fields

    from controller.hall.boards import HallGame

    per_move = [f.name for f in fields(HallGame)
                if f.name not in ("record_moves",) and f.type.startswith("list[")]
    assert {"moves", "positions", "times"} <= set(per_move)
    actions = random_game(9)[:14]
    hall = Hall()
    msgs = _moves(actions)

    def in_step() -> None:
        g = hall.boards["b1"].games[1]
        assert {name: len(getattr(g, name)) for name in per_move} == \
            {name: len(g.moves) for name in per_move}

    for m in msgs[:6] + msgs[9:11]:  # 7-9 lost
        hall.handle("kharbga/b1/moves", m)
        in_step()
    hall.handle("kharbga/b1/game", _record(actions[:11]))  # fills them
    in_step()
    assert hall.boards["b1"].detail()["moves"] == actions[:11]
    g = Game.new("sabouiyya")
    for a in actions[:9]:
        g.play(a)
    hall.handle("kharbga/b1/moves", _undo(12, 9, g))
    in_step()
    move = next(str(m) for m in g.legal_moves() if str(m) != actions[9])
    g.play(move)
    hall.handle("kharbga/b1/moves", json.dumps(
        {"seq": 13, "game_id": 1, "ply": 10, "move": move, "position": g.position(),
         "time": 2001.0, "variant": "sabouiyya"}).encode())
    in_step()
    assert hall.boards["b1"].detail()["moves"] == [*actions[:9], move]


def test_a_game_without_an_action_is_not_in_the_evening_s_file() -> None:
    # Players named through New game before any move: the board's record
    # of the game left empty was in the download, a game of nothing.
    h = Hall()
    h.handle("kharbga/b1/game", _record([], gid=1, Store="c" * 16))
    actions = random_game(5)[:4]
    for m in _moves(actions, gid=2, store="c" * 16):
        h.handle("kharbga/b1/moves", m)
    records = ["[Variant" + part for part in h.kgn().split("[Variant")[1:]]
    assert [parse_record(r).tags["GameId"] for r in records] == ["2"]
    assert [str(m) for m in parse_record(records[0]).game().moves] == actions
