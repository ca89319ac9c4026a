"""The exchange in the status line where the side to move's words do not
say it: the other side's flag raised, kept for its next step, and the
exchange request still lit while error squares are told (docs/rules.md,
"Rulings": Exchange; docs/reconciler.md, "Buttons")."""

from __future__ import annotations

from controller.rules import AnyGame, Game

__all__ = ["answer_awaited", "flag_kept"]

TITLE = ("Attacker", "Defender")


def flag_kept(g: AnyGame, flags: tuple[bool, bool]) -> str:
    """"; Defender's exchange flag raised: it goes with the Defender's next
    step" when the side not to move raised its flag (a press during the
    other side's turn or chain): the flag is kept until that side's next
    step, which lowers it. The Attacker with one soldier left can offer
    none: said so, as the step lowers the flag all the same."""
    other = 1 - g.side
    if not isinstance(g, Game) or not flags[other] or g.outcome is not None:
        return ""
    who = TITLE[other]
    if other == 0 and g.count(0) < 2:
        return (f"; {who}'s exchange flag raised, but one soldier left cannot be offered: "
                f"the {who}'s next step lowers it")
    answer = ", to answer an exchange the Defender asks" if other == 0 else ""
    return f"; {who}'s exchange flag raised: it goes with the {who}'s next step{answer}"


def answer_awaited(g: AnyGame, computer: bool) -> str:
    """"; then: Defender, answer the exchange (the Attacker offers d5 for
    b4)", said after the error squares while an exchange request is lit,
    so the side to answer knows its answer is awaited once the board is
    right. Not said while the computer is to move (``computer``): it
    answers itself."""
    e = g.exchange
    if e is None or g.outcome is not None or computer:
        return ""
    names = g.geometry.point_names
    if e.stage == 1:
        what = f"the Defender asks it with {names[e.soldier]}"
    elif e.stage == 2:
        what = f"the Attacker offers {names[e.first]} for {names[e.soldier]}"
    elif e.stage == 3:
        what = f"the Defender took {names[e.first]} and asks a second soldier"
    else:
        what = f"the Attacker offers {names[e.second]} as well"
    return f"; then: {TITLE[g.side]}, answer the exchange ({what})"
