"""The board's shared buttons against the computer: a press without its
side is the person's, as the page's buttons are; and a game ended by a
press leaves nothing of the computer's move. Before, a shared Resign on
the computer's turn resigned for the computer (the person won by giving
up), a shared Draw offered the computer's draw, and the state kept the
computer's lit move after the game was over."""

from __future__ import annotations

from pathlib import Path

from fake_clock import FakeClock

from controller.service.board import BoardService
from controller.service.config import Config


def _against_the_computer(tmp_path: Path) -> BoardService:
    service = BoardService(Config(data_dir=tmp_path, variant="english-draughts", settle=0.05,
                                  error_delay=0.2, ponder=False), clock=FakeClock(1000.0))
    service.set_computer("attacker", 0.1, 1)
    service.play_computer(*service.compute_computer())
    assert service.state()["expected"] is not None  # its move lit, not yet made
    return service


def test_a_shared_resign_on_the_computers_turn_is_the_persons(tmp_path: Path) -> None:
    service = _against_the_computer(tmp_path)
    try:
        service.press("resign")
        state = service.state()
        assert state["outcome"]["winner"] == "attacker"  # the computer's
        assert state["outcome"]["reason"] == "resignation"
        assert state["expected"] is None and state["hint_squares"] is None
        assert "make the lit move" not in state["status"]
    finally:
        service.close()


def test_a_shared_draw_on_the_computers_turn_is_offered_to_it(tmp_path: Path) -> None:
    service = _against_the_computer(tmp_path)
    try:
        service.press("draw")  # even on pieces: the computer takes it at once
        state = service.state()
        assert state["outcome"] is not None and state["outcome"]["winner"] is None
        assert state["outcome"]["reason"] == "agreement"
        assert state["expected"] is None
    finally:
        service.close()


def test_a_press_that_says_its_side_is_that_sides(tmp_path: Path) -> None:
    service = _against_the_computer(tmp_path)
    try:
        service.press("resign", "attacker")  # the computer's own set, pressed: as said
        assert service.state()["outcome"]["winner"] == "defender"
    finally:
        service.close()


def test_a_search_for_a_position_taken_back_meanwhile_lights_nothing(tmp_path: Path) -> None:
    # Two moves made, the computer takes the Attacker and starts thinking;
    # both moves are taken back before its answer comes: the answer was for
    # another position, and nothing of it is lit at the start.
    from controller.rules import new_game

    clock = FakeClock(1000.0)
    service = BoardService(Config(data_dir=tmp_path, variant="english-draughts", settle=0.05,
                                  error_delay=0.2, ponder=False), clock=clock)
    try:
        game = new_game("english-draughts")

        def show() -> None:
            a, d = game.bitboards()
            service.set_sim_occupancy("".join("1" if (a | d) >> i & 1 else "0"
                                              for i in range(game.geometry.size)))
            for _ in range(3):
                clock.t += 0.1
                service.tick()

        for token in ("c3-d4", "f6-e5"):
            game.play(token)
            show()
        assert service.state()["moves"] == ["c3-d4", "f6-e5"]
        service.set_computer("attacker", 0.1, 1)
        search = service.computer_job()  # made now, run while the person takes back
        for _ in range(2):
            service.press("undo")
            game.pop()
            show()
        assert service.state()["moves"] == []
        service.play_computer(*search())
        state = service.state()
        assert state["expected"] is None and state["hint_squares"] is None
        assert "make the lit move" not in state["status"]
        assert not state["engine_gave_up"] and service.engine_failed is None
    finally:
        service.close()
