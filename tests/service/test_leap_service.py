"""The service plays the leap-capture games (Sixteen Soldiers, Hewakam
Keliya, checkers, English draughts): new games of every variant, the board
the page draws, kings and their light, huffs, records and sensor logs that
replay, and the game resumed after a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_clock import FakeClock as Clock

from controller.reconcile.reconciler import Settings
from controller.reconcile.replay import replay
from controller.rules import AnyGame, game_from_position, new_game
from controller.rules.record import parse_record
from controller.service.board import BoardService, RequestError
from controller.service.config import Config, ConfigError, load_config

# A checkers position: the Attacker's man on b6 leaps c7 and is crowned on d8.
CROWNING = ".......D/..D...../.A....../......../......../......../......../........ a m - 1 np=0"


def occ_of(game: AnyGame) -> str:
    a, d = game.bitboards()
    return "".join("1" if (a | d) >> i & 1 else "0" for i in range(game.geometry.size))


def _service(tmp_path: Path, clock: Clock, variant: str = "checkers") -> BoardService:
    return BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                               variant=variant), clock=clock)


def _play(service: BoardService, clock: Clock, game: AnyGame, token: str) -> None:
    """``token`` played on ``game`` and on the simulated board (one frame)."""
    game.play(token)
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    assert service.state()["position"] == game.position(), token


@pytest.mark.parametrize(("variant", "board", "points", "lines", "dark"), [
    ("sixteen-soldiers", "37-point", 37, 76, 0),
    ("hewakam-keliya", "37-point", 37, 76, 0),
    ("checkers", "8x8", 64, 0, 32),
    ("english-draughts", "8x8", 64, 0, 32),
])
def test_every_leap_variant_starts_with_its_board(tmp_path: Path, variant: str, board: str,
                                                  points: int, lines: int, dark: int) -> None:
    service = _service(tmp_path, Clock(500.0), variant)
    state = service.state()
    view = state["geometry"]
    assert (state["variant"], view["name"]) == (variant, board)
    assert (len(view["points"]), len(view["lines"]), len(view["dark"])) == (points, lines, dark)
    # Every point once, each on its own place of the drawing.
    assert len({p[0] for p in view["points"]}) == points
    assert len({(p[1], p[2]) for p in view["points"]}) == points
    # The simulated board starts with the soldiers set up: the game begins.
    assert state["sim_occ"] == occ_of(new_game(variant))
    assert state["position"] == new_game(variant).position()
    assert state["status"] == "Attacker to move"
    service.close()


def test_the_37_point_board_is_drawn_along_its_lines(tmp_path: Path) -> None:
    service = _service(tmp_path, Clock(500.0), "sixteen-soldiers")
    view = service.state()["geometry"]
    place = {p[0]: (p[1], p[2]) for p in view["points"]}
    segments = {frozenset(s) for s in view["lines"]}
    assert place["a9"] == (0, 0) and place["c5"] == (2, 4) and place["e1"] == (4, 8)
    assert frozenset(("a1", "c1")) in segments  # the triangle's base: two letters apart
    assert frozenset(("c3", "b2")) in segments and frozenset(("b4", "c5")) in segments
    assert frozenset(("b4", "c4")) in segments and frozenset(("c4", "b5")) not in segments
    assert view["centre"] is None  # no malha on this board
    service.close()


def test_a_crowning_is_kept_lit_and_survives_a_crash(tmp_path: Path) -> None:
    clock = Clock(500.0)
    service = _service(tmp_path, clock, "kharbga")
    service.new_game("checkers", "Amina", "Driss", position=CROWNING)
    game = game_from_position("checkers", CROWNING)
    _play(service, clock, game, "b6xd8")
    state = service.state()
    assert state["kings"] == ["d8"] and state["counts"] == {"attacker": 1, "defender": 1}
    # The simulated board stacks no soldiers: asked nothing it cannot do.
    assert state["status"] == ("Defender to move; d8 is crowned (the page shows its king: on "
                               "a real board a second soldier is set on it)")
    assert state["leds"]["d8"] == "last-to"  # the last move outranks the king's look
    # The king lifted off alone (as a real board's hands do to stack it) is
    # asked back as it is: the page keeps it a king.
    occ = occ_of(game)
    d8 = game.geometry.point_names.index("d8")
    service.set_sim_occupancy(occ[:d8] + "0" + occ[d8 + 1:])
    for _ in range(4):  # past the settle and the error's delay
        clock.t += 0.1
        service.tick()
    assert service.state()["status"] == ("d8: set the crowned soldier back (the page keeps "
                                         "it a king)")
    service.set_sim_occupancy(occ)
    clock.t += 0.1
    service.tick()
    _play(service, clock, game, "h8-g7")
    assert service.state()["leds"]["d8"] == "king"
    gid = service.gid
    # A crash: the service is not closed; a new one opens the same data.
    again = _service(tmp_path, clock, "kharbga")
    state = again.state()
    assert again.gid == gid and state["variant"] == "checkers"
    assert state["position"] == game.position() and state["kings"] == ["d8"]
    assert state["players"] == {"attacker": "Amina", "defender": "Driss"}
    # The resumed game goes on; its record replays it.
    _play(again, clock, game, "d8-e7")
    record = parse_record(again.store.record_text(gid, again.reconciler.game))
    assert [str(m) for m in record.game().moves] == ["b6xd8", "h8-g7", "d8-e7"]
    assert record.game().position() == game.position()
    again.close()
    service.close()


# Sixteen Soldiers: the Attacker's e5 leaps e6 to e7, then must go on
# over d6 to c5 (and over d5 or b5 after that).
CHAIN = "DDD/DDD/DDDD./D..DD/.D.DA/....A/AAAAA/AAA/AAA a m - 11 np=0"


def _set(service: BoardService, clock: Clock, occ: list[str], point: str, on: bool) -> None:
    occ[new_game("sixteen-soldiers").geometry.point_names.index(point)] = "1" if on else "0"
    service.set_sim_occupancy("".join(occ))
    for _ in range(3):
        clock.t += 0.1
        service.tick()


def test_a_crash_with_the_jumper_in_the_hand_mid_chain_resumes_the_chain(
    tmp_path: Path
) -> None:
    clock = Clock(500.0)
    service = _service(tmp_path, clock, "sixteen-soldiers")
    service.new_game("sixteen-soldiers", position=CHAIN)
    occ = list(occ_of(game_from_position("sixteen-soldiers", CHAIN)))
    _set(service, clock, occ, "e5", False)
    _set(service, clock, occ, "e7", True)  # e5xe7; e6 still stands
    _set(service, clock, occ, "e7", False)  # the jumper in the hand: the power goes
    again = _service(tmp_path, clock, "sixteen-soldiers")
    for _ in range(10):  # well past the error delay
        clock.t += 0.1
        again.tick()
    state = again.state()
    assert state["leds"]["e6"] == "capture" and state["leds"]["e7"] == "lifted"
    assert "error" not in state["leds"].values()
    _set(again, clock, occ, "c5", True)  # the chain goes on: e7xc5, not a new e5xc5
    game = game_from_position("sixteen-soldiers", CHAIN)
    for token in ("e5xe7", "e7xc5"):
        game.play(token)
    state = again.state()
    assert state["position"] == game.position() and state["moves"] == ["e5xe7xc5"]
    assert state["status"] == "Remove the captured soldiers on d6, e6 (taken by e5xe7xc5)"
    again.close()
    service.close()


def test_a_huff_is_played_by_taking_the_soldier_off(tmp_path: Path) -> None:
    clock = Clock(500.0)
    service = _service(tmp_path, clock, "sixteen-soldiers")
    game = new_game("sixteen-soldiers")
    for token in ("d4-e5", "d6-c5", "c4-d4"):
        _play(service, clock, game, token)
    state = service.state()
    assert game.huff and state["leds"]["b4"] == "capture"
    assert "huff" in state["status"] and "b4" in state["status"]
    _play(service, clock, game, "xb4")
    assert service.state()["moves"][-1] == "xb4"
    assert service.state()["counts"]["attacker"] == 15
    # The stored sensor log names the 37-point board and replays to the game.
    service.new_game("kharbga")
    log = service.store.replayable_log(service.gid - 1)
    assert '"board": "37-point"' in log[0]
    result = replay(log, "sixteen-soldiers", Settings(settle=0.05, error_delay=0.2))
    assert [str(m) for m in result.records[0].game().moves] == \
        ["d4-e5", "d6-c5", "c4-d4", "xb4"]
    service.close()


def test_the_computer_chooses_its_huff(tmp_path: Path) -> None:
    # The side owed a huff chooses the soldier: when it is the computer's,
    # its choice is lit, not left to the person whose soldier goes.
    clock = Clock(500.0)
    service = _service(tmp_path, clock, "sixteen-soldiers")
    game = new_game("sixteen-soldiers")
    for token in ("d4-e5", "d6-c5"):
        _play(service, clock, game, token)
    service.set_computer("defender", 0.1)
    _play(service, clock, game, "c4-d4")  # b4 could have captured: the Defender huffs
    assert game.huff and service.computer_wanted
    service.play_computer(*service.compute_computer())
    expected = service.reconciler.expected
    assert expected is not None and expected.kind == "remove"
    token = str(expected)
    assert token.startswith("x")  # the huff said in words: take that soldier off
    assert service.state()["status"] == (f"Defender (computer): make the lit move {token} "
                                         f"(take the soldier on {token[1:]} off)")
    _play(service, clock, game, str(expected))
    assert service.state()["moves"][-1] == str(expected)
    service.close()


def test_a_position_of_another_board_is_refused_in_one_line(tmp_path: Path) -> None:
    service = _service(tmp_path, Clock(500.0), "sixteen-soldiers")
    with pytest.raises(RequestError) as refused:
        service.new_game("sixteen-soldiers", position=new_game("checkers").position())
    message = str(refused.value)
    assert "37-point" in message and "sixteen-soldiers" in message and "\n" not in message
    with pytest.raises(RequestError, match="8x8"):
        service.new_game("checkers", position=new_game("kharbga").position())
    with pytest.raises(RequestError, match="37 characters 0 or 1 .one a point of the 37-point"):
        service.set_sim_occupancy("0" * 49)
    assert service.state()["variant"] == "sixteen-soldiers"  # nothing changed
    service.close()


def test_the_37_point_board_s_words_name_its_points(tmp_path: Path) -> None:
    # What the page reads on the 37-point board says "point" where the 7x7
    # and 8x8 boards say "square": the status line, the lights' meanings
    # (the legend and the list of lit places) and a refused position.
    clock = Clock(500.0)
    service = _service(tmp_path, clock, "sixteen-soldiers")
    game = new_game("sixteen-soldiers")
    lights = service.state()["lights"]
    assert lights["error"] == "out of place: put this point right"
    assert lights["hint-to"] == "the suggested move ends here (a hint's second point)"
    occ = list(occ_of(game))
    occ[game.geometry.point_names.index("c4")] = "0"  # the Attacker's c4 in the hand
    service.set_sim_occupancy("".join(occ))
    clock.t += 0.5
    service.tick()
    assert service.state()["status"] == "Attacker: c4 lifted; set it on a lit point"
    with pytest.raises(RequestError, match="^chain point 'z9' is not a point of the 37-point"):
        service.new_game("sixteen-soldiers", position=game.position().replace(" - ", " z9 "))
    service.new_game("checkers")
    assert service.state()["lights"]["error"] == "out of place: put this square right"
    service.close()


def test_the_configuration_names_a_leap_variant(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    path.write_text('[board]\nvariant = "hewakam-keliya"\n')
    assert load_config(path).variant == "hewakam-keliya"
    path.write_text('[board]\nvariant = "draughts"\n')
    with pytest.raises(ConfigError, match="board.variant"):
        load_config(path)


@pytest.mark.parametrize("variant", ["checkers", "sixteen-soldiers"])
def test_hints_and_the_computer_play_leap_games(tmp_path: Path, variant: str) -> None:
    service = _service(tmp_path, Clock(500.0), variant)
    service.hint_seconds = 0.1
    service.press("hint")
    assert service.hint_wanted
    service.show_hint(*service.compute_hint())
    state = service.state()
    move = state["hint_move"]
    game = new_game(variant)
    assert move in [str(m) for m in game.legal_moves()]
    assert [state["hint_squares"]["from"], state["hint_squares"]["to"]] == move.split("-")
    assert state["leds"][state["hint_squares"]["from"]] == "hint"
    # The computer's move is lit the same way and named in the status.
    service.set_computer("attacker", 0.1)
    service.play_computer(*service.compute_computer())
    expected = service.state()["expected"]
    assert expected in [str(m) for m in game.legal_moves()]
    assert f"make the lit move {expected}" in service.state()["status"]
    service.close()



def test_a_hint_to_pass_an_optional_chain_is_said_in_words(tmp_path: Path) -> None:
    # Checkers: the new king on d8 may leap e7 to f6, where g7 takes it
    # back; stopping (pass) is the move. No square to light: words only.
    pos = "...a...D/....D.D./......../......../......../......../......../A....... a m d8 1 np=0"
    clock = Clock(500.0)
    service = _service(tmp_path, clock)
    service.new_game("checkers", position=pos)
    clock.t += 0.1
    service.tick()
    service.press("hint")
    service.show_hint(0, service.reconciler.game, [], "pass")  # the engine's choice here
    state = service.state()
    assert state["hint_move"] == "pass"
    assert state["status"] == ("Attacker: continue the capture with d8, or stop there and let "
                               "the Defender play (pass). Hint for Attacker: pass (stop the "
                               "chain here: the Defender plays)")
    # The Defender plays: the chain and its hint are over.
    game = game_from_position("checkers", pos)
    game.play("pass")
    _play(service, clock, game, "e7-d6")
    state = service.state()
    assert state["hint_move"] is None and "Hint" not in state["status"]
    service.close()


def test_the_computers_pass_at_the_end_of_its_chain_is_said(tmp_path: Path) -> None:
    # Checkers: the computer's soldier on d4 may leap on or stop; stopping
    # (pass) lights nothing on the board, so the status line says it.
    clock = Clock(500.0)
    service = _service(tmp_path, clock)
    pos = "......../D......./......../......../...D..../..A...../.......A/........ d m d4 2 np=0"
    service.new_game("checkers", position=pos)
    game = game_from_position("checkers", pos)
    service.set_sim_occupancy(occ_of(game))
    clock.t += 0.1
    service.tick()
    service.set_computer("defender", 0.1)
    assert "pass" in [str(m) for m in service.reconciler.game.legal_moves()]
    service.play_computer(len(service.reconciler.game.moves), service.reconciler.game, "pass")
    state = service.state()
    assert state["moves"][-1] == "pass" and state["to_move"] == "attacker"
    assert state["status"] == "Attacker to move. The computer ended its chain there (pass)"
    game.play("pass")  # nothing to show on the board
    _play(service, clock, game, next(str(m) for m in game.legal_moves()))
    assert "The computer ended" not in service.state()["status"]  # until the next move
    service.close()


def test_the_boards_new_game_after_one_move_never_reads_that_move_in_the_new_game(
    tmp_path: Path,
) -> None:
    """The board's New game button after one move, the soldiers left as
    they stand, the service restarted (its first reading: the board as
    left): the new game still waits, as it did before the restart; the
    soldier lifted and set back, the game put aside is resumed, as a game
    put aside set up again is, and the new game, without a move, is
    finished out of the list. Before, the new game read the board as its
    first move, and the game left stayed in the archive unfinished with the
    same move; later, the restart's first reading resumed the old game."""
    clock = Clock(500.0)
    service = _service(tmp_path, clock, "sixteen-soldiers")
    game = new_game("sixteen-soldiers")
    _play(service, clock, game, "a4-a5")
    old = service.gid
    service.press("new")
    clock.t += 0.1
    service.tick()
    state = service.state()
    assert service.gid != old and state["moves"] == [] and state["waiting_clear"]
    assert state["leds"] == {"a5": "error"}
    # Before: "New game: clear the board first (1 soldier still on it, lit
    # red)", while putting the soldier back on a4 ends the wait as well.
    assert state["status"] == ("New game: set the soldiers on their starting points or clear "
                               "the board (1 soldier off them, lit red)")
    service.close()
    again = _service(tmp_path, clock, "sixteen-soldiers")
    clock.t += 0.1
    again.tick()
    waiting = again.state()
    assert again.gid != old and waiting["moves"] == [] and waiting["waiting_clear"]
    assert (waiting["status"], waiting["leds"]) == (state["status"], state["leds"])
    a5 = game.geometry.point_names.index("a5")
    board = occ_of(game)
    for occ in (board[:a5] + "0" + board[a5 + 1:], board):  # lifted, set back
        again.set_sim_occupancy(occ)
        clock.t += 0.1
        again.tick()
    state = again.state()
    assert again.gid == old and state["moves"] == ["a4-a5"] and not state["waiting_clear"]
    assert state["position"] == game.position()
    assert [g["id"] for g in again.store.list_games()] == [old]
    again.close()


def test_a_new_game_from_the_page_on_a_sensor_board_reads_soldiers_at_start_as_play(
    tmp_path: Path,
) -> None:
    """A new game from the page, a board with sensors whose soldiers stand
    on their start points: the board as it stands is read, so a soldier
    set on a wrong point is a wrong move. Before, the new game had no
    reading until the board changed, and the wrong point was told as
    'Set up the soldiers: 1 starting point still empty; b5: ...'."""
    from controller.board.events import Frame

    clock = Clock(500.0)
    service = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                                  variant="sixteen-soldiers", board="gpio"), clock=clock)
    game = new_game("sixteen-soldiers")
    names = game.geometry.point_names
    a, d = game.bitboards()
    lifted = (a | d) & ~(1 << names.index("c4"))
    for occupied in (a | d, None, lifted, lifted | 1 << names.index("b5")):
        if occupied is None:
            service.new_game("sixteen-soldiers")
        else:
            service.feed(Frame(service.now(), occupied))
        for _ in range(3):
            clock.t += 0.1
            service.tick()
    assert service.state()["status"] == "b5: not a legal point for the soldier from c4: set " \
        "it on a lit point (c5), or back on c4"
    service.close()
