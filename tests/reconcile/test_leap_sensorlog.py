"""Sensor logs of the leap games' boards: 37-point and 8x8 headers, frames of
37 and 64 characters in the geometry's point order, and logs of the wrong
board refused in one line."""

from __future__ import annotations

import io
import json

import pytest

from controller.board.sensorlog import Frame, Header, LogError, read_log, write_log
from controller.reconcile.replay import replay
from controller.rules import new_game


def _log(board: str, frames: list[str], key: str = "occ") -> list[str]:
    head = json.dumps({"t": 0, "board": board, "sensor": "occupancy" if key == "occ" else "colour"})
    return [head] + [json.dumps({"t": i + 1, key: f}) for i, f in enumerate(frames)]


@pytest.mark.parametrize(("variant", "board", "n"), [("sixteen-soldiers", "37-point", 37),
                                                     ("checkers", "8x8", 64)])
def test_a_leap_board_log_reads_and_writes_in_point_order(variant: str, board: str, n: int) -> None:
    g = new_game(variant)
    a, d = g.bitboards()
    cells = "".join("a" if a >> p & 1 else "d" if d >> p & 1 else "." for p in range(n))
    assert len(g.geometry.point_names) == n
    events = [e for _, e in read_log(_log(board, [cells], "cells"))]
    header, frame = events
    assert isinstance(header, Header) and header.squares == n and header.board == board
    assert isinstance(frame, Frame) and frame.occupied == a | d
    out = io.StringIO()
    write_log(events, out, n)
    assert [json.loads(line) for line in out.getvalue().splitlines()][1]["cells"] == cells


def test_frames_of_another_length_are_refused_naming_the_line() -> None:
    wrong = r"line 2: 'occ' must be a string of 37 characters \(the 37-point board\), got 49"
    with pytest.raises(LogError, match=wrong):
        list(read_log(_log("37-point", ["0" * 49])))
    with pytest.raises(LogError, match='must be one of "7x7", "5x5", "37-point", "8x8"'):
        list(read_log(_log("9x9", [])))


@pytest.mark.parametrize(("board", "key", "place"), [
    ("37-point", "occ", "point"), ("37-point", "cells", "point"), ("8x8", "occ", "square")])
def test_a_bad_character_is_said_at_the_board_s_place(board: str, key: str, place: str) -> None:
    n = 37 if board == "37-point" else 64
    with pytest.raises(LogError) as exc:
        list(read_log(_log(board, [("0" if key == "occ" else ".") * (n - 1) + "x"], key)))
    allowed = "0 or 1" if key == "occ" else "a, d, . or ?"
    assert str(exc.value) == f"line 2: {key} character 'x' at {place} {n - 1} is not {allowed}"


def test_the_square_boards_keep_their_meaning() -> None:
    (_, header), = read_log(_log("7x7", []))
    assert isinstance(header, Header) and header.size == 7 and header.squares == 49
    (_, header), = read_log(_log("8x8", []))
    assert isinstance(header, Header) and header.size == 8 and header.squares == 64


@pytest.mark.parametrize(("variant", "board", "wanted"), [
    ("checkers", "37-point", "8x8"),
    ("sixteen-soldiers", "7x7", "37-point"),
    ("kharbga", "8x8", "7x7"),
])
def test_a_log_for_another_board_is_one_line_naming_the_board(
    variant: str, board: str, wanted: str
) -> None:
    with pytest.raises(LogError) as exc:
        replay(_log(board, []), variant)
    article = "an" if board == "8x8" else "a"
    assert str(exc.value) == (
        f"header: the log is for {article} {board} board, variant {variant} is played on "
        f"{wanted}"
    )
