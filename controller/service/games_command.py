"""``kharbga-board games``: list, show, export and log the archive's games,
and analyse one with the engine (:mod:`controller.engine.review`).

The archive is only read (:class:`Store` ``read_only``): on a backup stick
too, and a file that is not an archive of ours is refused, never changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from controller.board.words import on_one_line, said
from controller.hall.protocol import Unreplayable, action_tokens

from .archive import NoArchive, archive_errors
from .store import Store

__all__ = ["games_command"]


def games_command(action: str, gid_text: str | None, data_dir: Path, *,
                  nodes: int | None = None, seconds: float | None = None) -> int:
    """Run ``games ACTION [ID]`` on the archive of ``data_dir``.  A data
    directory with no archive yet (or an empty file) holds no games:
    ``list`` says so and succeeds, the others find no such game.
    ``nodes`` and ``seconds`` are ``analyse``'s search budget."""
    gid = _game_id(action, gid_text)
    if action != "analyse" and (nodes is not None or seconds is not None):
        raise ValueError(f"--nodes and --time are for games analyse, not games {action}")
    if action == "analyse":
        from controller.engine.review import check_budget

        check_budget(nodes, seconds)
    if data_dir.exists() and not data_dir.is_dir():  # a file, or a device as /dev/null
        raise ValueError(f"{data_dir} is a file, not a data directory: give the folder that "
                         "holds games.sqlite3 (--data-dir)")
    if not data_dir.is_dir():
        raise ValueError(f"{data_dir} does not exist: give the data directory that holds "
                         "games.sqlite3 (--data-dir)")
    try:
        store = Store(data_dir, read_only=True)
    except NoArchive:
        if gid is None:
            print(f"no games recorded yet in {data_dir}")
            return 0
        raise ValueError(f"no game {gid} in {data_dir}: no games recorded yet") from None
    if store.note:
        print(f"kharbga-board: {store.note}", file=sys.stderr)
    try:
        with archive_errors(store.path):
            if action == "analyse" and gid is not None:
                _analyse(store, gid, data_dir, nodes, seconds)
            else:
                _games(store, action, gid, data_dir)
        return 0
    finally:
        store.close()


def _game_id(action: str, gid_text: str | None) -> int | None:
    """The game id of ``games ACTION [ID]``: none for ``list``, a number
    in ASCII digits for the others (int() would also read "٣" as 3, and
    isdigit() takes "²")."""
    if action == "list":
        if gid_text is not None:
            raise ValueError(f"games list takes no game id: to see one game, games show "
                             f"{gid_text}")
        return None
    if gid_text is None:
        raise ValueError(f"games {action} needs a game id (see: games list)")
    if not (gid_text.isascii() and gid_text.isdigit()):
        raise ValueError(f"games {action}: {gid_text!r} is not a game id, which is a number "
                         "written in the digits 0-9 (see: games list)")
    return int(gid_text)


def _games(store: Store, action: str, gid: int | None, data_dir: Path) -> None:
    if gid is None:  # list
        listed = store.list_games()
        if not listed:
            print(f"no games recorded yet in {data_dir}")
        for g in listed:
            state = g["result"] if g["finished"] else "playing"
            # One line a game, whatever a hand edit put in the archive's text.
            line = (f"{g['id']:5d}  {g['created']}  {g['variant']:15s} "
                    f"{g['attacker']} - {g['defender']}  {state}  ({g['actions']} actions)")
            print(on_one_line(line))
        return
    stored = store.get(gid)
    if stored is None:
        raise ValueError(f"no game {gid} in {data_dir}")
    if action == "log":  # replayable: header first, times never going back
        try:
            lines, left_out = store.replayable(gid)
        except ValueError as exc:  # its variant unknown (an archive edited by hand)
            raise ValueError(f"game {gid} in {store.path}: no sensor log for its rules "
                             f"({said(exc)})") from None
        if left_out:
            print(f"kharbga-board: game {gid}: {left_out} sensor-log line"
                  f"{'s that are' if left_out != 1 else ' that is'} not events (the archive "
                  f"edited by hand?) {'are' if left_out != 1 else 'is'} left out", file=sys.stderr)
        for line in lines:
            print(line)
        return
    try:  # the record and the position are the stored game replayed
        record = store.record_text(gid)
        position = stored.game().position() if action == "show" else ""
    except Unreplayable as exc:  # the game said, as the service's log and page say it
        raise ValueError(f"game {gid} in {store.path} does not replay under these rules "
                         f"({said(exc)})") from None
    sys.stdout.write(record)
    if action == "show":
        print(f"position: {position}")


def _analyse(store: Store, gid: int, data_dir: Path, nodes: int | None,
             seconds: float | None) -> None:
    """``games analyse ID``: the stored game replayed, each turn judged by
    the engine (controller/engine/review.py), printed as it is judged."""
    from controller.engine.hint import interruptible
    from controller.engine.review import review, turn_line

    stored = store.get(gid)
    if stored is None:
        raise ValueError(f"no game {gid} in {data_dir}")
    try:
        game = stored.game()
    except Unreplayable as exc:
        raise ValueError(f"game {gid} in {store.path} does not replay under these rules "
                         f"({said(exc)})") from None
    tokens = action_tokens(game)
    if not game.moves or tokens[0] in ("resign:attacker", "resign:defender", "agreement"):
        raise ValueError(f"game {gid} has no moves to look back at")
    print(f"game {gid} ({stored.variant}): each turn with the engine's score before it for "
          "the side to move, in pieces;")
    print("where the engine preferred another turn, its turn and what the one played lost: "
          "? a mistake (1 piece or more), ?? a blunder (3 or more, or a won game given away)")
    if any("=" in token for token in tokens):
        print("a step ending in = raises the exchange flag: c4-d4= and c4-d4 are two turns")
    result = interruptible(lambda: review(game.variant, stored.start, tokens, nodes=nodes,
                                          seconds=seconds,
                                          each=lambda t: print(turn_line(t), flush=True)))
    for side in ("attacker", "defender"):
        print(result.summary(side))
