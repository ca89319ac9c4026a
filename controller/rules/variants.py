"""Variants of the Kharbga family: rule options as data.

A new variant is a new :class:`Variant` value in :data:`VARIANTS`; the move
generators and the endings read these options and nothing else.  There are
two move generators, the pure core's and the compiled one's: a new option
is told to the compiled core by ``accel.options`` or keeps its games off it
in ``accel.fits`` (docs/rules.md, "Variants").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from functools import cached_property

from controller.board.geometry import Geometry, square_grid

from .leap_variants import LEAP_VARIANTS
from .moves import MAX_COUNT

__all__ = ["Variant", "VARIANTS", "find_variant", "format_options", "apply_options"]


@dataclass(frozen=True)
class Variant:
    """The rules of one game of the family.

    ``setting_rule``
        ``"open-first-move"``: the Attacker must be able to make the first
        move (``kharbga``); ``"first-piece-adjacent"``: each player's first
        piece goes next to the centre (Ludii's Khamousiyya); ``"free"``.
    ``compulsory_capture``
        A capturing step must be made when one exists.
    ``chain``
        ``"mandatory"`` or ``"optional"`` (with ``pass``).
    ``refuge``
        A piece on the centre cannot be captured.
    ``exchange``
        The two-for-one exchange with flagged steps.
    ``blocked``
        What happens when the side to move has no step:
        ``"lose"`` (the side that just moved wins), ``"move-again"`` (the
        other side moves again), ``"reopen"`` (it moves again and must open a
        way when it can), ``"remove"`` (the Attacker removes two of its own
        pieces, the Defender one, then the blocked side plays).
    ``blocked_first_turn_defender_wins``
        The Defender wins if it is blocked right after the Attacker's first
        turn of the moving phase.
    ``no_progress_turns``
        Turns without a capture or exchange that end the game by piece
        count (0: never).
    ``repetition``
        The third occurrence of a position (same side to move) ends the
        game by piece count.
    ``win_kinds``
        Results are ``major`` (every enemy piece taken) or ``minor`` (more
        pieces at adjudication).
    ``turn_limit``
        Total turns (setting turns included) after which the game is drawn
        (0: none); more than the setting phase's turns (24 on 7x7).  Ludii
        draws Khamousiyya and Sabou'iyya at 2,500.
    ``hajeb``
        The Defender may declare H'ajeb against a blockade that cannot be
        taken (seed 003; :mod:`.hajeb`).  Off by default, so ``sabouiyya``
        plays as Ludii does; ``sabouiyya`` with ``hajeb=true`` has it.
    """

    name: str
    size: int = 7
    setting_rule: str = "open-first-move"
    compulsory_capture: bool = False
    chain: str = "mandatory"
    refuge: bool = False
    exchange: bool = False
    blocked: str = "move-again"
    blocked_first_turn_defender_wins: bool = False
    no_progress_turns: int = 0
    repetition: bool = False
    win_kinds: bool = False
    turn_limit: int = 0
    hajeb: bool = False
    description: str = ""

    @cached_property
    def geometry(self) -> Geometry:
        return square_grid(self.size)

    @property
    def pieces_per_side(self) -> int:
        return (self.size * self.size - 1) // 2

    def with_options(self, **options: object) -> Variant:
        """A copy with some options changed (``blocked="remove"``, say)."""
        return replace(self, **options)  # type: ignore[arg-type]


KHARBGA = Variant(
    name="kharbga",
    setting_rule="open-first-move",
    compulsory_capture=False,
    chain="mandatory",
    exchange=True,
    blocked="move-again",
    blocked_first_turn_defender_wins=True,
    no_progress_turns=60,
    repetition=True,
    description=("Tunisian Kharbga, 7x7, 24 soldiers a side: captures optional, chains "
                 "compulsory, exchanges; a Defender blocked after the first move wins"),
)

KHARBGA_REFUGE = Variant(
    name="kharbga-refuge",
    setting_rule="open-first-move",
    compulsory_capture=True,
    chain="mandatory",
    refuge=True,
    exchange=False,
    blocked="reopen",
    no_progress_turns=60,
    repetition=True,
    win_kinds=True,
    description=("the French rules, 7x7: captures compulsory, the centre a refuge, "
                 "major and minor wins"),
)

KHAMOUSIYYA = Variant(
    name="khamousiyya",
    setting_rule="first-piece-adjacent",
    compulsory_capture=False,
    chain="optional",
    blocked="lose",
    turn_limit=2500,
    description=("7x7 as the Ludii system plays it: captures and chains optional, "
                 "a side left without a step loses"),
)

SABOUIYYA = replace(
    KHAMOUSIYYA,
    name="sabouiyya",
    size=5,
    description=("5x5, 12 soldiers a side, as the Ludii system plays it: captures and "
                 "chains optional, a side left without a step loses"),
)

VARIANTS: tuple[Variant, ...] = (KHARBGA, KHARBGA_REFUGE, KHAMOUSIYYA, SABOUIYYA)
_BY_NAME = {v.name: v for v in VARIANTS}
# The leap-capture games, named in errors.
_LEAP_NAMES = tuple(v.name for v in LEAP_VARIANTS)
# The rule options a player may switch on when starting a game of a named
# variant (the page's New game form offers them): H'ajeb is sabouiyya's.
CHOSEN_OPTIONS: dict[str, tuple[str, ...]] = {"sabouiyya": ("hajeb",)}
OPTION_WORDS = {"hajeb": "H'ajeb"}  # their names for a player


def find_variant(name: str | Variant) -> Variant:
    """The variant called ``name``; ``ValueError`` naming the known ones."""
    if isinstance(name, Variant):
        return name
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(_BY_NAME)
        if name in _LEAP_NAMES:
            raise ValueError(
                f"variant {name!r} is a leap-capture game, not of the Kharbga family "
                f"({known}): make it with rules.new_game or find_leap_variant"
            ) from None
        raise ValueError(
            f"unknown variant {name!r} (known: {known}; "
            f"leap-capture games: {', '.join(_LEAP_NAMES)})"
        ) from None


_OPTION_NAMES = tuple(f.name for f in fields(Variant) if f.name not in ("name", "description"))


def format_options(variant: Variant) -> str:
    """The options where ``variant`` differs from the named variant, as
    ``key=value`` words (empty when it is the named variant itself)."""
    base = find_variant(variant.name)
    words = []
    for name in _OPTION_NAMES:
        value = getattr(variant, name)
        if value != getattr(base, name):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words.append(f"{name}={text}")
    return " ".join(words)


def option_changes(variant: object, text: str, known: Iterable[str]) -> dict[str, object]:
    """The ``key=value`` words of ``text`` as changes to ``variant``'s
    fields named in ``known``, each read as the field's type (``true`` or
    ``false``, a number, or a word); ``ValueError`` names the word."""
    names = set(known)
    changes: dict[str, object] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or key not in names:
            raise ValueError(f"unknown rule option {word!r}")
        if key in changes:  # "hajeb=true hajeb=false": which is meant?
            raise ValueError(f"rule option {key!r} given twice")
        current = getattr(variant, key)
        if isinstance(current, bool):
            if value not in ("true", "false"):
                raise ValueError(f"rule option {word!r}: true or false")
            changes[key] = value == "true"
        elif isinstance(current, int):
            if not (value.isascii() and value.isdigit()):
                raise ValueError(f"rule option {word!r}: a number")
            if int(value) > MAX_COUNT:  # as a position's counts (the compiled core's)
                raise ValueError(f"rule option {key}: at most {MAX_COUNT:,}")
            changes[key] = int(value)
        else:
            changes[key] = value
    return changes


def apply_options(variant: Variant, text: str) -> Variant:
    """``variant`` with the ``key=value`` words of ``text`` applied."""
    out = variant.with_options(**option_changes(variant, text, _OPTION_NAMES))
    if out.blocked not in ("lose", "move-again", "reopen", "remove"):
        raise ValueError(f"rule option blocked={out.blocked}: lose, move-again, reopen or remove")
    if out.chain not in ("mandatory", "optional"):
        raise ValueError(f"rule option chain={out.chain}: mandatory or optional")
    if out.setting_rule not in ("open-first-move", "first-piece-adjacent", "free"):
        raise ValueError(f"rule option setting_rule={out.setting_rule}: unknown")
    if out.size not in (5, 7, 9):
        raise ValueError(f"rule option size={out.size}: 5, 7 or 9")
    if 0 < out.turn_limit <= out.pieces_per_side:  # the game drawn before a step
        raise ValueError(f"rule option turn_limit={out.turn_limit}: more than the "
                         f"{out.pieces_per_side} turns of the setting phase (0: none)")
    return out
