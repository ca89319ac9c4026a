"""One replay, three event sources: simulated logs go straight to the
reconciler, through the GPIO scanner on mock pins (``--via gpio``), and
through the real firmware in MicroPython over a pty and the serial link
(``--via firmware``).  All three recognise the same games, record for
record; and what each driver path delivers, written down as a sensor log
and replayed directly, gives its trace byte for byte: the paths differ only
in their events, never in how they are replayed or traced."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest
from simulated_games import random_game

from controller.board.sensorlog import Event, format_event
from controller.drivers.firmware_replay import firmware_events
from controller.drivers.firmware_sim import find_micropython
from controller.drivers.gpio_replay import gpio_events
from controller.reconcile.replay import log_events, replay, replay_events
from controller.reconcile.simulator import simulate_log

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
