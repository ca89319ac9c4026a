"""An archive holding one game of the actions given, for the tests of what
the board reads back after a restart (the journal, the kept marks)."""

from __future__ import annotations

from pathlib import Path

from controller.rules import Game
from controller.service.store import Store


def stored_game(data: Path, *tokens: str) -> tuple[Store, Game, int]:
    """A store in ``data`` with a new kharbga game between A and D, those
    actions played and written: the store, the game and its id."""
    store = Store(data)
    game = Game.new("kharbga")
    gid = store.new_game(game, "A", "D")
    for token in tokens:
        game.play(token)
    store.sync(gid, game)
    return store, game, gid
