"""Position builders shared by the rules tests.

Positions are written as two lists of squares (``"c4 e4"``) and the tail of
the position string (side, phase, chain square, turn and any extra fields),
so a test shows only the squares that matter.
"""

from __future__ import annotations

from controller.rules import Game

FILES = "abcdefg"
SQUARES = [f"{f}{r}" for r in range(1, 8) for f in FILES]
CENTRE = "d4"
NEAR_CENTRE = ("d5", "c4", "e4", "d3")


def board(a: str = "", d: str = "") -> str:
    """The board field of a position string: ``a``/``d`` list the squares of
    the Attacker's and the Defender's pieces; every other square is empty."""
    attackers, defenders = set(a.split()), set(d.split())
    assert not attackers & defenders, f"squares on both sides: {attackers & defenders}"
    unknown = (attackers | defenders) - set(SQUARES)
    assert not unknown, f"not squares: {unknown}"
    ranks = []
    for r in range(7, 0, -1):
        row = ""
        for f in FILES:
            sq = f"{f}{r}"
            row += "A" if sq in attackers else "D" if sq in defenders else "."
        ranks.append(row)
    return "/".join(ranks)


def pos(a: str = "", d: str = "", tail: str = "a m - 5") -> str:
    """A whole position string: the board of :func:`board` and ``tail``."""
    return f"{board(a, d)} {tail}"


def filled(a: str = "", d: str = "", empty: str = CENTRE, attackers: int = 24) -> tuple[str, str]:
    """Square lists for a crowded board: the squares in ``a`` and ``d`` as
    given, the squares in ``empty`` left empty, every other square filled in
    board order (a1, b1, .., g7) with Attacker pieces until the Attacker has
    ``attackers`` pieces, then with Defender pieces."""
    fixed_a, fixed_d, holes = a.split(), d.split(), set(empty.split())
    free = [s for s in SQUARES if s not in holes and s not in fixed_a and s not in fixed_d]
    extra = max(0, attackers - len(fixed_a))
    return " ".join(fixed_a + free[:extra]), " ".join(fixed_d + free[extra:])


def setting_pos(a: str = "", d: str = "", empty: str = "", attackers: int = 24) -> str:
    """A setting-phase position: :func:`filled` with ``empty`` (and the
    centre) empty; the side to place follows from the piece counts."""
    sa, sd = filled(a, d, f"{CENTRE} {empty}", attackers)
    placed = len(sa.split()) + len(sd.split())
    side = "ad"[(placed // 2) % 2]
    return pos(sa, sd, f"{side} s - 0")


def legal(game: Game) -> list[str]:
    """The legal actions of ``game`` in notation, sorted."""
    return sorted(str(m) for m in game.legal_moves())


def undo_restores(game: Game, move: str) -> str:
    """Play ``move``, check that :meth:`Game.pop` gives back the exact
    position and the same legal actions, play it again; returns the position
    after the move."""
    before, moves_before = game.position(), legal(game)
    game.play(move)
    after = game.position()
    outcome = game.outcome
    assert str(game.pop()).replace("x", "-") == move.replace("x", "-")
    assert game.position() == before
    assert game.outcome is None
    assert legal(game) == moves_before
    game.play(move)
    assert game.position() == after
    assert game.outcome == outcome
    return after
