"""Matches between players: the engine, a random player and a greedy one.

``python -m controller.engine.match --variant khamousiyya --games 20
--a engine:0.1 --b greedy`` plays 20 games, the players changing colours
every game, and prints A's wins, draws and losses with a 95% Wilson
interval on A's score (a draw counts half).  Games longer than ``--cap``
turns of the moving phase are adjudicated by piece count.

Players: ``random`` (uniform over legal actions), ``greedy`` (the action
capturing the most pieces at once, random tie-break), ``engine:SECONDS``
or ``engine:SECONDS:LEVEL`` (:func:`~controller.engine.best_move`), and
``baseline:SECONDS``: an earlier version of this engine, imported as the
package ``engine_round1`` from the directory named by the environment
variable ``KHARBGA_ENGINE_BASELINE`` (``scripts/engine_vs_baseline.py``
extracts it from a git tag), so both engines play on the same rules core
in the same run.  Every game is deterministic under ``--seed`` except for
the engine's time-bounded depth.

``--opening N`` pairs the games: each pair starts from the same ``N``
random setting-phase placements (from the seed), A playing the Attacker in
the first game of the pair and the Defender in the second.  With
``--balanced`` an opening is drawn again (the next seed of the pair) until
a fixed search (:data:`BALANCE_NODES` nodes, :data:`BALANCE_NODES_LEAP`
in the leap games, whose search runs in Python; one thread, the same on
any machine) scores it within :data:`BALANCE_LIMIT` of even for the Attacker:
no forced block after the first move and no side a piece or more ahead
already.  A pair from a decided opening splits by colour whatever the
players' strength, so it only pulls a score towards 50% (docs/engine.md).
``--opening setting`` makes the whole setting phase the opening: the
players then meet at the first step, and the match measures the moving
phase alone.
The result line also gives A's games as the Defender (the second player).
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from controller.board.config import OneLineParser
from controller.rules import Game, find_variant
from controller.rules.leap import LeapGame
from controller.rules.leap_variants import LEAP_VARIANTS

from .api import LEVELS, MAX_SECONDS, MAX_THREADS, best_move
from .negamax import AnyGame

__all__ = [
    "Player",
    "new_game",
    "make_player",
    "play_game",
    "game_after",
    "MatchResult",
    "run_match",
    "run_match_parallel",
    "opening",
    "balanced_opening",
    "WHOLE_SETTING",
    "pair_start",
    "opening_length",
    "describe_opening",
    "BALANCE_NODES",
    "BALANCE_NODES_LEAP",
    "balance_nodes",
    "BALANCE_LIMIT",
    "baseline_player",
    "wilson",
    "main",
]

Raw = tuple[str, int, int, int, bool]
Player = Callable[[AnyGame, random.Random], Raw]


def random_player(game: AnyGame, rng: random.Random) -> Raw:
    moves = game.raw_moves()
    return moves[int(rng.random() * len(moves))]


def greedy_player(game: AnyGame, rng: random.Random) -> Raw:
    """Most pieces captured by this action; random among the ties."""
    moves = game.raw_moves()
    best = max(m[3].bit_count() for m in moves)
    top = [m for m in moves if m[3].bit_count() == best]
    return top[int(rng.random() * len(top))]


def engine_player(seconds: float, level: int | None = None, threads: int = 1) -> Player:
    def play(game: AnyGame, rng: random.Random) -> Raw:
        r = best_move(game, seconds, seed=rng.getrandbits(32), level=level, threads=threads)
        m = r.move
        assert m is not None
        return (m.kind, m.frm, m.to, 0, m.flag)

    return play


BASELINE_ENV = "KHARBGA_ENGINE_BASELINE"
BASELINE_PACKAGE = "engine_round1"


def baseline_player(seconds: float) -> Player:
    """The earlier engine (package ``engine_round1`` under the directory in
    ``$KHARBGA_ENGINE_BASELINE``) at ``seconds`` an action."""
    import importlib
    import os
    import sys

    where = os.environ.get(BASELINE_ENV)
    if not where or not os.path.isdir(os.path.join(where, BASELINE_PACKAGE)):
        raise ValueError(f"baseline player: set {BASELINE_ENV} to a directory holding the "
                         f"package {BASELINE_PACKAGE} (scripts/engine_vs_baseline.py does)")
    if where not in sys.path:
        sys.path.insert(0, where)
    api = importlib.import_module(f"{BASELINE_PACKAGE}.api")

    def play(game: AnyGame, rng: random.Random) -> Raw:
        r = api.best_move(game, seconds, seed=rng.getrandbits(32))
        m = r.move
        assert m is not None
        return (m.kind, m.frm, m.to, 0, m.flag)

    return play


def make_player(spec: str) -> Player:
    """``random``, ``greedy``, ``engine:SECONDS[:LEVEL[:THREADS]]`` or
    ``baseline:SECONDS``."""
    name, colon, rest = spec.partition(":")
    if colon and not rest:  # "engine:", its time left out
        raise ValueError(f"bad player {spec!r}: a time after the colon "
                         "(engine:SECONDS[:LEVEL[:THREADS]], baseline:SECONDS)")
    parts = rest.split(":") if rest else []
    try:
        seconds = float(parts[0]) if parts else 0.1
        level = int(parts[1]) if len(parts) > 1 else None
        threads = int(parts[2]) if len(parts) > 2 else 1
    except ValueError:
        raise ValueError(f"bad player {spec!r}: engine:SECONDS[:LEVEL[:THREADS]]") from None
    if parts and not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"player {spec!r}: the time must be more than 0 and at most "
                         f"{MAX_SECONDS:g} seconds")
    if level is not None and level not in LEVELS:
        raise ValueError(f"player {spec!r}: the level must be one of "
                         f"{', '.join(map(str, LEVELS))}")
    if not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"player {spec!r}: the threads must be 1 to {MAX_THREADS}")
    if name == "random" and not parts:
        return random_player
    if name == "greedy" and not parts:
        return greedy_player
    if name == "engine" and len(parts) <= 3:
        return engine_player(seconds, level, threads)
    if name == "baseline" and len(parts) <= 1:
        return baseline_player(seconds)
    raise ValueError(f"unknown player {spec!r}: random, greedy, engine:SECONDS[:LEVEL[:THREADS]], "
                     "baseline:SECONDS")


LEAP_NAMES = tuple(v.name for v in LEAP_VARIANTS)


def new_game(variant: str) -> AnyGame:
    """The starting position of a variant of either family."""
    if variant in LEAP_NAMES:
        return LeapGame.new(variant)
    return Game.new(variant)


WHOLE_SETTING = 10_000
MAX_OPENING = 200  # random actions at most in a leap game's opening
MAX_GAMES = 100_000  # games, and turns before adjudication, at most
"""An opening length beyond any setting phase: the opening is then the
whole setting phase, and the players start at the first step."""


def opening_length(text: str) -> int:
    """``--opening``'s value: a number of placements, or ``setting`` for
    :data:`WHOLE_SETTING`."""
    if text == "setting":
        return WHOLE_SETTING
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"--opening: a number of placements or 'setting', not {text!r}") \
            from None
    if n < 0:
        raise ValueError(f"--opening: at least 0, not {n}")
    return n


def describe_opening(actions: int) -> str:
    """``the whole setting phase`` or ``N placements``."""
    return "the whole setting phase" if actions >= WHOLE_SETTING else f"{actions} placements"


def game_after(variant: str, start: Sequence[Raw] | None) -> AnyGame:
    """A new game of ``variant`` with the actions ``start`` played."""
    game = new_game(variant)
    for kind, frm, to, _, flag in start or ():
        game.push(kind, frm, to, flag)
    return game


def opening(variant: str, actions: int, seed: int) -> list[Raw]:
    """``actions`` random legal actions from the start (setting-phase
    placements in the Kharbga family; the whole setting phase and no more
    when it is shorter), the same for the same seed."""
    if actions >= WHOLE_SETTING and variant in LEAP_NAMES:
        raise ValueError(f"{variant} has no setting phase: give --opening a number")
    rng = random.Random(f"opening|{variant}|{seed}")
    game = new_game(variant)
    out: list[Raw] = []
    while len(out) < actions and game.outcome is None and (
        isinstance(game, LeapGame) or game.setting
    ):
        m = random_player(game, rng)
        game.push(m[0], m[1], m[2], m[4])
        out.append(m)
    return out


BALANCE_NODES = 2_000_000
BALANCE_NODES_LEAP = 200_000
BALANCE_LIMIT = 100
BALANCE_TRIES = 200


def balance_nodes(variant: str) -> int:
    """The nodes of the balance search in ``variant``: :data:`BALANCE_NODES`,
    or :data:`BALANCE_NODES_LEAP` in the leap games, whose search has no
    compiled core (about 20,000 nodes/s: 200,000 nodes take 8-11 s a try
    there, 2,000,000 would take about 100 s)."""
    return BALANCE_NODES_LEAP if variant in LEAP_NAMES else BALANCE_NODES


def opening_score(variant: str, start: list[Raw], nodes: int | None = None) -> int:
    """The score of the position after ``start`` for the Attacker (hundredths
    of a piece), from a search bounded by ``nodes`` (deterministic; by
    default :func:`balance_nodes`)."""
    nodes = balance_nodes(variant) if nodes is None else nodes
    game = game_after(variant, start)
    if game.outcome is not None:
        return 0 if game.outcome.winner is None else (
            1 if game.outcome.winner == "attacker" else -1) * 1_000_000
    r = best_move(game, 600.0, max_nodes=nodes)
    return r.score if game.side == 0 else -r.score


def balanced_opening(variant: str, actions: int, seed: int, nodes: int | None = None,
                     limit: int = BALANCE_LIMIT) -> list[Raw]:
    """The first opening of ``actions`` random placements, among the seeds
    ``seed``, ``seed + P``, ``seed + 2P``... (``P`` a large prime), that a search of ``nodes``
    scores within ``limit`` of even for the Attacker."""
    for k in range(BALANCE_TRIES):
        start = opening(variant, actions, seed + k * 1_000_000_007)
        if abs(opening_score(variant, start, nodes)) <= limit:
            return start
    raise ValueError(f"no balanced opening of {actions} placements in {variant} "
                     f"after {BALANCE_TRIES} tries (seed {seed}): random openings of that "
                     "length are decided; give fewer placements or the whole setting phase")


def start_of(variant: str, actions: int, seed: int, balanced: bool) -> list[Raw]:
    """The actions a match's or a tuning game's pair of games starts from:
    none for 0, else :func:`balanced_opening` with ``balanced``, else
    :func:`opening`."""
    if not actions:
        return []
    return (balanced_opening if balanced else opening)(variant, actions, seed)


def pair_start(variant: str, actions: int, seed: int, pair: int, balanced: bool) -> list[Raw]:
    """The actions pair ``pair`` (games ``2 * pair`` and ``2 * pair + 1``)
    of a match with seed ``seed`` starts from (:func:`start_of`)."""
    return start_of(variant, actions, seed * 100_003 + pair, balanced)


def play_game(
    variant: str, attacker: Player, defender: Player, seed: int, cap: int = 200,
    start: list[Raw] | None = None, quiet: int = 0,
) -> int | None:
    """Play one game, after the actions ``start`` when given; the winner (0
    Attacker, 1 Defender) or None (draw).  After ``cap`` turns of the moving
    phase, or with ``quiet`` after that many turns without a capture, the
    side with more pieces wins."""
    rng = random.Random(seed)
    game = game_after(variant, start)
    players = (attacker, defender)
    while game.outcome is None:
        if game.turn > cap or (quiet and not game.setting and game.no_progress >= quiet):
            a, d = game.count(0), game.count(1)
            return 0 if a > d else 1 if d > a else None
        kind, frm, to, _, flag = players[game.side](game, rng)
        game.push(kind, frm, to, flag)
    w = game.outcome.winner
    return None if w is None else ("attacker", "defender").index(w)


@dataclass
class MatchResult:
    """A's results over the match; ``second`` the same for the games where A
    was the Defender (the second player), when known; ``pairs`` the pairs of
    games (``2k``, ``2k + 1``: one opening, colours swapped) that A won, drew
    and lost on their sum, when known.  A pair split by colour (one win, one
    loss) is drawn: the opening, not the players, decided it."""

    wins: int
    draws: int
    losses: int
    second: tuple[int, int, int] | None = None
    pairs: tuple[int, int, int] | None = None

    @classmethod
    def of(cls, results: list[int]) -> MatchResult:
        """From :func:`_outcome` values, game ``i`` A the Defender for odd ``i``."""
        odd = results[1::2]
        sums = [a + b for a, b in zip(results[::2], odd, strict=False)]
        return cls(results.count(1), results.count(0), results.count(-1),
                   (odd.count(1), odd.count(0), odd.count(-1)),
                   (sum(x > 0 for x in sums), sum(x == 0 for x in sums),
                    sum(x < 0 for x in sums)))

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson(self.wins + 0.5 * self.draws, self.games)

    def __str__(self) -> str:
        lo, hi = self.interval()
        return (
            f"+{self.wins} ={self.draws} -{self.losses}  score {100 * self.score:.0f}% "
            f"(95% CI {100 * lo:.0f}-{100 * hi:.0f}%)"
            + (f"; as the Defender +{self.second[0]} ={self.second[1]} -{self.second[2]}"
               if self.second else "")
            + (f"; pairs +{self.pairs[0]} ={self.pairs[1]} -{self.pairs[2]}"
               if self.pairs else "")
        )


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Terms:
    """How a match's games start and end: ``opening`` random placements a
    pair (balanced ones with ``balanced``), adjudication after ``cap``
    turns or ``quiet`` turns without a capture (0: never)."""

    seed: int = 0
    cap: int = 200
    opening: int = 0
    balanced: bool = False
    quiet: int = 0


def run_match(
    variant: str, a: Player, b: Player, games: int, seed: int = 0, cap: int = 200,
    opening_actions: int = 0, balanced: bool = False, quiet: int = 0,
) -> MatchResult:
    """``games`` games, A the Attacker in even games, the Defender in odd;
    with ``opening_actions``, games ``2k`` and ``2k + 1`` start from the same
    random opening (a balanced one with ``balanced``), drawn once for both."""
    terms = Terms(seed, cap, opening_actions, balanced, quiet)
    results: list[int] = []
    start: list[Raw] = []
    for i in range(games):
        if i % 2 == 0:
            start = _pair_start((variant, i // 2, terms))
        results.append(_outcome(i, variant, a, b, terms, start))
    return MatchResult.of(results)


def _pair_start(args: tuple[str, int, Terms]) -> list[Raw]:
    variant, pair, terms = args
    return pair_start(variant, terms.opening, terms.seed, pair, terms.balanced)


def _outcome(i: int, variant: str, a: Player, b: Player, terms: Terms,
             start: list[Raw]) -> int:
    """Game ``i`` of a match, from ``start`` (its pair's opening): 1 A won,
    0 draw, -1 A lost."""
    a_side = i % 2
    pair = (a, b) if a_side == 0 else (b, a)
    w = play_game(variant, pair[0], pair[1], terms.seed * 100_003 + i, terms.cap, start,
                  terms.quiet)
    return 0 if w is None else 1 if w == a_side else -1


def _job(args: tuple[int, str, str, str, Terms, list[Raw]]) -> int:
    i, variant, a, b, terms, start = args
    return _outcome(i, variant, make_player(a), make_player(b), terms, start)


def run_match_parallel(variant: str, a: str, b: str, games: int, seed: int = 0,
                       cap: int = 200, jobs: int = 2, opening_actions: int = 0,
                       balanced: bool = False, quiet: int = 0) -> MatchResult:
    """:func:`run_match` with the games shared among ``jobs`` processes
    (players given by their specs); the same games, the same seeds.  The
    pairs' openings are drawn first, one a pair, shared among the
    processes too."""
    from multiprocessing import Pool

    terms = Terms(seed, cap, opening_actions, balanced, quiet)
    # The workers leave Ctrl-C to this process: its KeyboardInterrupt
    # leaves the block, which ends them (a pool that waited for its games
    # would keep a stopped match running for minutes).
    with Pool(jobs, initializer=_ignore_interrupt) as pool:
        starts = pool.map(_pair_start, [(variant, k, terms) for k in range((games + 1) // 2)],
                          chunksize=1)
        work = [(i, variant, a, b, terms, starts[i // 2]) for i in range(games)]
        results = pool.map(_job, work, chunksize=1)
    return MatchResult.of(results)


def _ignore_interrupt() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    p = OneLineParser(
        prog="kharbga-board match",
        description="Play games between two players, who change colours every game, and "
        "print A's wins, draws and losses with a 95% Wilson interval on A's score (a draw "
        "counts half). Players: random, greedy (captures the most at once), engine:SECONDS, "
        "engine:SECONDS:LEVEL or engine:SECONDS:LEVEL:THREADS (level 5 is full strength; "
        "THREADS 1 to 16 search together), baseline:SECONDS (an earlier engine "
        "that scripts/engine_vs_baseline.py provides).",
        epilog="Example: kharbga-board match --variant khamousiyya --games 20 "
        "--a engine:0.1 --b greedy")
    p.add_argument("--variant", default="kharbga", help="rules variant (default kharbga)")
    p.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    p.add_argument("--a", default="engine:0.1", help="player A (default engine:0.1)")
    p.add_argument("--b", default="random", help="player B (default random)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--cap", type=int, default=200, help="moving-phase turns before adjudication")
    p.add_argument("--jobs", type=int, default=1, help="games played at once (processes)")
    p.add_argument("--opening", default="0", metavar="N",
                   help="pair the games: each pair starts from the same N random placements "
                   "('setting': the whole setting phase), colours swapped (default 0: none)")
    p.add_argument("--quiet", type=int, default=0, metavar="N",
                   help="adjudicate by piece count after N moving-phase turns without a "
                   "capture (default 0: only at --cap)")
    p.add_argument("--balanced", action="store_true",
                   help="draw each pair's opening again until a fixed search scores it "
                   "within a piece of even (no forced block, nobody a piece ahead)")
    args = p.parse_args(argv)
    placements = MAX_OPENING if args.variant in LEAP_NAMES else \
        2 * find_variant(args.variant).pieces_per_side
    whole = args.opening == "setting"
    args.opening = opening_length(args.opening)
    if whole and args.variant in LEAP_NAMES:
        raise ValueError(f"{args.variant} has no setting phase: give --opening a number")
    if not whole and args.opening > placements:  # a number: never read as 'setting'
        what = "random actions" if args.variant in LEAP_NAMES else "placements"
        raise ValueError(f"--opening: {args.variant} opens with at most {placements} {what}, "
                         f"not {args.opening}")
    for name, value, top in (("games", args.games, MAX_GAMES), ("cap", args.cap, MAX_GAMES),
                             ("jobs", args.jobs, 64)):
        if not 1 <= value <= top:
            raise ValueError(f"--{name} must be 1 to {top:,}, not {value:,}")
    if args.quiet < 0:
        raise ValueError(f"--quiet must be at least 0, not {args.quiet:,}")
    if args.opening and args.games % 2:
        raise ValueError(f"--games must be even with --opening (the games come in pairs), "
                         f"not {args.games}")
    if args.balanced and not args.opening:
        raise ValueError("--balanced needs --opening N (the placements to balance)")
    players = make_player(args.a), make_player(args.b)
    if args.jobs > 1:
        result = run_match_parallel(args.variant, args.a, args.b, args.games, args.seed,
                                    args.cap, args.jobs, args.opening, args.balanced,
                                    args.quiet)
    else:  # on a thread this one waits for: Ctrl-C stops it mid-search
        from .hint import interruptible

        result = interruptible(lambda: run_match(args.variant, *players, args.games, args.seed,
                                                 args.cap, args.opening, args.balanced,
                                                 args.quiet))
    print(f"{args.variant}: {args.a} vs {args.b}, {result.games} games: {result}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except ValueError as exc:  # bad options, or no balanced opening: one line
        print(f"match: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
