"""One door for both rules families: a game or a variant from a name.

``new_game(name)`` and ``game_from_position(name, text)`` make a
:class:`~.game.Game` for the Kharbga family and a
:class:`~.leap.LeapGame` for the leap-capture games; records, the
reconciler and the simulator make their games here.  ``Game.new`` and
``find_variant`` stay Kharbga only (``find_variant`` of a leap name is a
``ValueError`` pointing here), so code that needs a Kharbga ``Variant``
(its ``size``, its setting rules) never receives a leap one.
"""

from __future__ import annotations

from dataclasses import fields

from controller.board.words import said

from .game import Game
from .leap import LeapGame
from .leap_variants import LEAP_VARIANTS, LeapVariant, find_leap_variant
from .variants import Variant, apply_options, find_variant, format_options, option_changes

__all__ = [
    "AnyGame",
    "AnyVariant",
    "apply_any_options",
    "find_any_variant",
    "format_any_options",
    "game_from_position",
    "is_leap",
    "make_game",
    "new_game",
]

AnyVariant = Variant | LeapVariant
AnyGame = Game | LeapGame

_LEAP_NAMES = frozenset(v.name for v in LEAP_VARIANTS)
_LEAP_OPTIONS = tuple(f.name for f in fields(LeapVariant) if f.name not in ("name", "description"))


def is_leap(variant: str | AnyVariant) -> bool:
    """Is ``variant`` (a name or a variant) one of the leap-capture games?"""
    if isinstance(variant, str):
        return variant in _LEAP_NAMES
    return isinstance(variant, LeapVariant)


def find_any_variant(name: str | AnyVariant) -> AnyVariant:
    """The variant of either family called ``name``; ``ValueError`` naming
    every known one."""
    if isinstance(name, (Variant, LeapVariant)):
        return name
    if name in _LEAP_NAMES:
        return find_leap_variant(name)
    return find_variant(name)


def new_game(variant: str | AnyVariant = "kharbga") -> AnyGame:
    """A game at its start: an empty board (Kharbga) or the soldiers in
    their starting places (leap games)."""
    v = find_any_variant(variant)
    return LeapGame.new(v) if isinstance(v, LeapVariant) else Game.new(v)


def game_from_position(variant: str | AnyVariant, position: str) -> AnyGame:
    """A game of either family from a position string."""
    v = find_any_variant(variant)
    if isinstance(v, LeapVariant):
        return LeapGame.from_position(v, position)
    return Game.from_position(v, position)


def make_game(variant: str | AnyVariant, position: str | None = None) -> AnyGame:
    """A game of either rules family at its start or from ``position``;
    ``ValueError`` in one line (an unknown variant, or a position that
    does not fit the variant's board, named)."""
    v = find_any_variant(variant)
    if position is None:
        return new_game(v)
    try:
        return game_from_position(v, position)
    except ValueError as exc:
        board = v.geometry.name
        text = said(exc)
        if board not in text:
            text = f"{text} (variant {v.name} is played on the {board} board)"
        raise ValueError(text) from None


def format_any_options(variant: AnyVariant) -> str:
    """The ``key=value`` words where ``variant`` differs from its named
    variant (empty when it is the named one)."""
    if isinstance(variant, Variant):
        return format_options(variant)
    base = find_leap_variant(variant.name)
    words = []
    for key in _LEAP_OPTIONS:
        value = getattr(variant, key)
        if value != getattr(base, key):
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words.append(f"{key}={text}")
    return " ".join(words)


def apply_any_options(variant: AnyVariant, text: str) -> AnyVariant:
    """``variant`` with the ``key=value`` words of ``text`` applied;
    ``ValueError`` for an unknown option or value."""
    if isinstance(variant, Variant):
        return apply_options(variant, text)
    try:
        changes = option_changes(variant, text, _LEAP_OPTIONS)
    except ValueError as exc:
        raise ValueError(f"{exc} for variant {variant.name}") from None
    return variant.with_options(**changes)
