"""The exchange in the status line (docs/rules.md, "Rulings": Exchange;
docs/reconciler.md, "Buttons"): what the side to move's raised flag does,
the exchange in progress and how to answer it, the other side's flag
raised (kept for its next step), the request still lit while error
squares are told, and why the button means nothing now."""

from __future__ import annotations

from controller.rules import AnyGame, Game
from controller.rules.moves import STEP

__all__ = ["answer_awaited", "exchange_refusal", "exchange_words", "flag_kept", "raised_words"]

TITLE = ("Attacker", "Defender")

# The exchange in progress in words, one text for each stage (1 the
# Defender asked with {soldier}, 2 the Attacker offered {first}, 3 the
# Defender took it, 4 the Attacker offered {second}): in the status line
# (exchange_words), and after the error squares (answer_awaited).
TOLD = ("; the Defender asks an exchange with {soldier}",
        "; exchange: the Attacker offers {first}",
        "; exchange: the Defender took {first}, a second soldier is asked",
        "; exchange: the Attacker offers {second} as well")
AWAITED = ("the Defender asks it with {soldier}",
           "the Attacker offers {first} for {soldier}",
           "the Defender took {first} and asks a second soldier",
           "the Attacker offers {second} as well")


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
    if g.exchange is None or g.outcome is not None or computer:
        return ""
    return f"; then: {TITLE[g.side]}, answer the exchange ({_stage_words(g, AWAITED)})"


def raised_words(g: AnyGame) -> str:
    """What the raised exchange flag of the side to move does with its
    next step (docs/rules.md, "Rulings": Exchange)."""
    e, names = g.exchange, g.geometry.point_names
    raised = " (exchange flag raised: "
    if g.chain_square is not None:  # the chain's steps are captures: none is flagged
        return (" (exchange flag raised, but a capture cannot ask or answer an exchange: "
                "the next capture lowers it)")
    steps = [m for m in g.legal_moves() if m.kind == STEP]
    if steps and all(m.capture for m in steps):
        return (" (exchange flag raised, but there is no step to ask or answer it with, only "
                "captures, and a capture cannot: the next capture lowers it)")
    if g.side == 1 and e is not None and e.stage in (2, 4):
        s, first = names[e.soldier], names[e.first]
        if e.stage == 2:
            return f"{raised}stepping {s} takes {first}, and a second soldier is asked)"
        off = f"{s}, {first} and {names[e.second]}"
        return f"{raised}stepping {s} ends the exchange: {off} come off)"
    if g.side == 1:
        return f"{raised}the soldier the Defender steps asks an exchange)"
    a, _ = g.bitboards()
    if e is None or e.stage not in (1, 3):
        return " (exchange flag raised, but no exchange is asked: nothing to offer)"
    if a.bit_count() < 2:
        return (" (exchange flag raised, but one soldier left cannot be offered: "
                "any step refuses)")
    offered = f"for {names[e.soldier]}" if e.stage == 1 else f"as the second, not {names[e.first]}"
    return f"{raised}the soldier the Attacker steps is offered {offered})"


def exchange_words(g: AnyGame, raised: bool) -> str:
    """The exchange in progress, in words (its soldiers are lit), and,
    while the side to answer has not raised its flag, how to answer."""
    if g.exchange is None or g.outcome is not None:
        return ""
    said = _stage_words(g, TOLD)
    return said if raised else said + _how_to_answer(g)


def _stage_words(g: AnyGame, words: tuple[str, str, str, str]) -> str:
    """The text of ``words`` for the stage of the exchange in progress,
    its squares named."""
    e, names = g.exchange, g.geometry.point_names
    assert e is not None
    return words[e.stage - 1].format(soldier=names[e.soldier], first=names[e.first],
                                     second=names[e.second])


def _how_to_answer(g: AnyGame) -> str:
    """How the side to move answers the exchange asked (docs/rules.md,
    "Rulings": Exchange): with its flag raised, or refusing with a plain step."""
    e, names = g.exchange, g.geometry.point_names
    assert e is not None
    flag = "press Exchange, then step"
    if e.stage in (2, 4):
        s = names[e.soldier]
        what = "to take it" if e.stage == 2 else "to end the exchange"
        return f" ({what}, {flag} {s} again; a step without it withdraws the request)"
    a, _ = g.bitboards()
    if a.bit_count() < 2:
        return " (one soldier left cannot be offered: any step refuses)"
    if e.stage == 1:
        return f" (to accept, {flag} the soldier you offer; a step without it refuses)"
    return (f" (to give it, {flag} another soldier; a step without it refuses, "
            f"and nothing comes off)")


def exchange_refusal(g: AnyGame) -> str | None:
    """Why the exchange button means nothing in ``g`` now (None: it does)."""
    if not isinstance(g, Game) or not g.variant.exchange:
        return f"the exchange is not a rule of {g.variant.name}"
    if g.outcome is not None:
        return "the game is over: there is nothing to exchange"
    if g.setting:
        return "the exchange is asked with a step: there is none in the setting phase"
    return None
