"""Sabouiyya's H'ajeb on the service: the new game's option, the board's
button declaring and rescinding, refusals in words, the end's removals lit."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_clock import FakeClock as Clock

from controller.service.board import BoardService, RequestError
from controller.service.config import Config

DOC = (Path(__file__).resolve().parents[2] / "docs" / "service.md").read_text()

# A diagonal wall with a soldier inside: the Defender may declare, and the
# Attacker can then break in.  (tests/rules/test_hajeb.py)
WALL = "D.DAD/.DA../DA.../AA.../....A d m - 10"
# A fortress: even under H'ajeb the Attacker captures nothing, so H'ajeb
# ends at once with the removals.
FORTRESS = "..D../.DDA./DDA../.A.../A...A d m - 5"
# e3 can be sandwiched: no blockade.
EXPOSED = "D.DAD/.DA../DA..D/AA.../....A d m - 10"


@pytest.fixture
def service(tmp_path: Path):
    clock = Clock()
    s = BoardService(Config(data_dir=tmp_path, settle=0.05, error_delay=0.2,
                            variant="sabouiyya", ponder=False), clock=clock)
    s.clock_ = clock  # type: ignore[attr-defined]
    yield s
    s.close()


def _start(s: BoardService, position: str, options: str = "hajeb=true") -> dict:
    s.new_game("sabouiyya", position=position, options=options)
    s.clock_.t += 0.1  # type: ignore[attr-defined]
    s.tick()  # the board (set up as the position) settles
    return s.state()


def test_the_option_is_offered_for_sabouiyya_only(service: BoardService) -> None:
    state = _start(service, WALL)
    assert state["options"] == "hajeb=true"
    assert state["hajeb"]["state"] == "off" and state["hajeb"]["action"] == "hajeb"
    assert state["hajeb"]["refusal"] is None
    assert _start(service, WALL, "")["hajeb"] is None  # plain sabouiyya
    for variant, options, words in (
            ("kharbga", "hajeb=true", "rule option of sabouiyya, not of kharbga"),
            ("sabouiyya", "hajeb=maybe", "unknown rule option 'hajeb=maybe'"),
            ("sabouiyya", "blocked=remove", "unknown rule option 'blocked=remove'"),
            # Before: H'ajeb off, the first word forgotten.
            ("sabouiyya", "hajeb=true hajeb=false", "rule option 'hajeb' given twice"),
            ("sabouiyya", 7, "options must be text")):
        with pytest.raises(RequestError, match=words) as err:
            service.new_game(variant, options=options)
        assert "\n" not in str(err.value)
    assert service.state()["options"] == ""  # nothing changed by the refusals


def test_the_options_a_new_game_takes_are_the_rules_chosen_options(
        service: BoardService, monkeypatch: pytest.MonkeyPatch) -> None:
    # What the page offers (CHOSEN_OPTIONS) is what the service takes: an
    # option offered for another variant is taken for it too.
    from controller.rules.variants import CHOSEN_OPTIONS

    with pytest.raises(RequestError, match="rule option of sabouiyya, not of khamousiyya"):
        service.new_game("khamousiyya", options="hajeb=true")
    monkeypatch.setitem(CHOSEN_OPTIONS, "khamousiyya", ("hajeb",))
    service.new_game("khamousiyya", options="hajeb=true")
    assert service.state()["options"] == "hajeb=true"
    with pytest.raises(RequestError, match="rule option of sabouiyya, khamousiyya, not of kharbga"):
        service.new_game("kharbga", options="hajeb=true")


def test_declare_and_rescind_with_the_button(service: BoardService) -> None:
    _start(service, WALL)
    service.press("hajeb", "defender")
    state = service.state()
    assert state["moves"][-1] == "hajeb" and state["to_move"] == "attacker"
    assert state["hajeb"]["state"] == "on" and state["hajeb"]["action"] == "rescind"
    assert "orthogonally or diagonally, over empty squares," in state["hajeb"]["allows"]
    assert state["status"] == ("Attacker to move; H'ajeb in force (long moves, captures by "
                               "any soldier)")
    # The Attacker's press changes nothing, and says why.
    service.press("hajeb", "attacker")
    state = service.state()
    assert state["hajeb"]["state"] == "on"
    said = "(only the Defender declares or rescinds H'ajeb)"
    assert state["status"].endswith(f" {said}")
    assert said in " ".join(DOC.split()), f"docs/service.md, H'ajeb: quote {said}"
    service.press("hajeb", "defender")
    state = service.state()
    assert state["moves"][-1] == "rescind" and state["hajeb"]["state"] == "off"
    assert state["hajeb"]["allows"] == ""
    stored = service.store.get(service.gid)
    assert stored is not None and stored.options == "hajeb=true"


def test_a_refused_declaration_gives_its_reason(service: BoardService) -> None:
    state = _start(service, EXPOSED)
    assert "no blockade" in state["hajeb"]["refusal"]
    service.press("hajeb", "defender")
    state = service.state()
    assert "hajeb" not in state["moves"] and "no blockade" in state["status"]
    said = state["status"].split(" (H'ajeb: ", 1)[1].split(" (")[0]
    assert f"(H'ajeb: {said} (...))" in " ".join(DOC.split()), (
        f"docs/service.md, H'ajeb: quote the refusal (H'ajeb: {said} (...))")


def test_the_end_lights_the_removals_with_their_reason(service: BoardService) -> None:
    _start(service, FORTRESS)
    service.press("hajeb", "defender")
    state = service.state()
    h = state["hajeb"]
    assert h["state"] == "end" and h["removals"] == ["a1", "b2", "c3", "d4", "e1"]
    assert all(state["leds"][sq] == "capture" for sq in h["removals"])
    assert "could not capture" in h["reason"] and "two Attacker soldiers" in h["reason"]
    assert h["action"] == "rescind" and "too late" in h["refusal"]
    # The Defender takes a1 off: one more to go, then the Attacker's turn.
    occ = service.sim.occ
    service.set_sim_occupancy("0" + occ[1:])
    service.clock_.t += 0.1  # type: ignore[attr-defined]
    service.tick()
    state = service.state()
    assert state["moves"][-1] == "xa1"
    assert state["hajeb"]["removals"] == ["b2", "c3", "d4", "e1"]
    assert "one more Attacker soldier" in state["hajeb"]["reason"]
