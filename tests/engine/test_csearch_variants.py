"""Which variants the C search plays: every variant of the Kharbga family,
so that a variant added to the rules is not left, unnoticed, to the
Python search (tens of times slower at equal time)."""

from __future__ import annotations

from controller.engine import csearch
from controller.rules import VARIANTS


def test_the_c_search_plays_every_variant_of_the_kharbga_family() -> None:
    family = {v.name for v in VARIANTS}
    assert csearch.VARIANTS == family, (
        f"{sorted(family - csearch.VARIANTS)} not played by the C search: check it against "
        "the Python search (tests/engine/test_csearch.py, which plays csearch.VARIANTS) and "
        "add it to csearch.VARIANTS, or say here why it is left to the Python search")
