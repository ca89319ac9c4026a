"""Games on the service across restarts: their settings, the board a new
game starts from, and sensor logs that replay to the recorded game."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fake_clock import FakeClock as Clock

from controller.board.sensorlog import Frame
from controller.reconcile.reconciler import Settings
from controller.reconcile.replay import replay
from controller.rules import Game
from controller.rules.random_games import lasting_moves
from controller.rules.record import parse_record
from controller.service.board import BoardService
from controller.service.config import Config


def occ_of(game: Game) -> str:
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> i & 1 else "0" for i in range(game.geometry.size))


def _config(tmp_path: Path, **options: object) -> Config:
    return Config(data_dir=tmp_path, settle=0.05, error_delay=0.2, variant="sabouiyya",
                  **options)  # type: ignore[arg-type]


def _put(service: BoardService, clock: Clock, game: Game) -> None:
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()


def test_computer_side_and_names_come_back_with_the_game(tmp_path: Path) -> None:
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path, attacker="Amina", defender="Driss"), clock=clock)
    service.set_computer("defender", 0.3)
    assert service.state()["players"] == {"attacker": "Amina", "defender": "Computer (0.3 s)"}
    gid = service.gid
    service.close()
    again = BoardService(_config(tmp_path, attacker="Amina", defender="Driss"), clock=clock)
    state = again.state()
    assert again.gid == gid
    assert state["computer"] == "defender" and state["think"] == 0.3
    assert state["players"]["defender"] == "Computer (0.3 s)"
    # Switching the computer off gives the side its player's name back.
    again.set_computer(None)
    assert again.state()["players"] == {"attacker": "Amina", "defender": "Driss"}
    stored = again.store.get(gid)
    assert stored is not None and (stored.attacker, stored.defender) == ("Amina", "Driss")
    # The other side: the name moves with it.
    again.set_computer("attacker", 0.5)
    assert again.state()["players"] == {"attacker": "Computer (0.5 s)", "defender": "Driss"}
    # A new game keeps the players' own names, never the computer's label.
    again.set_computer(None)
    again.new_game("sabouiyya")
    assert again.state()["players"] == {"attacker": "Amina", "defender": "Driss"}
    again.close()


def test_a_new_game_waits_for_the_cleared_board(tmp_path: Path) -> None:
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path), clock=clock)
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1", "@b3"]:
        game.play(token)
        _put(service, clock, game)
    assert service.state()["moves"] == ["@c2", "@a1", "@b3"]
    first = service.gid
    service.new_game("sabouiyya")
    state = service.state()
    assert service.gid != first and state["moves"] == []
    assert state["status"].startswith("New game: clear the board first (3 soldiers")
    assert sorted(sq for sq, role in state["leds"].items() if role == "error") == \
        ["a1", "b3", "c2"]
    # A button pressed meanwhile (the board's, or through the API) did
    # nothing and said nothing: it says why, until the board changes.
    for button in ("resign", "draw", "hajeb"):
        service.press(button, "defender")
        said = service.state()["status"]
        word = {"resign": "Resign", "draw": "Draw", "hajeb": "H'ajeb"}[button]
        assert said.startswith("New game: clear the board first (3 soldiers") and said.endswith(
            f"({word} waits: the new game begins once its board is ready)"), said
    assert service.state()["moves"] == [] and service.state()["outcome"] is None
    # Taking one off is still not a move; the state survives a restart.
    service.set_sim_occupancy(occ_of(Game.from_position("sabouiyya", game.position()))
                              .replace("1", "0", 1))
    clock.t += 0.1
    service.tick()
    assert service.state()["moves"] == []
    assert "waits" not in service.state()["status"]  # the board changed: said no more
    service.close()
    service = BoardService(_config(tmp_path), clock=clock)
    clock.t += 0.1
    service.tick()
    assert service.state()["moves"] == [] and service.state()["waiting_clear"]
    service.set_sim_occupancy("0" * 25)
    clock.t += 0.1
    service.tick()
    assert not service.state()["waiting_clear"]
    fresh = Game.new("sabouiyya")
    fresh.play("@d3")
    _put(service, clock, fresh)
    assert service.state()["moves"] == ["@d3"]
    stored = service.store.get(service.gid)
    assert stored is not None and list(stored.actions) == ["@d3"]
    service.close()


def _play_some(service: BoardService, clock: Clock, game: Game, rng: random.Random,
               n: int) -> None:
    for _ in range(n):
        game.play(rng.choice(lasting_moves(game)))
        _put(service, clock, game)


def _into_moving(service: BoardService, clock: Clock, rng: random.Random,
                 steps: int) -> Game:
    """A sabouiyya game set up on the board and played ``steps`` steps into
    its moving phase, each action read."""
    game = Game.new("sabouiyya")
    while game.phase != "moving":
        game.play(rng.choice(lasting_moves(game)))
        _put(service, clock, game)
    _play_some(service, clock, game, rng, steps)
    return game


def _replays_to_its_record(service: BoardService, gid: int) -> None:
    lines = service.store.replayable_log(gid)
    result = replay(lines, None, Settings(settle=0.05, error_delay=0.2))  # the header's game
    played = [r for r in result.records if r.turns]
    assert len(played) == 1, [str(r) for r in result.records]
    recorded = parse_record(service.store.record_text(gid))
    assert [t.tokens for t in played[0].turns] == [t.tokens for t in recorded.turns]
    assert played[0].result == recorded.result


def test_every_games_log_replays_to_its_record(tmp_path: Path) -> None:
    clock = Clock(500.0)
    rng = random.Random(5)
    service = BoardService(_config(tmp_path), clock=clock)
    game = Game.new("sabouiyya")
    _play_some(service, clock, game, rng, 6)
    service.press("hint")
    service.close()  # a restart in the middle of the game
    service = BoardService(_config(tmp_path), clock=clock)
    _play_some(service, clock, game, rng, 14)
    first = service.gid
    service.press("resign", "defender")
    clock.t += 0.1
    service.tick()
    assert service.state()["outcome"]["reason"] == "resignation"
    service.set_sim_occupancy("0" * 25)  # cleared: the next game
    clock.t += 0.1
    service.tick()
    second = service.gid
    assert second != first
    game = Game.new("sabouiyya")
    _play_some(service, clock, game, rng, 8)
    service.close()
    service = BoardService(_config(tmp_path), clock=clock)
    _play_some(service, clock, game, rng, 8)
    service.press("draw", "attacker")
    assert service.state()["draw_offer"] == "attacker"
    service.press("draw", "defender")
    clock.t += 0.1
    service.tick()
    assert service.state()["outcome"]["words"] == "agreed by the players"
    for gid in (first, second):
        _replays_to_its_record(service, gid)
    log = service.store.replayable_log(first)
    assert log[0].startswith('{"t": 0.0, "board": "5x5"')
    service.close()


def test_an_exchange_request_is_lit_on_its_soldiers_and_told() -> None:
    from controller.reconcile.present import View, leds, status

    game = Game.from_position(
        "kharbga", "DAAADDD/DAA.AAA/ADDAAAD/DA.DAAA/DDA.ADA/ADADADD/ADDDDAD a m - 3 "
        "ex=1:d4 np=1 off=0,0,0,2,0,0")
    assert leds(game, View()).get("d4") == "exchange-request"
    assert status(game, View()) == (
        "Attacker to move; the Defender asks an exchange with d4 (to accept, press Exchange, "
        "then step the soldier you offer; a step without it refuses)")
    # With the Attacker's flag raised, what the step will do instead.
    assert status(game, View(flags=(True, False))).endswith(
        "with d4 (exchange flag raised: the soldier the Attacker steps is offered for d4)")


def test_the_computers_move_keeps_its_ends_where_a_light_covers_one() -> None:
    # The exchange's light outranks the computer's move on its start square:
    # the end square is still its end. Before, no ends were given, and the
    # page called the lit end square "the computer's move starts here".
    from controller.service.boardview import lit_hint

    game = Game.from_position("kharbga", "......./......./......./...A.../.D...../......./A...... "
                              "d m - 7")
    step = game.find_move("b3", "b4", True)
    assert lit_hint(step, [], {"b3": "exchange", "b4": "hint"}) == {"from": "b3", "to": "b4"}
    assert lit_hint(step, [], {"b3": "hint", "b4": "hint"}) == {"from": "b3", "to": "b4"}
    assert lit_hint(step, [], {"b3": "exchange", "b4": "error"}) is None


def test_after_a_restart_a_captured_soldier_still_standing_is_asked_off(tmp_path: Path) -> None:
    clock = Clock(500.0)
    rng = random.Random(0)
    service = BoardService(_config(tmp_path), clock=clock)
    game = Game.new("sabouiyya")
    while True:  # to the first capture (seed 0: action 25)
        moves = [m for m in game.legal_moves() if m.kind != "pass"]
        caps = [m for m in moves if m.capture]
        move = rng.choice(caps) if caps else rng.choice(moves)
        a, d = game.bitboards()
        before = a | d
        game.play(move)
        if move.capture:
            break
        _put(service, clock, game)
    a, d = game.bitboards()
    gone = before & ~(a | d) & ~(1 << move.frm)
    # The capture made, the captured soldier not yet taken off: restart.
    service.set_sim_occupancy("".join("1" if (a | d | gone) >> i & 1 else "0"
                                      for i in range(25)))
    for _ in range(3):
        clock.t += 0.1
        service.tick()
    assert service.state()["position"] == game.position()
    service.close()
    service = BoardService(_config(tmp_path), clock=clock)
    for _ in range(10):  # well past the error delay
        clock.t += 0.1
        service.tick()
    state = service.state()
    square = game.geometry.point_names[gone.bit_length() - 1]
    assert state["leds"].get(square) == "capture"
    assert "error" not in state["leds"].values()
    assert state["status"] == f"{square}: remove the captured soldier (taken by {move})"
    # Taken off: the game goes on.
    service.set_sim_occupancy("".join("1" if (a | d) >> i & 1 else "0" for i in range(25)))
    clock.t += 0.1
    service.tick()
    assert set(service.state()["leds"].values()) <= {"last-from", "last-to"}
    assert service.state()["status"].endswith("to move")
    service.close()


def test_a_camera_board_names_the_wrong_sides_soldier(tmp_path: Path) -> None:
    from controller.board.events import Frame

    clock = Clock(500.0)
    service = BoardService(_config(tmp_path, board="camera:0"), clock=clock)
    game = Game.new("sabouiyya")

    def cells(swap: str = "", extra: str = "") -> str:
        a, d = game.bitboards()
        out = ["a" if a >> i & 1 else "d" if d >> i & 1 else "." for i in range(25)]
        for name, colour in ((swap, None), (extra, "d")):
            if name:
                i = game.geometry.parse_point(name)
                out[i] = colour or {"a": "d", "d": "a"}[out[i]]
        return "".join(out)

    def show(text: str) -> None:
        service.feed(Frame.from_cells(service.now(), text))
        for _ in range(6):
            clock.t += 0.1
            service.tick()

    for token in ["@c2", "@a1", "@b3", "@e5"]:
        game.play(token)
        show(cells())
    assert service.state()["moves"] == ["@c2", "@a1", "@b3", "@e5"]
    show(cells(swap="c2"))
    assert service.state()["leds"] == {"c2": "error"}
    assert service.state()["status"] == "c2: wrong side's soldier (the Attacker's belongs here)"
    show(cells(extra="a5"))
    assert service.state()["status"] == "a5: no soldier belongs here; take it off"
    show(cells())
    assert "error" not in service.state()["leds"].values()
    service.close()


def test_games_ended_by_agreement_replay_from_the_archive(tmp_path: Path) -> None:
    # An agreed draw, an agreed barrier and a resignation, in both rules
    # families: the archive's game replays to the same end (the viewer and
    # `games show` read it so).
    from controller.rules import new_game
    from controller.service.store import Store

    store = Store(tmp_path)
    ended = []
    for variant, end, token in [("kharbga", "agree_draw", "agreement"),
                                ("kharbga-refuge", "agree_barrier", "barrier"),
                                ("sabouiyya", "resign", "resign:"),
                                ("checkers", "agree_draw", "agreement"),
                                ("sixteen-soldiers", "resign", "resign:")]:
        game = new_game(variant)
        rng = random.Random(len(ended))
        for _ in range(6):
            game.play(rng.choice(lasting_moves(game)))
        gid = store.new_game(game, "A", "D")
        if end == "resign":
            token += ("attacker", "defender")[game.side]
        getattr(game, end)()
        store.finish(gid, game)
        ended.append((gid, game, token))
    for gid, game, token in ended:
        stored = store.get(gid)
        assert stored is not None and stored.actions[-1] == token
        again = stored.game()
        assert again.outcome == game.outcome and again.outcome is not None
        assert again.position() == game.position()
    # A draw stored as "pass" by earlier versions still replays.
    gid, game, _ = ended[0]
    with store.db:
        store.db.execute("UPDATE actions SET token='pass' WHERE game_id=? AND token='agreement'",
                         (gid,))
    stored = store.get(gid)
    assert stored is not None and stored.actions[-1] == "pass"
    assert stored.game().outcome == game.outcome
    store.close()


def test_the_archive_says_how_each_game_ended() -> None:
    from controller.service.boardview import outcome_words

    assert outcome_words("1/2-1/2", "agreement", True) == "Draw (agreed by the players)"
    assert outcome_words("0-1", "blocked", True) == "Defender wins (the losing side could not move)"
    assert outcome_words("1-0", None, True) == "Attacker wins"
    assert outcome_words("*", "abandoned", True) == "abandoned"  # put aside for a new game
    assert outcome_words("*", None, False) == "not finished"


def test_a_game_set_up_again_leaves_no_empty_game_behind(tmp_path: Path) -> None:
    """The board cleared in the moving phase (a new game starts, empty)
    and set up again as the game (it resumes): the empty game is finished,
    so a restart goes on with the game played, not the empty one, and the
    archive's list shows the game alone. Before, each clear-and-set-up
    left an unfinished game without a move in the list, and a restart
    showed "Attacker: place a soldier" until the board was read again."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path), clock=clock)
    game = _into_moving(service, clock, random.Random(5), 3)
    played = service.gid
    for _ in range(2):  # cleared, set up again: twice
        service.set_sim_occupancy("0" * 25)
        clock.t += 0.1
        service.tick()
        assert service.gid != played and service.state()["moves"] == []
        _put(service, clock, game)
        assert service.gid == played
    service.close()
    again = BoardService(_config(tmp_path), clock=clock)
    assert again.gid == played
    assert again.state()["moves"] == [str(m) for m in game.moves]
    assert [g["id"] for g in again.store.list_games()] == [played]
    assert [g.id for g in again.store.unfinished()] == [played]
    again.close()


def test_a_finished_game_keeps_the_names_of_who_played_it(tmp_path: Path) -> None:
    """The computer played the Defender and the game ended; switching the
    computer off afterwards changes the board's players, not the finished
    game's: the archive's list and its record still name the computer.
    Before, the list named the Defender's player while the record named
    the computer."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path, attacker="Amina", defender="Driss"), clock=clock)
    service.set_computer("defender", 0.3)
    game = Game.new("sabouiyya")
    game.play("@c2")
    _put(service, clock, game)
    service.press("resign", "attacker")
    clock.t += 0.1
    service.tick()
    assert service.state()["outcome"]["winner"] == "defender"
    gid = service.gid
    service.set_computer(None)
    service.set_ponder(False)
    clock.t += 1
    service.tick()
    assert service.state()["players"]["defender"] == "Driss"  # the board's players now
    listed = next(g for g in service.store.list_games() if g["id"] == gid)
    assert (listed["attacker"], listed["defender"]) == ("Amina", "Computer (0.3 s)")
    record = parse_record(service.store.record_text(gid))
    assert record.tags["Defender"] == "Computer (0.3 s)"
    stored = service.store.get(gid)
    assert stored is not None and stored.settings["ponder"] is False
    service.close()


def test_a_game_put_aside_is_resumed_by_the_board_a_restart_waits_on(tmp_path: Path) -> None:
    """The newest unfinished game is of another board: the game started
    on restart waits for the board cleared, and the board set up as an
    older game put aside resumes that one, as it would without the wait."""
    from controller.board.sensorlog import Frame
    from controller.service.store import Store

    store = Store(tmp_path)
    older = Game.from_position("kharbga", "......./......./..D..../.A.A.../....D../......./"
                               "A...... d m - 7")
    older.play("e3-e2")
    aside = store.new_game(older, "A", "D")
    store.new_game(Game.new("sabouiyya"), "A", "D")  # the newest: not of this board
    store.close()
    clock = Clock(100.0)
    service = BoardService(Config(data_dir=tmp_path, board="gpio", variant="kharbga",
                                  settle=0.05, error_delay=0.2), clock=clock)
    a, d = older.bitboards()
    service.feed(Frame(service.now(), a | d))
    clock.t += 0.2
    service.tick()
    state = service.state()
    assert (service.gid, state["moves"]) == (aside, ["e3-e2"])
    assert not state["waiting_clear"]
    service.close()


def test_a_crash_as_a_new_games_row_is_written_keeps_its_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The power goes the moment a new game's row is written, the last
    game's soldiers still standing: the restarted service has the new game
    wait for the board cleared, so the two soldiers left standing are not
    its first turn. Before, the wait was written after the row, and a crash
    between the two resumed the new game reading the board at once."""
    from controller.service.store import Store

    class Crash(BaseException):
        """The process dies here."""

    clock = Clock(500.0)
    service = BoardService(_config(tmp_path), clock=clock)
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1", "@b3"]:
        game.play(token)
        _put(service, clock, game)
    old = service.gid
    written = Store.new_game

    def row_then_crash(self: Store, *args: Any, **kwargs: Any) -> int:
        written(self, *args, **kwargs)
        raise Crash

    monkeypatch.setattr(Store, "new_game", row_then_crash)
    with pytest.raises(Crash):
        service.new_game("sabouiyya")
    monkeypatch.undo()
    service.close()
    again = BoardService(_config(tmp_path), clock=clock)
    assert again.gid != old and again.state()["waiting_clear"]
    again.set_sim_occupancy(occ_of(game).replace("1", "0", 1))  # c2 off: a1, b3 stand
    clock.t += 0.1
    again.tick()
    assert again.state()["moves"] == [] and again.state()["waiting_clear"]
    stored = again.store.get(old)
    assert stored is not None and list(stored.actions) == ["@c2", "@a1", "@b3"]
    again.close()


def test_a_restart_goes_on_with_the_game_resumed_not_a_newer_one_put_aside(
    tmp_path: Path,
) -> None:
    """Two games put aside in their moving phase; the older set up again
    and resumed; the service stops: the restart goes on with the resumed
    game at once. Before, it took up the newest unfinished game (the one
    put aside) until the board was read, and the page showed its moves."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path), clock=clock)
    rng = random.Random(7)
    games = []
    for _ in range(2):  # played into the moving phase, then the board cleared
        game = Game.new("sabouiyya")
        while game.phase != "moving":
            game.play(rng.choice(lasting_moves(game)))
            _put(service, clock, game)
        _play_some(service, clock, game, rng, 2)
        games.append((service.gid, game))
        service.set_sim_occupancy("0" * 25)
        clock.t += 0.1
        service.tick()
    (first, game), (second, _) = games
    _put(service, clock, game)  # the first set up again: resumed
    assert service.gid == first
    shown = service.state()["moves"]
    service.close()
    again = BoardService(_config(tmp_path), clock=clock)
    assert again.gid == first
    assert again.state()["moves"] == shown
    assert sorted(g.id for g in again.store.unfinished()) == [first, second]
    again.close()


@pytest.mark.parametrize("restart", [False, True], ids=["read-again", "restart"])
def test_the_boards_new_game_is_not_undone_by_the_board_read_again(
    tmp_path: Path, restart: bool,
) -> None:
    """New game pressed on the board in the moving phase, the game's
    soldiers still standing: the board read again as it stood (a camera's
    reading once a second, a restart's first reading) keeps the new game
    waiting for the cleared board; the game put aside is resumed once the
    board has changed and shows it again. Before, the same reading resumed
    it at once, and after a restart the page showed the old game."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path), clock=clock)
    game = _into_moving(service, clock, random.Random(1), 3)
    old = service.gid
    service.press("new")
    new = service.gid
    assert new != old and service.state()["waiting_clear"]
    if restart:
        service.close()
        service = BoardService(_config(tmp_path), clock=clock)
    else:
        service.feed(Frame.from_occ(service.now(), occ_of(game)))  # the same reading
    clock.t += 0.3
    service.tick()
    state = service.state()
    assert (service.gid, state["waiting_clear"], state["moves"]) == (new, True, [])
    assert state["status"].startswith("New game: clear the board first")
    occ = occ_of(game)
    lifted = occ.index("1")
    service.set_sim_occupancy(occ[:lifted] + "0" + occ[lifted + 1:])  # a soldier lifted
    clock.t += 0.3
    service.tick()
    assert service.gid == new and service.state()["waiting_clear"]
    _put(service, clock, game)  # and put back: the game set up again
    assert service.gid == old and not service.state()["waiting_clear"]
    assert service.state()["position"] == game.position()
    service.close()


def _cells(game: Game, unknown: int = -1) -> str:
    """The camera's reading of ``game``'s board, ``unknown`` read ``?``."""
    a, d = game.bitboards()
    return "".join("?" if i == unknown else "a" if a >> i & 1 else "d" if d >> i & 1 else "."
                   for i in range(game.geometry.size))


@pytest.mark.parametrize("restart", [False, True], ids=["read-again", "restart"])
def test_a_hand_over_the_board_does_not_undo_the_boards_new_game(
    tmp_path: Path, restart: bool,
) -> None:
    """New game pressed with the game's soldiers standing, then a camera's
    reading with a soldier read '?' (a hand reaching over it, a glare) and
    the board read as it stood: nothing changed on the board, so the new
    game still waits. Before, the '?' counted as a change and the same
    reading after it resumed the game put aside."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path), clock=clock)
    game = _into_moving(service, clock, random.Random(1), 3)
    service.press("new")
    new = service.gid
    if restart:
        service.close()
        service = BoardService(_config(tmp_path, board="gpio"), clock=clock)
    soldier = occ_of(game).index("1")
    for cells in (_cells(game, soldier), _cells(game)):
        service.feed(Frame.from_cells(service.now(), cells))
        clock.t += 0.3
        service.tick()
    state = service.state()
    assert (service.gid, state["waiting_clear"], state["moves"]) == (new, True, [])
    service.close()


def test_a_hand_over_the_last_soldier_does_not_end_the_wait(tmp_path: Path) -> None:
    """A new game waiting for the board cleared, the last soldier standing
    read '?' (the hand reaching for it): the board is not known to be
    clear, so the wait goes on, and the soldier seen again is no first
    move. Before, the reading counted as a cleared board: the wait ended
    and the soldier was read as set down in the new game."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path, board="gpio"), clock=clock)
    game = Game.new("sabouiyya")
    for token in ["@c2", "@a1"]:
        game.play(token)
    service.feed(Frame.from_cells(service.now(), _cells(game)))
    clock.t += 0.3
    service.tick()
    service.new_game("sabouiyya")  # the two soldiers still stand: it waits
    assert service.state()["waiting_clear"]
    last = Game.new("sabouiyya")
    last.play("@c2")  # a1 taken off; c2 still there, under the hand
    c2 = last.geometry.point_names.index("c2")
    for cells in (_cells(last, c2), _cells(last)):
        service.feed(Frame.from_cells(service.now(), cells))
        clock.t += 0.3
        service.tick()
        state = service.state()
        assert state["waiting_clear"] and state["moves"] == [], cells
    service.close()


def test_a_refused_press_is_said_until_the_board_changes_not_a_glare(tmp_path: Path) -> None:
    """A camera board: a press the rules refuse is said until the board
    changes; a reading with a square read '?' (a hand over it, a glare) is
    no change. Before, the '?' took the reason away."""
    clock = Clock(500.0)
    service = BoardService(_config(tmp_path, board="gpio"), clock=clock)
    game = Game.new("sabouiyya")
    why = "(the exchange is not a rule of sabouiyya)"
    game.play("@c2")
    service.feed(Frame.from_cells(service.now(), _cells(game)))
    clock.t += 0.3
    service.tick()
    service.press("exchange")
    assert service.state()["status"].endswith(why)
    c2 = game.geometry.point_names.index("c2")
    service.feed(Frame.from_cells(service.now(), _cells(game, c2)))  # a hand over c2
    clock.t += 0.3
    service.tick()
    assert service.state()["status"].endswith(why)
    game.play("@a1")  # the board changes: the press is over
    service.feed(Frame.from_cells(service.now(), _cells(game)))
    clock.t += 0.3
    service.tick()
    assert why not in service.state()["status"]
    service.close()
