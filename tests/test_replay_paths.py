"""One replay, three event sources: simulated logs go straight to the
reconciler, through the GPIO scanner on mock pins (``--via gpio``), and
through the real firmware in MicroPython over a pty and the serial link
(``--via firmware``).  All three recognise the same games, record for
record; and what each driver path delivers, written down as a sensor log
and replayed directly, gives its trace byte for byte: the paths differ only
in their events, never in how they are replayed or traced."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable

import pytest
from simulated_games import random_game

from controller.board.events import Button
from controller.board.sensorlog import Event, format_event
from controller.drivers.firmware_replay import firmware_events
from controller.drivers.firmware_sim import find_micropython
from controller.drivers.gpio_replay import gpio_events
from controller.reconcile.reconciler import Settings
from controller.reconcile.replay import log_events, replay, replay_events
from controller.reconcile.simulator import simulate_log
from controller.rules import Game, find_variant

pytestmark = pytest.mark.timeout(300)

Source = Callable[[Iterable[str]], Iterable[Event]]


def sources() -> dict[str, Source]:
    mp = find_micropython()
    return {
        "direct": log_events,
        "gpio": gpio_events,
        "firmware": lambda lines: firmware_events(lines, micropython=mp),
    }


@pytest.mark.parametrize(
    ("variant", "seed", "limit"),
    [("kharbga", 31, 50), ("khamousiyya", 32, 40), ("sabouiyya", 33, 30)],
)
def test_the_three_paths_give_the_same_records_and_one_trace_format(
    variant: str, seed: int, limit: int
) -> None:
    game = random_game(variant, random.Random(seed), limit)
    lines = simulate_log(game, seed=seed).splitlines()
    squares = game.variant.size ** 2
    records: dict[str, list[str]] = {}
    for name, source in sources().items():
        delivered: list[Event] = []

        def recorded(events: Iterable[Event], into: list[Event] = delivered) -> Iterable[Event]:
            for event in events:
                into.append(event)
                yield event

        result = replay_events(recorded(source(lines)), variant, trace=True)
        records[name] = [str(r) for r in result.records]
        assert result.reconciler is not None
        assert [str(m) for m in result.reconciler.game.moves] == [str(m) for m in game.moves]
        # What the path delivered, as a sensor log, replays to the same trace.
        log = [format_event(e, squares) for e in delivered]
        again = replay(log, variant, trace=True)
        assert again.trace == result.trace, name
        assert len(result.trace) == len(delivered)
    assert records["gpio"] == records["direct"]
    assert records["firmware"] == records["direct"]
    assert records["direct"]


def test_a_game_with_hajeb_gives_the_same_record_on_the_three_paths() -> None:
    """The ``hajeb`` button (appended to the Pico's buttons, index 6, read
    on a button-only column of the 5x5 board) declares and rescinds on every
    path; the long moves and a capture by two soldiers follow."""
    variant = find_variant("sabouiyya").with_options(hajeb=True)
    wall = "D.DAD/.DA../DA.../AA.../....A d m - 10"
    names = Game.from_position(variant, wall).geometry.point_names
    a, d = Game.from_position(variant, wall).bitboards()
    occ, t = a | d, -0.5  # the first frame at 0, as the firmware's first report
    lines = [json.dumps({"t": 0.0, "board": "5x5", "sensor": "occupancy"})]

    def frame() -> None:
        nonlocal t
        t += 0.5
        bits = "".join("1" if occ >> i & 1 else "0" for i in range(25))
        lines.append(json.dumps({"t": t, "occ": bits}))

    def press() -> None:
        nonlocal t
        t += 0.5
        lines.append(json.dumps({"t": t, "button": "hajeb", "side": "defender"}))

    def move(frm: str, to: str, *taken: str) -> None:
        nonlocal occ
        for gone, new in ((frm, to), *((s, None) for s in taken)):
            occ &= ~(1 << names.index(gone))
            frame()
            if new is not None:
                occ |= 1 << names.index(new)
                frame()

    frame()
    press()
    move("e1", "c3")
    move("e5", "e4")
    move("b3", "a4", "a3", "b4")
    move("b2", "b5", "c5")
    press()
    move("e4", "e5")
    move("a4", "a3")
    # Numbered on from the position's turn 10, after sabouiyya's 12 setting turns.
    want = "22. hajeb 23. e1-c3 24. e5-e4 25. b3xa4 b2xb5 26. rescind e4-e5 27. a4-a3 *"
    settings = Settings(settle=0.25, error_delay=1.0)
    for name, source in sources().items():
        result = replay_events(source(lines), variant, settings, trace=True, start=wall)
        assert result.records, (name, result.trace[-3:])
        record = str(result.records[0])
        assert want in record and '[Options "hajeb=true"]' in record, name


def test_a_press_at_or_before_the_first_frame_replays_on_every_path() -> None:
    """A button pressed at the first event's time (a press first of all,
    or at the same time as the first frame): before, ``--via gpio`` ended
    in "IndexError: list index out of range" (the press read the log's
    clock before it was made); every path now reads it as the direct one."""
    game = random_game("kharbga", random.Random(5), 6)
    lines = simulate_log(game, seed=5).splitlines()
    first = json.loads(lines[1])["t"]
    press = json.dumps({"t": first, "button": "undo", "side": "attacker"})
    for log in ([lines[0], press, *lines[1:]], [*lines[:2], press, *lines[2:]]):
        records = {}
        for name, source in sources().items():
            events = list(source(log))
            assert sum(isinstance(e, Button) and e.button == "undo" for e in events) == 1, name
            records[name] = [str(r) for r in replay_events(iter(events), "kharbga").records]
        assert records["gpio"] == records["direct"] == records["firmware"]
        assert records["direct"]
