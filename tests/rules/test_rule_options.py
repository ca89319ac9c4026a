"""Every rule option of the Kharbga family (a field of ``Variant``) is
played on both cores and carried by the record: the compiled core reads it
or the game stays on the pure core, each option's case of
option_cases.py changes play alike on both cores, and ``[Options]`` gives
it back.

The tests of what the C is told (``accel.options``, ``accel.fits``) run
without the compiled core; the cases' games play it where it is built."""

from __future__ import annotations

import re
from dataclasses import fields

import pytest
from option_cases import CASES, OPTIONS, WORDS, Case, PureGame, play, start

from controller.rules import accel
from controller.rules.accel_game import CompiledGame
from controller.rules.moves import REASONS
from controller.rules.variants import VARIANTS, Variant, apply_options, find_variant, format_options


def _other(variant: Variant, name: str) -> object:
    """A value of option ``name`` other than ``variant``'s."""
    value = getattr(variant, name)
    if isinstance(value, bool):
        return not value
    if name == "size":
        return 5 if value != 5 else 7
    if isinstance(value, int):  # 0 is off: a count past any setting phase
        return value + 1 if value else 50
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
def test_every_rule_option_and_word_has_a_case_that_changes_play(name: str) -> None:
    values = [c.value for c in CASES if c.option == name]
    assert values, (
        f"rule option {name} has no case in tests/rules/option_cases.py (CASES): add one "
        "with a value that changes play on a base variant (and a position to start from if "
        "random games from the empty board do not show it), so both cores are seen to play it")
    value = getattr(VARIANTS[0], name)
    if isinstance(value, str) and not isinstance(value, bool):
        assert name in WORDS, f"rule option {name} takes a word: list its words in WORDS"
        missing = [w for w in WORDS[name] if w not in values]
        assert not missing, (
            f"rule option {name}: no case in tests/rules/option_cases.py sets it to "
            f"{', '.join(missing)}: add one per word (the compiled core reads each alike)")


def _difference(fast: list[tuple[object, ...]], pure: list[tuple[object, ...]]) -> str:
    """Where two games of option_cases.play part, in a few words."""
    for i, (a, b) in enumerate(zip(fast, pure, strict=False)):
        if a[:3] != b[:3]:
            return f"action {i}: {len(a[0])} actions offered against {len(b[0])}"
        if a != b:
            parts = [f"{f.name} {getattr(a[3], f.name)} against {getattr(b[3], f.name)}"
                     for f in fields(b[3]) if getattr(a[3], f.name) != getattr(b[3], f.name)]
            return f"after action {i}: {'; '.join(parts)}"
    return f"{len(fast)} actions against {len(pure)}"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_every_option_case_changes_play_alike_on_both_cores(case: Case) -> None:
    variant = case.variant
    assert getattr(case.base, case.option) != case.value, f"{case}: the base's own value"
    on_c = accel.AVAILABLE and accel.fits(variant)
    changed = False
    for seed in range(case.games):
        pure = play(start(PureGame, variant, case.position), seed, case.cut)
        if on_c:
            fast = play(start(CompiledGame, variant, case.position), seed, case.cut)
            assert fast == pure, (
                f"rule option {case}, seed {seed}: the compiled core plays otherwise than the "
                f"pure core ({_difference(fast, pure)}): accel.options must tell it to "
                "_ccore_setup (controller/rules/_ccore.c) and _ccore_rules.c play it, or "
                "accel.fits keep such games on the pure core (docs/core.md)")
        changed = changed or pure != play(start(PureGame, case.base, case.position),
                                          seed, case.cut)
    assert changed, (
        f"rule option {case}: {case.games} random games play exactly as {case.base.name}'s "
        f"own: the pure core ignores {case.option} (controller/rules/core.py), or the case in "
        "tests/rules/option_cases.py shows no game where it matters (choose another base, "
        "a position to start from or more games)")


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


NUMBERS = [n for n in OPTIONS if type(getattr(VARIANTS[0], n)) is int]
# The least value of each number option that makes sense: apply_options
# refuses every value below it in one line, but 0 where the option's words
# in Variant's docstring say what 0 means ("(0: never)"). A count of
# repetitions, say, would be at least 2: 1 would end every game at once.
# Least values for VARIANTS[0] (7x7): a turn limit within its 24 setting
# turns would draw the game before a step (5x5: 12, below).
LEAST = {"size": 5, "no_progress_turns": 1, "turn_limit": 25}
_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve "
                 "zeroth first second third fourth fifth sixth seventh eighth ninth tenth "
                 "eleventh twelfth").split()


def _words(name: str) -> str:
    """What Variant's docstring says of option ``name``."""
    _, _, rest = (Variant.__doc__ or "").partition(f"``{name}``\n")
    return rest.split("\n    ``")[0]


@pytest.mark.parametrize("name", NUMBERS)
def test_a_number_option_refuses_the_values_below_its_least_in_one_line(name: str) -> None:
    assert name in LEAST, (
        f"rule option {name}: give its least value that makes sense in LEAST "
        "(tests/rules/test_rule_options.py) and refuse the values below it in apply_options "
        "(controller/rules/variants.py), 0 apart if Variant's docstring says what 0 means")
    base = VARIANTS[0]
    for value in range(LEAST[name]):
        if value == 0 and "(0: " in _words(name):  # "(0: never)": off
            assert getattr(apply_options(base, f"{name}=0"), name) == 0
            continue
        try:
            apply_options(base, f"{name}={value}")
        except ValueError as refused:
            assert str(refused).startswith(f"rule option {name}") and "\n" not in str(refused)
        else:
            pytest.fail(f"rule option {name}={value} is accepted, below its least "
                        f"({LEAST[name]}, LEAST in tests/rules/test_rule_options.py): refuse it "
                        "in apply_options (controller/rules/variants.py)"
                        + ("" if value else ", or say in Variant's docstring what 0 means "
                           f"(as '(0: never)' under ``{name}``)"))
    assert getattr(apply_options(base, f"{name}={LEAST[name]}"), name) == LEAST[name]


def test_the_words_of_an_ending_hold_for_every_value_of_an_option() -> None:
    # "the same position three times" is right while the third repetition
    # ends a game; were the count an option, the words would need to say
    # it from the game's variant, not kharbga's 3.
    for name in NUMBERS:
        for variant in VARIANTS:
            value = getattr(variant, name)
            if not value:  # off
                continue
            said = {str(value), f"{value:,}"}
            if value < 13:
                said |= {_NUMBER_WORDS[value], _NUMBER_WORDS[13 + value]}
                said |= {"twice"} if value == 2 else {"once"} if value == 1 else set()
            for reason, words in REASONS.items():
                named = said & set(re.findall(r"\d[\d,]*\d|\d|[a-z]+", words.lower()))
                assert not named, (
                    f"REASONS[{reason!r}] ({words!r}, controller/rules/moves.py) says "
                    f"{', '.join(named)}: {variant.name}'s {name}, a rule option another game "
                    "may set otherwise; an ending's words must hold for every value")


@pytest.mark.parametrize("name", NUMBERS)
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


def test_a_turn_limit_counts_past_the_setting_phase_of_the_boards_size() -> None:
    # 5x5 sets 12 turns: 12 is refused there, 13 (one step) taken; the size
    # given in the same words counts, whatever their order.
    base = find_variant("sabouiyya")
    with pytest.raises(ValueError, match=r"^rule option turn_limit=12: more than the 12 turns"):
        apply_options(base, "turn_limit=12")
    assert apply_options(base, "turn_limit=13").turn_limit == 13
    with pytest.raises(ValueError, match="more than the 24 turns"):
        apply_options(base, "turn_limit=20 size=7")
    assert apply_options(find_variant("kharbga"), "turn_limit=20 size=5").turn_limit == 20
