"""What the players are told: the status line, and with :mod:`.lights`'
LED roles, :class:`Display`.

Both are functions of the game and a :class:`~.view.View` (what the
reconciler knows beyond the game); :class:`Display` recomputes them only
when one of those changed.
"""

from __future__ import annotations

from dataclasses import replace

from controller.board.geometry import points
from controller.board.leds import LedMap
from controller.board.words import place
from controller.rules import AnyGame, Game, LeapGame
from controller.rules.moves import HAJEB, PASS, RESCIND, STEP, action_words
from controller.rules.record import group_turns

from .crown_words import crowned_last, crowned_words
from .exchange_words import answer_awaited, exchange_words, flag_kept, raised_words
from .lights import leds
from .turn import chain_takes
from .view import (
    TITLE,
    View,
    crowning,
    empty_starts,
    names_of,
    placeable,
    setting_up,
    step_targets,
)

__all__ = ["Display", "View", "end_words", "leds", "status"]

THINKING = " (the computer is thinking: its move will be lit)"


def _expected_words(g: AnyGame, v: View) -> str:
    """The computer's action to make, in words; a step with the exchange
    flag says how the flag is raised, until it is (the step alone is read
    as a plain step)."""
    token = str(v.expected)
    if token.endswith("=") and not v.flags[g.side]:
        return f"{token} (raise the exchange flag first: press Exchange, then make the step)"
    if token.endswith("="):  # the press answered in words: the flag is up
        return f"{action_words(token)} (exchange flag raised: now make the step)"
    return action_words(token)


def _stop_words(g: AnyGame, v: View) -> str:
    """How the person stops their optional chain against the computer: by
    making the computer's lit reply to the pass."""
    other = f"the {TITLE[1 - g.side]} (computer)"
    if v.after_pass is None:
        return f", or stop there: {other} is choosing its reply, to be lit"
    reply = v.after_pass
    # Its end square may be where the chain's soldier captures: lit as the
    # reply's, so said here.
    shared = "" if reply.to < 0 or not step_targets(g) >> reply.to & 1 else (
        f" ({g.geometry.point_names[reply.to]}, where it ends, is also where "
        f"{g.chain_square} captures)")
    return f", or stop there by making {other}'s lit reply {action_words(str(reply))}{shared}"


def end_words(g: AnyGame) -> str:
    """The end of the game, in words, and how the next one starts: on a
    cleared board, or (a leap game) with the soldiers set straight back
    on their starting points."""
    o = g.outcome
    assert o is not None
    how = ("Clear the board, or set the soldiers back on their starting "
           f"{place(g.geometry.name, 2)}, for a new game" if isinstance(g, LeapGame)
           else "Clear the board for a new game")
    return f"Game over: {o.said}. {how}"


def status(g: AnyGame, v: View) -> str:
    """The one-line status: what the players should do next."""
    if v.unseen:
        names = names_of(g, v.unseen)
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        once = "it is" if len(names) == 1 else "they are"
        return (f"{', '.join(names[:3])}{more} not seen clearly (a hand, a reflection or "
                f"something on the board?): the board is read once {once}")
    if setting_up(g, v):
        empty = empty_starts(g, v)
        n, stray = empty.bit_count(), v.errors & ~empty
        told = f"Set up the soldiers: {n} starting {place(g.geometry.name, n)} still empty"
        return f"{told}; {_errors(g, replace(v, errors=stray))}" if stray else told
    if v.errors:
        return _errors(g, v) + answer_awaited(g, v.thinking or v.expected is not None)
    if v.huffed:
        return (f"{TITLE[g.side]}: the huff comes first: take off "
                f"{' or '.join(names_of(g, v.huffed))}; then the move made stands")
    if g.outcome is not None:
        return end_words(g)
    side = TITLE[g.side]
    pend = v.standing
    if pend:
        what = "exchanged" if pend & v.exchanged == pend else "captured"
        squares = names_of(g, pend)
        told = (f"{squares[0]}: remove the {what} soldier" if len(squares) == 1
                else f"Remove the {what} soldiers on {', '.join(squares)}")
        told += _taken_by(g, pend) if what == "captured" else ""
        # The soldier in the hand may stand on a captured soldier's point
        # already (that piece taken off, the soldier set down there): the
        # board cannot tell, so where it may go is told too.
        if v.lifted >= 0 and v.targets:
            name = g.geometry.point_names[v.lifted]
            if not v.targets & ~pend:  # where it may go, a captured soldier still stands
                where = " or ".join(names_of(g, v.targets))
                return (f"{told}; {name} lifted: it may go to {where} once the captured "
                        f"soldier there is off")
            return f"{told}; {name} lifted: set it on a lit {place(g.geometry.name)}"
        if v.lifted >= 0:  # and it has no move: said as when nothing else is asked
            return f"{told}; {_lifted(g, v)}"
        if v.expected is not None:  # the computer's reply, lit meanwhile: both to do
            return f"{told}; {side} (computer): make the lit move {_expected_words(g, v)}"
        return told
    flag, other = raised_words(g) if v.flags[g.side] else "", flag_kept(g, v.flags)
    if v.expected is not None and v.lifted < 0:
        return f"{side} (computer): make the lit move {_expected_words(g, v)}{other}"
    if v.thinking:
        return f"{side} (computer) is thinking: its move will be lit{other}"
    if v.lifted >= 0:
        return _lifted(g, v, flag, other)
    if g.phase == "setting":
        placed = (g.count(0) + g.count(1)) % 2 + 1
        near = g.geometry.centre_adjacent
        allowed = placeable(g) if isinstance(g, Game) else 0
        where = " next to the malha, the centre square" if allowed and allowed & ~near == 0 else ""
        return f"{side}: place a soldier ({placed} of 2){where}"
    hajeb = g.hajeb if isinstance(g, Game) else "off"
    if g.chain_square is not None and hajeb == "on" and g.side == 0:
        stop = _stop_words(g, v) if v.stop_answered else ", or carry on (pass)"
        return f"{side}: H'ajeb: capture again with any soldier{stop}"
    if g.chain_square is not None:
        optional = (f", or stop there and let the {TITLE[1 - g.side]} play (pass)"
                    if g.variant.chain == "optional" else "")
        if v.stop_answered and g.variant.chain == "optional":
            optional = _stop_words(g, v)
        crowned = crowned_words(g, g.side)
        return f"{side}: continue the capture with {g.chain_square}{optional}{flag}{crowned}{other}"
    if g.removals and isinstance(g, LeapGame):
        return _huff(g, v)
    if g.removals and hajeb == "end":
        return f"{side}: H'ajeb is over: remove a soldier of the {TITLE[1 - g.side]}"
    if g.removals:
        return f"{side}: remove one of your own pieces (blocked side rule)"
    declared = "; H'ajeb declared" if hajeb == "on" else ""
    told = exchange_words(g, bool(flag))
    crowned = crowned_words(g, 1 - g.side)
    return f"{side} to move{_again(g)}{told}{flag}{declared}{_must_capture(g)}{crowned}{other}"


_NOT_MOVES = (PASS, HAJEB, RESCIND)  # a turn's actions that move no soldier


def _taken_by(g: AnyGame, pend: int) -> str:
    """" (taken by d2xd3xe3)" when the last turn read captured every
    soldier of ``pend``: the move the board read is named, so a player
    whose soldier was read as a capture chain (a soldier set down
    diagonally over two sandwiches leaves the board a quick chain leaves)
    sees it and can take it back."""
    if not g.history:
        return ""
    last = g.history[-1][0]
    first = len(g.history) - 1
    while first > 0 and (g.history[first - 1][0].turn, g.history[first - 1][0].side) == (
            last.turn, last.side):
        first -= 1
    # A chain ended by pass, H'ajeb declared or rescinded on the turn: no soldier moves.
    turn = [(s, m) for s, m in g.history[first:] if m.kind not in _NOT_MOVES]
    if not turn or not all(m.kind == STEP for _, m in turn) or not any(m.capture for _, m in turn):
        return ""
    a, d = g.bitboards()
    start = turn[0][0]
    if pend & ~((start.attacker | start.defender) & ~(a | d)):
        return ""  # some were captured before this turn
    tokens = [t for t in next(reversed(list(group_turns(g, first))), []) if t not in _NOT_MOVES]
    return f" (taken by {' '.join(tokens)})" if tokens else ""


def _lifted(g: AnyGame, v: View, flag: str = "", other: str = "") -> str:
    """The soldier in the hand, in words: where it may go, or why it has
    no move."""
    side, name = TITLE[g.side], g.geometry.point_names[v.lifted]
    a, _ = g.bitboards()
    owner = TITLE[0] if a >> v.lifted & 1 else TITLE[1]
    if v.targets:
        return f"{owner}: {name} lifted; set it on a lit {place(g.geometry.name)}{flag}{other}"
    if isinstance(g, LeapGame) and g.huff & ~v.off:  # not made yet
        huffed = " or ".join(names_of(g, g.huff))
        return f"{owner}: {name} lifted; the huff comes first: take off {huffed}"
    steps = [m for m in g.legal_moves() if m.kind == STEP]
    capturers = {m.frm for m in steps if m.capture}
    must = g.variant.compulsory_capture or g.chain_square is not None
    if must and capturers and owner == side and all(m.capture for m in steps):
        who = " or ".join(sorted(g.geometry.point_names[p] for p in capturers))
        return f"{owner}: {name} lifted, but a capture must be made, by {who}; put it back"
    movers = sorted({g.geometry.point_names[m.frm] for m in steps})
    only = (f" (only {' or '.join(movers)} can move)"
            if owner == side and 0 < len(movers) <= 3 else "")
    return f"{owner}: {name} lifted, but it has no move from here{only}; put it back"


def _huff(g: LeapGame, v: View) -> str:
    """The huff owed, in words: the soldiers it may take, or (the reading
    not yet read, or not yet lit as wrong) the one already off, told taken
    off, as its light is off, not asked for again."""
    gone = names_of(g, g.huff & v.off)
    owed = gone or names_of(g, g.huff)
    why = "it" if len(owed) == 1 else ("them" if gone else "any of them")
    what = (f"{' and '.join(gone)} taken off" if gone
            else f"remove the enemy soldier on {' or '.join(owed)}")
    return (f"{TITLE[g.side]}: huff: {what} (the "
            f"{TITLE[1 - g.side]} could have captured with {why} and did not)")


def _must_capture(g: AnyGame) -> str:
    """": a capture must be made, by c3 or e3" where the rules allow the
    side to move nothing but a capture (compulsory captures), so the
    player knows before lifting a soldier that cannot capture."""
    who = _capturers(g)
    return f": a capture must be made, by {' or '.join(who)}" if who else ""


def _capturers(g: AnyGame) -> list[str]:
    """The soldiers that must capture, by name, where compulsory captures
    leave the side to move nothing else (no chain on); else none."""
    if not g.variant.compulsory_capture or g.chain_square is not None:
        return []
    steps = [m for m in g.legal_moves() if m.kind == STEP]
    if not steps or not all(m.capture for m in steps):
        return []
    return sorted({g.geometry.point_names[m.frm] for m in steps})


def _again(g: AnyGame) -> str:
    """" again (the Defender is blocked)" when the side that just stepped
    is to move again because the other has no step (kharbga's rule)."""
    if not isinstance(g, Game) or not g.history:
        return ""
    before, last = g.history[-1]
    if before.side != g.side or last.kind != STEP or before.removals:
        return ""
    return f" again (the {TITLE[1 - g.side]} is blocked)"


def _too_many(g: AnyGame, v: View) -> str | None:
    """In the setting phase, soldiers set where the rules allow but more
    than the turn has placements left: said of them all at once."""
    if not isinstance(g, Game) or g.phase != "setting" or g.outcome is not None or v.thinking:
        return None
    a, d = g.bitboards()
    new = v.errors & ~(a | d)
    if new != v.errors or new & ~placeable(g) or new & v.undone:  # undo's: said so
        return None
    left = 2 - (g.count(0) + g.count(1)) % 2
    n = new.bit_count()
    if n <= left:
        return None
    names = ", ".join(names_of(g, new))
    return (f"{names}: {n} soldiers set at once, but the {TITLE[g.side]} has "
            f"{'one placement' if left == 1 else 'two placements'} left in this turn; "
            f"take {n - left} off")


def _two_at_once(g: AnyGame, v: View) -> str | None:
    """In the moving phase, two soldiers of the side to move each made a
    step the rules allow, at once: said as such (one is put back, the
    other is the move)."""
    a, d = g.bitboards()
    gone, new = v.errors & (a | d), v.errors & ~(a | d)
    if g.outcome is not None or g.phase != "moving" or g.chain_square is not None or v.thinking \
            or gone.bit_count() != 2 or new.bit_count() != 2 or gone & ~(a, d)[g.side] or v.undone:
        return None
    steps = {(m.frm, m.to) for m in g.legal_moves() if m.kind == STEP and not m.capture}
    p, q = points(gone)
    x, y = points(new)
    pair = next(((s, t) for s, t in (((p, x), (q, y)), ((p, y), (q, x)))
                 if s in steps and t in steps), None)
    if pair is None:
        return None
    names = g.geometry.point_names
    made = ", ".join(f"{names[f]}-{names[t]}" for f, t in pair)
    return (f"{made}: two soldiers moved at once, but the {TITLE[g.side]} moves one a turn; "
            f"put one of them back where it came from ({names[p]} or {names[q]})")


def _flag_first(g: AnyGame, v: View) -> str | None:
    """The computer's step with the exchange flag, made without the flag
    raised (read as a plain step, which it is not): how to make it."""
    e = v.expected
    if e is None or not e.flag or v.flags[g.side] or v.errors != (1 << e.frm | 1 << e.to):
        return None
    names = g.geometry.point_names
    return (f"{e}: the exchange flag first: put the {TITLE[g.side]}'s soldier back on "
            f"{names[e.frm]}, press Exchange, then make the step to {names[e.to]}")


def _errors(g: AnyGame, v: View) -> str:
    """Each square lit ``error``, named, with what to do there."""
    if v.owed:
        return _taken_back_by_hand(g, v)
    a, d = g.bitboards()
    where = v.targets if v.lifted >= 0 else 0
    many = _too_many(g, v) or _two_at_once(g, v) or _flag_first(g, v)
    if many is not None:
        return many
    told: dict[str, list[str]] = {}  # what to do there -> the squares, in order
    points = g.geometry.point_names
    # The soldier set down where it cannot go: told once, at that square,
    # with its own square as the way back (not a second order to put it back).
    set_down = where and v.errors & ~(a | d) & ~(1 << v.lifted)
    for p in range(len(points)):
        if not v.errors >> p & 1 or (set_down and p == v.lifted):
            continue
        owner = TITLE[0] if a >> p & 1 else TITLE[1]
        if v.seen is not None and (a | d) >> p & 1 and v.seen[a >> p & 1] >> p & 1:
            what = f"wrong side's soldier (the {owner}'s belongs here)"
        elif v.undone >> p & 1 and g.outcome is None:  # once over, what the end asks
            back = f"put the {owner}'s soldier back" if (a | d) >> p & 1 else "take it off"
            what = f"taken back by undo; {back}"
        elif crowning(g, v):
            what = "set the crowned soldier back as a king, with a second soldier on it"
        elif (a | d) >> p & 1:
            # The computer's soldier lifted in the person's chain, its reply to a stop not chosen.
            choosing = v.stop_answered and v.after_pass is None and not (a, d)[g.side] >> p & 1
            why = (THINKING if v.thinking or choosing else "" if v.knocked >> p & 1
                   else _taken_early(g, p, v.errors) or _why_not_lifted(g, p))
            what = f"put the {owner}'s soldier back{why}"
        elif where:  # the soldier from v.lifted set down here (Mismatch.misplaced)
            kind, frm = place(g.geometry.name), points[v.lifted]
            chosen = next((e for e in (v.expected, v.after_pass)
                           if e is not None and e.frm == v.lifted), None)
            head = (f"not the computer's move ({chosen})" if chosen is not None
                    else f"not a legal {kind} for the soldier from {frm}")
            what = (f"{head}: set it on a lit {kind} ({', '.join(names_of(g, where))}), "
                    f"or back on {frm}")
        else:
            why = THINKING if v.thinking else _why_not_placed(g, p)
            what = f"no soldier belongs here{why}; take it off"
        told.setdefault(what, []).append(points[p])
    # Squares with the same words are named together, the words said once
    # ("a1, b1: no soldier belongs here (...); take them off").
    said = [f"{', '.join(names)}: {_plural(what) if len(names) > 1 else what}"
            for what, names in told.items()]
    if len(said) > 3:
        said = [*said[:3], f"and {len(said) - 3} more lit"]
    return "; ".join(said)


def _taken_back_by_hand(g: AnyGame, v: View) -> str:
    """The capturing soldier set back where it came from, the soldiers it
    took already off: set them back to take the capture back, or put the
    rest right to keep it."""
    names = names_of(g, v.owed)
    owner = TITLE[1 - g.history[-1][0].side]
    many = len(names) > 1
    back = (f"{', '.join(names)}: put the {owner}'s soldier{'s' if many else ''} back "
            f"to take the capture{'s' if many else ''} back")
    rest = v.errors & ~v.owed
    if not rest:
        return back
    keep = _errors(g, replace(v, errors=rest, owed=0))
    return f"{back}; or, to keep {'them' if many else 'it'}, {keep}"


def _plural(what: str) -> str:
    """The words of one square said of several."""
    return (what.replace("take it off", "take them off")
            .replace("'s soldier back", "'s soldiers back")
            .replace("capture it,", "capture them,")
            .replace("not this one)", "not these)")
            .replace("wrong side's soldier (the", "wrong side's soldiers (the"))


def _why_not_lifted(g: AnyGame, p: int) -> str:
    """Why the soldier on ``p`` may not move now, when the rules say more
    than "not this one": another soldier must capture again, or the other
    side is to play."""
    if g.outcome is not None:
        return " (the game is over)"
    if g.phase == "setting":
        return " (nothing moves in the setting phase)"
    a, _ = g.bitboards()
    owner = 0 if a >> p & 1 else 1
    if g.chain_square is not None and g.chain_point != p and owner == g.side:
        if g.variant.chain == "optional":
            return (f" (only {g.chain_square} may move now, capturing again; to stop the "
                    f"chain, the {TITLE[1 - g.side]} plays)")
        return f" ({g.chain_square} must capture again)"
    if owner != g.side and g.chain_square is not None and g.variant.chain != "optional":
        return f" (it is the {TITLE[g.side]}'s turn: {g.chain_square} must capture again)"
    if owner != g.side and g.chain_square is None:
        crowned = ": a soldier crowned by a capture ends its turn" if crowned_last(g, p) else ""
        return f" (it is the {TITLE[g.side]}'s turn{crowned})"
    return _capture_first(g, p)


def _taken_early(g: AnyGame, p: int, errors: int) -> str:
    """For an enemy soldier of a leap game missing, with nothing else wrong
    but others like it: " (or capture it, with c3)" where a capture (or
    capture chain) of the side to move takes it (taken off before the
    leap, which is as good as made); " (the huff takes b4, not this one)"
    where a huff is owed of other soldiers."""
    a, d = g.bitboards()
    if not isinstance(g, LeapGame) or errors & ~(a, d)[1 - g.side] or g.outcome is not None:
        return ""
    if g.huff:
        owed = " or ".join(names_of(g, g.huff))
        return "" if g.huff >> p & 1 else f" (the huff takes {owed}, not this one)"
    froms = {m.frm for m in g.legal_moves() if m.kind == STEP and m.capture}
    takers = sorted(g.geometry.point_names[f] for f in froms if chain_takes(g, f, 8) >> p & 1)
    return f" (or capture it, with {' or '.join(takers)})" if takers else ""


def _capture_first(g: AnyGame, p: int) -> str:
    """Where captures are compulsory and one is on: the soldier on ``p``
    may not step, and which soldiers must capture."""
    who = _capturers(g)
    if not who or g.geometry.point_names[p] in who:
        return ""
    return f" (a capture must be made, by {' or '.join(who)})"


def _why_not_placed(g: AnyGame, p: int) -> str:
    """In the setting phase, the rule that keeps a soldier off the empty
    point ``p`` (``(the malha stays empty...)``); otherwise nothing."""
    if not isinstance(g, Game) or g.phase != "setting" or g.outcome is not None:
        return ""
    geo = g.geometry
    if p == geo.centre:
        return " (the malha, the centre square, stays empty until the first move)"
    allowed = placeable(g)
    if allowed >> p & 1 or not allowed:
        return ""
    near = geo.centre_adjacent
    if allowed & ~near == 0 and not near >> p & 1:
        return (f" (the {TITLE[g.side]}'s soldier must go next to the malha, the centre square: "
                f"{', '.join(names_of(g, allowed))})")
    if near >> p & 1 and g.side == 1:
        return (" (the Defender may not close the malha, the centre square, while the Attacker "
                "has no soldier next to it)")
    return ""


class Display:
    """The status line and LEDs last shown, recomputed only when the game
    or the view changed."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._shown: tuple[str, LedMap] = ("", {})

    def show(self, g: AnyGame, v: View) -> tuple[str, LedMap]:
        """The status and a copy of the LED map (the caller may keep it)."""
        key = (id(g), g.ply, g.last_move, g.outcome, v)
        if key != self._key:
            self._key = key
            self._shown = (status(g, v), leds(g, v))
        return self._shown[0], dict(self._shown[1])
