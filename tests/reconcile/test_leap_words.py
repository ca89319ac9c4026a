"""What a player of the leap-capture games is shown in the middle of a
chain, a huff or a compulsory capture: the lights of a hint or of the
computer's move, the lights of a soldier lifted by the other side, and the
words that say why a move is not taken."""

from __future__ import annotations

from controller.board.events import Button, Frame
from controller.reconcile.reconciler import Reconciler
from controller.rules import AnyGame, new_game


def _occ(g: AnyGame) -> str:
    a, d = g.bitboards()
    return "".join("1" if (a | d) >> p & 1 else "0" for p in range(len(g.geometry.point_names)))


def test_undo_takes_a_hint_off_with_the_turn_it_was_for() -> None:
    g = new_game("sixteen-soldiers")
    for m in ("d4-e5", "d6-c5"):
        g.play(m)
    rec = Reconciler(game=g.copy())
    rec.feed(Frame.from_occ(0.0, _occ(g)))
    rec.tick(1.0)
    rec.set_hint(["c4", "d4"])  # the hint for the Attacker after d6-c5
    assert rec.tick(1.1).leds["c4"] == "hint"
    rec.feed(Button(2.0, "undo"))
    lit = rec.tick(2.1).leds
    # The Defender to move again: a hint for the Attacker means nothing.
    assert rec.game.to_move == "defender" and "hint" not in lit.values(), lit

