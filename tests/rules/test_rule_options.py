"""Every rule option of the Kharbga family (a field of ``Variant``) is
played on both cores and carried by the record: the compiled core reads it
or the game stays on the pure core, and ``[Options]`` gives it back.

These run without the compiled core: they check the Python that decides
what the C is told (``accel.options``, ``accel.fits``), not the C."""

from __future__ import annotations

from dataclasses import fields

import pytest

from controller.rules import accel
from controller.rules.variants import VARIANTS, Variant, apply_options, format_options

OPTIONS = [f.name for f in fields(Variant) if f.name not in ("name", "description")]
# The values of the options that take a word (any other word is refused).
WORDS = {
    "setting_rule": ("open-first-move", "first-piece-adjacent", "free"),
    "chain": ("mandatory", "optional"),
    "blocked": ("lose", "move-again", "reopen", "remove"),
}


def _other(variant: Variant, name: str) -> object:
    """A value of option ``name`` other than ``variant``'s."""
    value = getattr(variant, name)
    if isinstance(value, bool):
        return not value
    if name == "size":
        return 5 if value != 5 else 7
    if isinstance(value, int):
        return value + 1
    return next((w for w in WORDS.get(name, ()) if w != value), f"{value}-other")


def _told(variant: Variant) -> tuple[int, ...] | None:
    """What the compiled core is told of ``variant`` (None: not played there)."""
    if not accel.fits(variant):
        return None
    try:
        return accel.options(variant)
    except ValueError:  # a word accel.options does not know: it reads the option
        return ()


@pytest.mark.parametrize("name", OPTIONS)
@pytest.mark.parametrize("base", VARIANTS, ids=lambda v: v.name)
def test_the_compiled_core_plays_every_rule_option_or_leaves_it_to_the_pure_one(
        base: Variant, name: str) -> None:
    changed = base.with_options(**{name: _other(base, name)})
    told = _told(changed)
    assert told is None or told != _told(base), (
        f"rule option {name}: a game with {name}={getattr(changed, name)} would run on the "
        f"compiled core, which is not told of it (it plays {base.name} without it): pass it "
        "in accel.options (and read it in _ccore_setup, controller/rules/_ccore.c), or keep "
        "such games on the pure core in accel.fits (docs/core.md, 'Which core runs')")


@pytest.mark.parametrize("name", OPTIONS)
@pytest.mark.parametrize("base", VARIANTS, ids=lambda v: v.name)
def test_a_record_s_options_give_back_every_rule_option(base: Variant, name: str) -> None:
    changed = base.with_options(**{name: _other(base, name)})
    words = format_options(changed)
    assert words.startswith(f"{name}="), (
        f"rule option {name}: [Options] does not write it ({words!r}): a game record "
        "would lose it (variants.format_options)")
    assert apply_options(base, words) == changed, (
        f"rule option {name}: [Options \"{words}\"] does not read back (variants.apply_options)")


@pytest.mark.parametrize("name", [n for n in OPTIONS if type(getattr(VARIANTS[0], n)) is int])
def test_a_number_option_beyond_any_count_or_not_in_ascii_digits_is_refused(name: str) -> None:
    # 10**20 overflowed the compiled core's integers (an OverflowError, where
    # the pure core took it); a superscript two passed isdigit() and int()
    # refused it in Python's words.
    from controller.rules import new_game
    from controller.rules.moves import MAX_COUNT

    base = VARIANTS[0]
    with pytest.raises(ValueError, match=f"rule option {name}: at most 1,000,000"):
        apply_options(base, f"{name}={10**20}")
    with pytest.raises(ValueError, match=f"rule option '{name}=²': a number"):
        apply_options(base, f"{name}=²")
    if name != "size":
        top = apply_options(base, f"{name}={MAX_COUNT}")
        assert getattr(top, name) == MAX_COUNT
        game = new_game(top)  # whichever core plays it
        game.play(str(game.legal_moves()[0]))
        assert game.outcome is None
