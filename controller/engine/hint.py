"""``kharbga-board hint``: the engine's best move for a position, in
words; Ctrl-C stops it at once, whatever the search's time."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from controller.rules import (
    LEAP_VARIANTS,
    VARIANTS,
    Variant,
    find_any_variant,
    game_from_position,
    new_game,
)
from controller.rules.moves import SIDE_NAMES

from . import WIN
from .api import DEFAULT_HINT_SECONDS, LEVELS, MAX_SECONDS, best_move
from .negamax import WON

__all__ = ["hint_command", "interruptible"]

_R = TypeVar("_R")


def hint_command(variant_name: str, position: str | None, time: float | None,
                 level: int | None, seed: int) -> int:
    """``kharbga-board hint``: print the best move of ``position`` (None:
    the variant's start), its score and line; ``ValueError`` in one line
    for a bad option or position."""
    seconds = DEFAULT_HINT_SECONDS if time is None else time
    if not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"--time must be more than 0 and at most {MAX_SECONDS:g} seconds, "
                         f"not {seconds:.15g}")
    if level is not None and level not in LEVELS:
        raise ValueError(f"--level must be one of {', '.join(map(str, LEVELS))}, "
                         f"not {level}")
    variant = find_any_variant(variant_name)
    if position is None:
        position = new_game(variant).position()
    if isinstance(variant, Variant):
        ranks = len(position.split()[0].split("/")) if position.split() else 0
        fits = _variants_with_ranks(ranks)
        if ranks != variant.size and fits:
            which = fits[0] if len(fits) == 1 else f"{', '.join(fits[:-1])} or {fits[-1]}"
            give = f"--variant {fits[0]}" if len(fits) == 1 else "--variant"
            raise ValueError(f"the position has {ranks} ranks but {variant.name} is played on "
                             f"{variant.size}x{variant.size}: a position of {which}? "
                             f"give its variant with {give}")
    # Otherwise (no variant's board has that many ranks) the rules say
    # what is wrong with the position.
    game = game_from_position(variant, position)
    if game.outcome is not None:
        raise ValueError(f"the game is over in that position: {game.outcome.said}")
    if not game.raw_moves():
        raise ValueError(f"the {game.to_move} has no legal move in that position")
    given = position.split()[1:2]  # the side the position names to move
    result = interruptible(lambda: best_move(game, seconds, seed=seed, level=level))
    print(result.move)
    print(f"score {result.score}  depth {result.depth}  nodes {result.nodes}")
    print("pv " + " ".join(result.pv))
    if abs(result.score) >= WON:  # a forced result: said in words
        k = WIN - abs(result.score)
        side = SIDE_NAMES.index(game.to_move)
        winner = SIDE_NAMES[side if result.score > 0 else 1 - side].capitalize()
        print(f"the {winner} wins by force in {k} action{'s' if k != 1 else ''}")
    if given and given[0] in ("a", "d") and given[0] != game.to_move[0]:
        blocked = "Attacker" if given[0] == "a" else "Defender"
        print(f"the {blocked} is blocked: the {game.to_move.capitalize()} plays")
    return 0


def interruptible(work: Callable[[], _R]) -> _R:
    """``work()`` on a thread this one waits for: the compiled search runs
    without looking at signals, so Ctrl-C would otherwise wait for the
    whole search (up to --time seconds).  Here it stops the command at
    once (the search thread, a daemon, ends with the process)."""
    out: list[_R] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            out.append(work())
        except BaseException as exc:  # handed to the waiting thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="search", daemon=True)
    thread.start()
    thread.join()  # KeyboardInterrupt arrives here, in the main thread
    if failed:
        raise failed[0]
    return out[0]


def _variants_with_ranks(ranks: int) -> list[str]:
    """The variants (both families) whose position strings have ``ranks``
    ranks: what a position of another board was probably meant for."""
    names = [v.name for v in VARIANTS] + [v.name for v in LEAP_VARIANTS]
    return [n for n in names if new_game(n).position().split()[0].count("/") + 1 == ranks]
