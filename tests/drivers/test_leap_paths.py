"""The leap games' boards through the three event sources: a simulated
noisy sensor log of a 37-point or 8x8 game replays to the same records
directly, through the GPIO scanner on the board's stock matrix (9x5 with
8 crossings unused; 8x8), and through the real firmware in MicroPython
with the board's switch map sent in the handshake; the 8x8 board wired on
its 32 dark squares only (8x4) gives the same records too.  What each
driver path delivers, written as a sensor log and replayed directly, gives
its trace again."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest

from controller.board.sensorlog import Event, format_event
from controller.drivers.firmware_replay import firmware_events
from controller.drivers.firmware_sim import find_micropython
from controller.drivers.gpio_replay import gpio_events
from controller.drivers.mapping import BoardMapping, ConfigError
from controller.reconcile.bench import random_game
from controller.reconcile.replay import log_events, replay, replay_events
from controller.reconcile.simulator import board_of, simulate_log
from controller.rules import AnyGame, game_from_position

pytestmark = pytest.mark.timeout(300)

Source = Callable[[Iterable[str]], Iterable[Event]]


def _game(variant: str, seed: int, limit: int) -> AnyGame:
    """A random game with at least one capture (seeds tried in turn)."""
    while True:
        game = random_game(variant, random.Random(seed), limit)
        if any(m.capture for m in game.moves):
            return game
        seed += 100


def _replay(source: Iterable[Event], variant: str, squares: int, game: AnyGame) -> list[str]:
    delivered: list[Event] = []

    def recorded(events: Iterable[Event]) -> Iterable[Event]:
        for event in events:
            delivered.append(event)
            yield event

    result = replay_events(recorded(source), variant, trace=True)
    assert result.reconciler is not None
    assert [str(m) for m in result.reconciler.game.moves] == [str(m) for m in game.moves]
    log = [format_event(e, squares) for e in delivered]
    assert replay(log, variant, trace=True).trace == result.trace
    assert len(result.trace) == len(delivered)
    return [str(r) for r in result.records]


@pytest.mark.parametrize(
    ("variant", "seed", "limit"),
    [("sixteen-soldiers", 41, 40), ("hewakam-keliya", 42, 40), ("checkers", 43, 40),
     ("english-draughts", 44, 40)],
)
def test_the_three_paths_give_the_same_records_on_the_leap_boards(
    variant: str, seed: int, limit: int
) -> None:
    game = _game(variant, seed, limit)
    lines = simulate_log(game, seed=seed).splitlines()
    squares = board_of(game)[1]
    mp = find_micropython()
    sources: dict[str, Source] = {
        "direct": log_events,
        "gpio": gpio_events,
        "firmware": lambda lines: firmware_events(lines, micropython=mp),
    }
    records = {name: _replay(source(lines), variant, squares, game)
               for name, source in sources.items()}
    assert records["direct"]
    assert records["gpio"] == records["direct"]
    assert records["firmware"] == records["direct"]


def test_an_8x8_board_wired_on_its_dark_squares_only_gives_the_same_records() -> None:
    game = _game("english-draughts", 45, 40)
    lines = simulate_log(game, seed=45).splitlines()
    dark = BoardMapping.for_board("8x8", dark_only=True)
    direct = _replay(log_events(lines), "english-draughts", 64, game)
    via_gpio = _replay(gpio_events(lines, mapping=dark), "english-draughts", 64, game)
    via_firmware = _replay(
        firmware_events(lines, micropython=find_micropython(), mapping=dark),
        "english-draughts", 64, game)
    assert via_gpio == direct and via_firmware == direct


@pytest.mark.parametrize("via", ["gpio", "firmware"])
def test_a_mapping_for_another_board_is_refused_in_one_line(via: str) -> None:
    game = _game("checkers", 46, 10)
    lines = simulate_log(game, seed=46).splitlines()
    wrong = BoardMapping.for_board("37-point")
    source = (gpio_events(lines, mapping=wrong) if via == "gpio"
              else firmware_events(lines, mapping=wrong))
    with pytest.raises(ConfigError, match="the mapping is for the 37-point board, the log for 8x8"):
        next(iter(source))


def test_through_the_firmware_the_board_stands_as_the_first_frame_shows_it() -> None:
    # A checkers position set up before the log's first frame (at 1 s): the
    # firmware reads those soldiers from the start, not an empty board (a
    # cleared board would start a new game from the variant's start).
    start = ".......D/..D.D.../.A....../......../......../......../......../........ a m - 1"
    names = game_from_position("checkers", start).geometry.point_names
    occ = {"c7", "e7", "b6", "h8"}
    lines = ['{"t": 0.0, "board": "8x8", "sensor": "occupancy"}']
    for t, change in ((1.0, ""), (1.5, "-b6"), (2.0, "+d8"), (2.5, "-c7"), (3.5, "")):
        if change:
            (occ.add if change[0] == "+" else occ.discard)(change[1:])
        bits = "".join("1" if n in occ else "0" for n in names)
        lines.append(f'{{"t": {t}, "occ": "{bits}"}}')
    for source in (log_events(lines), firmware_events(lines, micropython=find_micropython())):
        result = replay_events(source, "checkers", trace=True, start=start)
        assert result.reconciler is not None
        assert [str(m) for m in result.reconciler.game.moves] == ["b6xd8"]
        assert not any("Set up" in line for line in result.trace)
