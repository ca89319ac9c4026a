"""What the page needs to draw a game's board, and the words a player reads.

Every board the service plays (the Kharbga family's 7x7 and 5x5 grids, the
37-point board of Sixteen Soldiers, the 8x8 draughts board) goes to the
page as one plain description: its points with their place in a grid
(``x`` the file, ``y`` the row counted from the top), the lines joining
them where a board has lines to draw, its dark squares, its centre.  The
page draws from this alone, so a new board needs no new page code.
"""

from __future__ import annotations

from typing import Any

from controller.board.geometry import Geometry
from controller.board.leds import MEANINGS, STYLES
from controller.board.words import place
from controller.reconcile.present import end_words
from controller.rules import (
    AnyGame,
    AnyVariant,
    Game,
    LeapVariant,
    Move,
    find_any_variant,
)
from controller.rules.leap_factory import apply_any_options
from controller.rules.moves import SIDE_NAMES, STEP, action_words, outcome_said, reason_words
from controller.rules.record import first_turn, sided_turns
from controller.rules.variants import CHOSEN_OPTIONS, OPTION_WORDS

from .config import THINK_MAX, THINK_MIN, name_problem

__all__ = [
    "Turns",
    "board_view",
    "DRAW_TERMS",
    "computer_draw_answer",
    "check_name",
    "kings",
    "points_of",
    "reason_words",
    "hajeb_view",
    "has_exchange",
    "hint_shown",
    "lit_hint",
    "lights_of",
    "outcome_words",
    "check_level",
    "computer_name",
    "simulated_words",
    "status_words",
    "stored_settings",
    "off_start",
    "waiting_view",
    "with_options",
]

LEVEL_NAMES = {1: "beginner", 2: "casual", 3: "club", 4: "strong", 5: "full strength"}


def computer_name(think: float, level: int) -> str:
    """How the computer's side is named and recorded: "Computer (1 s)" at
    full strength, "Computer (club, level 3, 1 s)" below it."""
    if level >= 5:
        return f"Computer ({think:g} s)"
    return f"Computer ({LEVEL_NAMES[level]}, level {level}, {think:g} s)"


def check_level(level: object) -> int:
    """The computer's level from a request: a whole number 1 to 5."""
    from .simboard import RequestError

    if isinstance(level, bool) or not isinstance(level, int) or level not in LEVEL_NAMES:
        raise RequestError("level must be a whole number from 1 (beginner) to 5 (full strength)")
    return level


def stored_settings(stored: dict[str, object], shown: tuple[str, str]) -> dict[str, object]:
    """The settings a stored game was played with, those that are valid:
    ``names`` (games stored before settings were kept: ``shown``, their
    recorded names), ``computer``, ``think``, ``level`` and ``ponder``."""
    out: dict[str, object] = {"names": shown}
    names = stored.get("names")
    if isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names):
        out["names"] = (names[0], names[1])
    if "computer" in stored:
        computer = stored.get("computer")
        out["computer"] = computer if computer in ("attacker", "defender") else None
    think = stored.get("think")
    if (isinstance(think, int | float) and not isinstance(think, bool)
            and THINK_MIN <= think <= THINK_MAX):
        out["think"] = float(think)
    level = stored.get("level")
    if not isinstance(level, bool) and level in LEVEL_NAMES:
        out["level"] = level
    if isinstance(stored.get("ponder"), bool):
        out["ponder"] = stored["ponder"]
    return out


def outcome_words(result: str, termination: str | None, finished: bool) -> str:
    """How an archived game ended, in words: "Draw (agreed by the players)",
    "Attacker wins (all soldiers captured)", "abandoned" (put aside for a
    new game, unfinished), "not finished" (still in play, or set aside to
    be resumed)."""
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return "abandoned" if finished else "not finished"
    return outcome_said({"1-0": "attacker", "0-1": "defender"}.get(result), termination)


def check_name(label: str, value: object) -> str:
    """A player's name: up to 40 printable characters (no control, format
    or bidi-override characters, no quotes: it goes into the record)."""
    from .simboard import RequestError

    if not isinstance(value, str):
        raise RequestError(f"{label} must be a name (text)")
    value = value.strip()
    problem = name_problem(value)
    if problem is not None:
        raise RequestError(f"{label} {problem}")
    return value


def with_options(variant: AnyVariant, options: object) -> AnyVariant:
    """``variant`` with the rule options a new game may ask for: those
    ``CHOSEN_OPTIONS`` gives its variant (sabouiyya's H'ajeb:
    ``"hajeb=true"``), each true or false; ``ValueError`` in one line."""
    if options is None or options == "":
        return variant
    if not isinstance(options, str):
        raise ValueError('options must be text such as "hajeb=true"')
    offered = {o: name for name, opts in CHOSEN_OPTIONS.items() for o in opts}
    for word in options.split():
        key, _, value = word.partition("=")
        if key not in offered or value not in ("true", "false"):
            asked = " or ".join(f"{o}=true or {o}=false ({name})" for o, name in offered.items())
            raise ValueError(f"unknown rule option {word[:40]!r}: a new game may ask for {asked}")
        if key not in CHOSEN_OPTIONS.get(variant.name, ()):
            whose = ", ".join(n for n, opts in CHOSEN_OPTIONS.items() if key in opts)
            raise ValueError(f"{OPTION_WORDS.get(key, key)} ({key}=...) is a rule option of "
                             f"{whose}, not of {variant.name}")
    return apply_any_options(variant, options)


def points_of(variant: str | AnyVariant) -> int:
    """How many points (sensors) the variant's board has."""
    return int(find_any_variant(variant).geometry.size)


def kings(game: AnyGame) -> list[str]:
    """The points where a king (a crowned soldier) stands."""
    bits = int(getattr(game, "kings", 0) or 0)
    names = game.geometry.point_names
    return [names[i] for i in range(len(names)) if bits >> i & 1]


QUIET_TURNS = 30  # steps without a capture after which the computer, even ahead, takes a draw
# How the computer answers a draw offer, in words (the page asks with them
# before an offer is made).
DRAW_TERMS = (f"it accepts unless it is ahead on pieces (ahead, it accepts once {QUIET_TURNS} "
              "turns go without a capture)")


def quiet_turns(g: AnyGame) -> int:
    """The turns since the last capture (or the last placement): the steps
    at the end of the game that captured nothing, each a turn of its own."""
    n = 0
    for _, move in reversed(g.history):
        if move.kind != STEP or move.capture:
            break
        n += 1
    return n


def computer_draw_answer(g: AnyGame, computer: str | None,
                         offer: str | None) -> tuple[str, str | None] | None:
    """The computer's answer to the other side's draw offer, with its words
    when it declines; None when no offer waits for it.  It takes the draw
    unless it is ahead on pieces (on the board and still to set); ahead, it
    takes it too once :data:`QUIET_TURNS` turns have gone without a capture
    (a locked board, where a lead comes to nothing: khamousiyya and
    sabouiyya have no rule that ends such a game)."""
    if computer is None or offer in (None, computer) or g.outcome is not None:
        return None
    other = 1 - SIDE_NAMES.index(computer)  # pieces still to set count: none is lost yet
    mine, theirs = (g.count(computer) + g.in_hand(computer), g.count(other) + g.in_hand(other))
    quiet = quiet_turns(g)
    if mine <= theirs or quiet >= QUIET_TURNS:
        return "accept", None
    return "decline", (f"{computer.capitalize()} (computer) declines the draw: it is ahead, "
                       f"{mine} pieces to {theirs} (it takes one once {QUIET_TURNS} turns "
                       f"go without a capture: {quiet} so far)")


def has_exchange(variant: AnyVariant) -> bool:
    """Is the two-for-one exchange played (``kharbga`` only)?"""
    return not isinstance(variant, LeapVariant) and variant.exchange


# Looks that the Kharbga family's setting phase never lights (no step,
# capture or exchange is played before the moving phase), and its one look
# that the moving phase never lights (where the next soldier may be set).
_NOT_WHILE_SETTING = {"last-from", "last-to", "destination", "continue", "exchange-request",
                      "exchange", "capture"}

# The looks a game over can still light (controller/reconcile/lights.py
# lights no step, hint, chain, request or setting once the game is over): a
# king standing, the last turn's captures (or exchange) still to remove,
# and a piece out of place (one set where none stood).
_AFTER_THE_END = {"king", "exchange", "capture", "error"}


def lights_of(variant: AnyVariant, phase: str | None = None,
              started: bool = False, over: bool = False) -> dict[str, str]:
    """The looks (the roles, and ``hint-to``) a game of ``variant`` can
    light, in the legend's order, each with its meaning in this game's
    words: every look but a king's where no man is crowned and the
    exchange's two where the exchange is not played; given the game's
    ``phase``, only those that phase lights (the setting's "may be set
    here" in the setting phase only; in the leap games, "set the board up"
    only before the first move, ``started`` False); once the game is
    ``over``, only those its end can light (a king, a capture or exchange
    still to remove, a piece out of place); a capture light says
    "or huffed" only where soldiers are huffed, a chain's light "must" or
    "may" as the rules have it, a place "square" or "point" as the board
    has it."""
    crowned = isinstance(variant, LeapVariant) and variant.kings
    huffing = isinstance(variant, LeapVariant) and variant.huffing
    never = ({"king"} if not crowned else set()) | (
        set() if has_exchange(variant) else {"exchange", "exchange-request"})
    if phase == "setting":
        never |= _NOT_WHILE_SETTING
    elif phase is not None and (started or not isinstance(variant, LeapVariant)):
        never.add("setup")
    if over:
        never |= set(STYLES) - _AFTER_THE_END
    words = dict(MEANINGS)
    words["capture"] = ("captured (or huffed): remove this piece" if huffing
                        else "captured: remove this piece")
    words["continue"] = ("this soldier must capture again" if variant.chain == "mandatory"
                         else "this soldier may capture again (or pass)")
    for look in ("hint-to", "error"):  # "put this point right" on the 37-point board
        words[look] = words[look].replace("square", place(variant.geometry.name))
    if not isinstance(variant, LeapVariant):  # lit in the setting phase: where the rules allow
        words["setup"] = "the next soldier may be set here (the rules keep it off the others)"
    return {look: words[look] for look in STYLES if look not in never}


_VIEWS: dict[str, dict[str, Any]] = {}


def _view(geometry: Geometry) -> dict[str, Any]:
    view = _VIEWS.get(geometry.name)
    if view is None:
        view = _VIEWS[geometry.name] = _make_view(geometry)
    return view


def _make_view(geometry: Geometry) -> dict[str, Any]:
    names = geometry.point_names
    rows = [int(n[1:]) for n in names]
    top = max(rows)
    places = [(n, ord(n[0]) - ord("a"), top - r) for n, r in zip(names, rows, strict=True)]
    grid = geometry.name != "37-point"
    lines: list[list[str]] = []
    if not grid:
        # Each segment once: from a point to its next one along the four
        # directions that point "forwards" (the others are their opposites).
        for d in range(len(geometry.direction_names)):
            if geometry.opposite[d] < d:
                continue
            for i, j in enumerate(geometry.neighbours[d]):
                if j >= 0:
                    lines.append([names[i], names[j]])
    dark = [n for n, x, y in places if (x + (top - 1 - y)) % 2 == 0] \
        if geometry.name == "8x8" else []
    # The malha: the centre of the Kharbga family's boards only.
    centre = names[geometry.centre] if grid and geometry.name != "8x8" else None
    return {
        "name": geometry.name,
        "kind": "grid" if grid else "points",
        "width": max(x for _, x, _ in places) + 1,
        "height": top,
        "points": [list(p) for p in places],
        "lines": lines,
        "dark": dark,
        "centre": centre,
    }


def board_view(game: AnyGame) -> dict[str, Any]:
    """The page's description of ``game``'s board: one shared value per
    board, made once (read it, do not change it; every state carries it,
    and comparing a state with the last one costs nothing for it)."""
    return _view(game.geometry)


HAJEB_ALLOWS = ("the Attacker moves any distance, orthogonally or diagonally, over empty "
                "squares, and after a capture may capture again with any of its soldiers "
                "(or pass); the Defender may rescind it at any time")


def hajeb_view(g: AnyGame, leds: dict[str, str]) -> dict[str, Any] | None:
    """The Defender's H'ajeb for the page (None when the game has no such
    option): the state, the button's action and why it is refused, what
    it allows, and at its end the soldiers to remove (lit ``capture``
    where nothing else is lit, in ``leds``) with the reason."""
    if not isinstance(g, Game) or not g.variant.hajeb:
        return None
    state = g.hajeb
    action = "hajeb" if state == "off" else "rescind"
    refusal = g.hajeb_refusal(action) if g.outcome is None else "the game is over"
    removable: list[str] = []
    reason = ""
    if state == "end" and g.removals and g.outcome is None:
        names = g.geometry.point_names
        removable = sorted({names[m.to] for m in g.legal_moves() if m.kind == "remove"})
        for name in removable:
            leds.setdefault(name, "capture")
        left = sum(1 for r in g.removals if r == g.side)
        if g.to_move == "defender":
            what = "two Attacker soldiers" if left > 1 else "one more Attacker soldier"
            reason = (f"H'ajeb is over (the Attacker could not capture): the Defender "
                      f"removes {what} of its choice, then the Attacker one Defender "
                      f"soldier that can move")
        else:
            reason = ("H'ajeb is over: the Attacker removes one Defender soldier that can "
                      "move, then plays on under the ordinary rules")
    return {"state": state, "action": action, "refusal": refusal,
            "allows": HAJEB_ALLOWS if state == "on" else "",
            "removals": removable, "reason": reason}


def lit_hint(expected: Move | None, hint: list[str],
             leds: dict[str, str]) -> dict[str, str] | None:
    """The lit suggestion's squares, from and to (the page draws them
    apart): the computer's move the person is to make (``expected``), else
    the ``hint``'s squares; None unless one is lit as a hint (the other may
    show a light that outranks it, the exchange's: its end is still the end)."""
    squares = [sq for sq in (expected.from_square, expected.to_square) if sq] \
        if expected is not None else hint
    if not squares or all(leds.get(sq) != "hint" for sq in squares):
        return None
    return {"from": squares[0], "to": squares[-1]} if len(squares) == 2 else {"to": squares[0]}


def hint_shown(hint: str | None, leds: dict[str, str], g: AnyGame) -> bool:
    """Whether the suggested action ``hint`` still stands for the board:
    its squares lit, or a ``pass`` (no square to light) in the chain it was
    for, with nothing lifted or out of place."""
    if not hint or g.outcome is not None:
        return False
    if hint == "pass":
        return g.chain_square is not None and not {"lifted", "error"} & set(leds.values())
    return "hint" in leds.values()


def _hint_words(hint: str, g: AnyGame) -> str:
    # A move of one point is said in words beside its token: "@c2", "xb4" alone say little.
    if hint != "pass":
        return action_words(hint)
    return f"pass (stop the chain here: the {SIDE_NAMES[1 - g.side].capitalize()} plays)"


# What a real board's hands do that the simulated board cannot (it stacks
# no soldiers: the page draws the king), said as on a real board.
_SIMULATED = (
    ("is crowned: set a second soldier on it",
     "is crowned (the page shows its king: on a real board a second soldier is set on it)"),
    ("set the crowned soldier back as a king, with a second soldier on it",
     "set the crowned soldier back (the page keeps it a king)"),
)


def simulated_words(status: str) -> str:
    """The status line for the simulated board: a crowning asks nothing
    it cannot do."""
    for real, simulated in _SIMULATED:
        status = status.replace(real, simulated)
    return status


def status_words(status: str, leds: dict[str, str], g: AnyGame, hint: str | None,
                 note: str | None, draw_offer: str | None,
                 refusal: str | None = None,
                 hint_turn: str | None = None) -> tuple[str, dict[str, str]]:
    """The reconciler's status line and lights as the page shows them:
    the end in words, the lit ``hint`` named (and its whole turn,
    ``hint_turn``, when that goes on past it), H'ajeb's meaning, a draw
    declined or the computer's pass (``note``), a draw offered (``draw_offer``: its side),
    why the last press did nothing (``refusal``: the reconciler says it once, this
    until the board changes)."""
    if refusal:
        status = f"{status} ({refusal})"
    if g.outcome is not None:  # the end is told in words; a hint means nothing
        leds = {sq: role for sq, role in leds.items() if role != "hint"}
        if not status.startswith("Game over"):  # the board differs from the end: said after it
            status = f"{end_words(g)} ({status})"
        return status, leds
    if hint and hint_shown(hint, leds, g):
        status = f"{status}. Hint for {g.to_move.capitalize()}: {_hint_words(hint, g)}"
        if hint_turn:  # a chain's further captures, a setting turn's second placement
            what = "the chain from here" if g.chain_square is not None else "the whole turn"
            status = f"{status}; {what}: {hint_turn}"
    elif "H'ajeb declared" in status:  # what it allows, in short
        status = status.replace("H'ajeb declared", "H'ajeb in force (long moves, "
                                "captures by any soldier)")
    elif note and not draw_offer:
        status = f"{status}. {note}"
    if draw_offer and "offers a draw" not in status:  # beside a hint too: both stand
        other = "defender" if draw_offer == "attacker" else "attacker"
        status = (f"{status}. {draw_offer.capitalize()} offers a draw: "
                  f"{other.capitalize()}: Draw accepts it, a move declines it")
    return status, leds


def waiting_view(g: AnyGame, occupied: int) -> tuple[str, dict[str, str]]:
    """The status line and lights of a new game waiting for the board
    cleared (``occupied``: the board's reading): the soldiers that are not
    the game's start are lit red."""
    extra = off_start(g, occupied)
    names = g.geometry.point_names
    leds = {names[i]: "error" for i in range(g.geometry.size) if extra >> i & 1}
    n = len(leds)
    soldiers = f"{n} soldier{'s' if n != 1 else ''}"
    if g.bitboards() != (0, 0):  # a game whose soldiers start on the board: set up, or clear it
        return (f"New game: set the soldiers on their starting {place(g.geometry.name, 2)} "
                f"or clear the board ({soldiers} off them, lit red)"), leds
    return f"New game: clear the board first ({soldiers} still on it, lit red)", leds


def wait_over(g: AnyGame, saved: tuple[AnyGame, ...], occupied: int) -> bool:
    """Does the reading ``occupied`` end a new game's wait: no soldier off
    the start of ``g`` (the board cleared, or being set up as its start),
    or a game put aside in its moving phase (``saved``) set up again?"""
    boards = [x.bitboards() for x in saved if x.phase == "moving"]
    return not off_start(g, occupied) or any(occupied == a | d for a, d in boards)


def off_start(g: AnyGame, occupied: int) -> int:
    """The points of reading ``occupied`` that hold a soldier off ``g``'s
    board (soldiers standing that are not the new game's)."""
    a, d = g.bitboards()
    return occupied & ~(a | d)


class Turns:
    """A game's numbered record turns for the page, made again only when
    its moves changed (a long game's grouping costs milliseconds; frames
    come every few)."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._shown: list[list[Any]] = []

    def __call__(self, g: AnyGame) -> list[list[Any]]:
        key = (id(g), tuple(g.moves))
        if self._key != key:
            self._key = key
            # Each turn's side: two of one side in a row, the other was blocked.
            first = first_turn(g.variant, g.start_position)
            self._shown = [[n, turn, ("attacker", "defender")[side]]
                           for n, (side, turn) in enumerate(sided_turns(g), first)]
        return [[n, list(turn), side] for n, turn, side in self._shown]
