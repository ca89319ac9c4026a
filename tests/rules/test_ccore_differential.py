"""The compiled core (controller/rules/_ccore.c through rules.accel)
against the pure-Python core, decision by decision over thousands of
seeded random games of every variant and rule option: the same legal
actions in the same order, the same moves, states, undo entries and
results, with undo along the way and from positions set directly."""

from __future__ import annotations

import random

import pytest

from controller.rules import accel
from controller.rules.core import Core
from controller.rules.moves import Termination
from controller.rules.variants import Variant, find_variant

pytestmark = pytest.mark.skipif(
    not accel.AVAILABLE,
    reason="the compiled core is not built (no C compiler or Python headers at install)",
)

KH = find_variant("kharbga")
RF = find_variant("kharbga-refuge")
KM = find_variant("khamousiyya")
VARIANTS: dict[str, Variant] = {
    "kharbga": KH,
    "kharbga-refuge": RF,
    "refuge-remove": RF.with_options(blocked="remove"),
    "refuge-move-again": RF.with_options(blocked="move-again", refuge=False),
    "khamousiyya": KM,
    "sabouiyya": find_variant("sabouiyya"),
    "kharbga-free-optional": KH.with_options(setting_rule="free", chain="optional",
                                             no_progress_turns=12),
    "kharbga-lose-compulsory": KH.with_options(blocked="lose", compulsory_capture=True,
                                               blocked_first_turn_defender_wins=False),
    "khamousiyya-short": KM.with_options(turn_limit=60, repetition=True, win_kinds=True),
    "sabouiyya-remove": find_variant("sabouiyya").with_options(blocked="remove", refuge=True),
}
GAMES = 200  # per variant, each cut at CUT actions
CUT = 120
WHOLE = 6  # per variant, played to the end


def _moves(core: Core | accel.CompiledCore) -> list[tuple[object, ...]]:
    return [(m.kind, m.frm, m.to, m.capture, m.flag, str(m)) for m in core._generated()[1]]


def _same(fast: accel.CompiledCore, pure: Core, where: str) -> None:
    raws = pure._generated()[0]
    assert fast._generated()[0] == raws, where
    assert _moves(fast) == _moves(pure), where
    assert fast.state() == pure.state(), where
    assert fast._outcome == pure._outcome, where
    assert fast._bb == pure._bb and fast._side == pure._side, where


def _play_both(variant: Variant, seed: int, limit: int) -> tuple[int, Core, accel.CompiledCore]:
    rng = random.Random(seed)
    fast, pure = accel.CompiledCore(variant), Core(variant)
    played = 0
    while pure._outcome is None and played < limit:
        where = f"{variant.name} seed {seed} action {played}"
        _same(fast, pure, where)
        raws = pure._generated()[0]
        raw = raws[rng.randrange(len(raws))]
        if rng.random() < 0.5:  # the raw as the pure core made it, or by its parts
            fast._do(raw)
        else:
            fast._do(fast._raw_step(raw[0], raw[1], raw[2], raw[4]))
        pure._do(raw)
        played += 1
        if rng.random() < 0.05:  # undo, compare, play it again
            assert fast._undo_one() == pure._undo_one() == raw, where
            _same(fast, pure, f"{where} (undone)")
            fast._do(raw)
            pure._do(raw)
    _same(fast, pure, f"{variant.name} seed {seed} end")
    return played, pure, fast


@pytest.mark.parametrize("name", VARIANTS)
def test_cut_games_match_the_pure_core(name: str) -> None:
    total = sum(_play_both(VARIANTS[name], seed, CUT)[0] for seed in range(GAMES))
    assert total > GAMES * 50


@pytest.mark.parametrize("name", VARIANTS)
def test_whole_games_match_to_the_result(name: str) -> None:
    variant = VARIANTS[name]
    reasons = set()
    for seed in range(5_000, 5_000 + WHOLE):
        _, pure, fast = _play_both(variant, seed, 10**6)
        assert pure._outcome is not None and fast._outcome == pure._outcome
        assert fast._generated() == ([], [])
        assert list(fast._undo) == pure._undo  # every undo entry, field by field
        reasons.add(pure._outcome.reason)
        while pure._undo:  # all the way back to the empty board
            assert fast._undo_one() == pure._undo_one()
        assert fast.state() == pure.state() == Core(variant).state()
    assert reasons


def _settle(core: Core | accel.CompiledCore) -> None:
    """What Game does with a position read from a string."""
    if not core._removals and core._chain < 0:
        core._start_turn(1 - core._side)
    a, d = core._bb
    if a == 0 or d == 0:
        core._finish(1 if a == 0 else 0, Termination.ALL_CAPTURED)
    core._count_position()


@pytest.mark.parametrize("name", VARIANTS)
def test_restored_states_continue_alike(name: str) -> None:
    variant = VARIANTS[name]
    rng = random.Random(11)
    for seed in range(30):
        _, pure, _ = _play_both(variant, seed, rng.randrange(20, 160))
        state = pure.state()
        fast, again = accel.CompiledCore(variant), Core(variant)
        fast._restore(state)
        again._restore(state)
        assert fast.state() == state
        if not state.setting:
            _settle(fast)
            _settle(again)
        for i in range(80):
            _same(fast, again, f"{name} seed {seed} restored, action {i}")
            if again._outcome is not None:
                break
            raws = again._generated()[0]
            raw = raws[rng.randrange(len(raws))]
            fast._do(raw)
            again._do(raw)


def _perft(core: Core, depth: int) -> int:
    raws = core._generated()[0]
    if depth == 1:
        return len(raws)
    total = 0
    for raw in list(raws):
        core._do(raw)
        total += _perft(core, depth - 1)
        core._undo_one()
    return total


@pytest.mark.parametrize("name", ["kharbga", "kharbga-refuge", "refuge-remove", "khamousiyya"])
def test_perft_counts_agree(name: str) -> None:
    variant = VARIANTS[name]
    for seed in range(8):
        _, pure, fast = _play_both(variant, 900 + seed, 60 + 7 * seed)
        if pure._outcome is not None:
            continue
        before = fast.state()
        assert fast.perft(3) == _perft(pure, 3) > 0
        assert fast.state() == before and fast._ply == len(pure._undo)


def test_playouts_leave_the_game_as_it_was_and_end_every_game() -> None:
    _, _, fast = _play_both(KM, 3, 70)
    before, ply = fast.state(), fast._ply
    actions, a, d, draws = fast.playouts(200, 1)
    assert a + d + draws == 200 and a > 0 and d > 0
    assert actions > 200 * 20
    assert fast.state() == before and fast._ply == ply
    assert fast.playouts(200, 1) == (actions, a, d, draws)  # seeded
    assert fast.playouts(200, 2) != (actions, a, d, draws)


def test_a_copy_plays_on_independently() -> None:
    _, pure, fast = _play_both(KH, 21, 90)
    other = accel.CompiledCore(KH)
    fast._copy_core_to(other)
    state, undo = fast.state(), list(fast._undo)
    assert other.state() == state and list(other._undo) == undo
    rng = random.Random(5)
    for _ in range(40):
        if pure._outcome is not None:
            break
        raws = pure._generated()[0]
        raw = raws[rng.randrange(len(raws))]
        other._do(raw)
        pure._do(raw)
        _same(other, pure, "copy")
    assert other.state() != state  # the copy played on, and the original stayed put
    assert fast.state() == state and list(fast._undo) == undo


def test_endings_by_the_players_are_undone_like_actions() -> None:
    _, pure, fast = _play_both(RF, 4, 100)
    before = fast.state()
    marker = (Termination.AGREEMENT.value, -1, -1, 0, False)
    fast._push_marker(marker)
    fast._finish(None, Termination.AGREEMENT, minor=False)
    assert fast._outcome is not None and fast._outcome.winner is None
    assert fast._generated() == ([], [])
    assert fast._undo[-1][13] == marker
    assert fast._undo_one() == marker
    assert fast.state() == before


def test_malformed_raw_actions_are_refused_with_a_value_error() -> None:
    fast = accel.CompiledCore(KH)
    for bad in ((), ("step", 0, 99, 0, False), ("place", -1, 64, 0, False), "c4-d4",
                ("step", 0, 1, -1, False), ("step", "a", 1, 0, False)):
        with pytest.raises(ValueError):
            fast._do(bad)  # type: ignore[arg-type]
    assert fast.state() == Core(KH).state() and fast._ply == 0


def test_the_choice_of_core() -> None:
    big = KH.with_options(size=9)
    assert accel.core_class(big) is Core  # 81 points: more than 64 bits
    with pytest.raises(ValueError):
        accel.CompiledCore(big)
    assert accel.core_class("kharbga") is accel.CompiledCore


def test_kharbga_pure_selects_the_pure_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KHARBGA_PURE", "1")
    assert accel.core_class("khamousiyya") is Core
    monkeypatch.setenv("KHARBGA_PURE", "0")
    assert accel.core_class("khamousiyya") is accel.CompiledCore


def test_hajeb_is_left_to_the_pure_core() -> None:
    sab = find_variant("sabouiyya")
    if "hajeb" not in Variant.__dataclass_fields__:
        pytest.skip("no H'ajeb option in this version of the rules")
    with_hajeb = sab.with_options(hajeb=True)
    assert accel.core_class(with_hajeb) is Core
    with pytest.raises(ValueError):
        accel.CompiledCore(with_hajeb)


def test_play_move_finds_a_legal_move_by_identity_or_value() -> None:
    rng = random.Random(8)
    fast, pure = accel.CompiledCore(KM), Core(KM)
    for i in range(400):
        if pure._outcome is not None:
            break
        moves = fast._generated()[1]
        k = rng.randrange(len(moves))
        m = moves[k]
        if i % 2:  # an equal Move that is not the shared one
            m = type(m)(m.kind, m.to, m.frm, m.capture, m.flag, m.names)
        raw = pure._generated()[0][k]
        assert fast._play_move(m) is True
        pure._do(raw)
        _same(fast, pure, f"action {i}")
    stranger = type(moves[0])("step", 0, 48, False, False, moves[0].names)
    before = fast.state()
    assert fast._play_move(stranger) is False and fast.state() == before
