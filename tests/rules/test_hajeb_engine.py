"""The engine under H'ajeb: it never declares (it may ignore the
declaration) but, once H'ajeb is in force, plays only legal actions: long
moves, captures by several soldiers, ``pass`` and the removals at its end."""

from __future__ import annotations

from controller.engine.api import best_move
from controller.rules import Game, find_variant

HAJEB = find_variant("sabouiyya").with_options(hajeb=True)
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"
FORTRESS = "..D../.DDA./DDA../.A.../A...A d m - 5"


def _play_out(g: Game, actions: int) -> list[str]:
    """The engine plays both sides; every action it picks is legal."""
    played = []
    for _ in range(actions):
        if g.outcome is not None:
            break
        result = best_move(g, 5.0, max_depth=2, max_nodes=3000)
        assert result.move is not None
        text = str(result.move)
        assert text in [str(m) for m in g.legal_moves()]
        g.play(text)
        played.append(text)
    return played


def _long(step: str) -> bool:
    """A step of more than one square, straight or diagonal (``b2-d4``,
    ``b2xb5``): one only H'ajeb allows."""
    if step[2:3] not in ("-", "x"):
        return False
    df, dr = abs(ord(step[0]) - ord(step[3])), abs(int(step[1]) - int(step[4]))
    return max(df, dr) > 1


def test_engine_plays_legal_long_moves_and_captures_under_hajeb() -> None:
    g = Game.from_position(HAJEB, WALL)
    g.declare_hajeb()
    played = _play_out(g, 12)
    assert played[0] in ("b3xa4", "c4xb5")  # it takes what H'ajeb opened
    assert any(_long(p) for p in played[1:]), played  # after the diagonal capture, a long one


def test_engine_makes_the_removals_that_end_hajeb() -> None:
    g = Game.from_position(HAJEB, FORTRESS)
    g.declare_hajeb()
    assert g.hajeb == "end"
    played = _play_out(g, 4)
    assert [p[0] for p in played[:3]] == ["x", "x", "x"]
    assert g.hajeb == "off"
