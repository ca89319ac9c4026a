"""The layering of docs/architecture.md, and the size limits, checked on the source.

Every import in ``controller/``, ``calibration/`` and ``firmware/`` is read
with :mod:`ast` (imports inside functions included) and checked against
which package may import which.  A new package must be added here and to
docs/architecture.md before it can import anything of ours.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ("controller", "calibration", "firmware")

# Which of our packages each package may import (itself always allowed).
ALLOWED: dict[str, set[str]] = {
    "controller.board": set(),
    "controller.rules": {"controller.board"},
    "controller.reconcile": {"controller.board", "controller.rules"},
    "controller.engine": {"controller.board", "controller.rules"},
    "controller.drivers": {"controller.board", "calibration"},
    "calibration": {"controller.board"},
    "controller.hall": {"controller.board", "controller.rules"},
    "controller.service": {
        "controller.board",
        "controller.rules",
        "controller.reconcile",
        "controller.engine",
        "controller.drivers",
        "controller.hall",
        "calibration",
    },
    # The command line and the benchmark runner sit on top of everything.
    "controller.cli": {"*"},
    "controller.bench": {"*"},
    "controller.__main__": {"*"},
    "controller": set(),  # controller/__init__.py
    "firmware": set(),  # MicroPython: its own flat modules only
}

# The pure cores: standard library only, no clock or hardware of their own.
PURE = ("controller.board", "controller.rules", "controller.reconcile", "controller.engine")
# Hardware and image libraries: only drivers and calibration import them.
HARDWARE = {"gpiozero", "serial", "cv2", "numpy", "board", "busio", "neopixel_spi", "lgpio"}
HARDWARE_USERS = ("controller.drivers", "calibration")

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def _sources() -> list[Path]:
    out: list[Path] = []
    for tree in TREES:
        out.extend(sorted((ROOT / tree).rglob("*.py")))
    return out


def _module(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(module: str) -> str | None:
    """The entry of ALLOWED that ``module`` belongs to (longest match)."""
    best = None
    for pkg in ALLOWED:
        if (module == pkg or module.startswith(pkg + ".")) and (
            best is None or len(pkg) > len(best)
        ):
            best = pkg
    return best


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    module = _module(path, root)
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_pkg:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            out.append((node.lineno, name))
    return out


def _ours(name: str) -> bool:
    top = name.split(".")[0]
    return top in ("controller", "calibration")


SOURCES = _sources()


def test_every_source_file_belongs_to_a_declared_package() -> None:
    strays = [str(p.relative_to(ROOT)) for p in SOURCES if _package_of(_module(p)) is None]
    assert not strays, f"packages not declared in tests/test_architecture.py: {strays}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path: Path) -> None:
    module = _module(path)
    pkg = _package_of(module) or ""
    bad = _forbidden_imports(path)
    assert not bad, f"{module} ({pkg}) may import only {sorted(ALLOWED[pkg])}: {bad}"


def _forbidden_imports(path: Path, root: Path = ROOT) -> list[str]:
    """The imports of ``path`` (under ``root``) its package may not make."""
    pkg = _package_of(_module(path, root))
    assert pkg is not None
    allowed = ALLOWED[pkg]
    bad = []
    for line, name in _imports(path, root):
        if pkg == "firmware":
            if _ours(name):
                bad.append(f"line {line}: {name}")
            continue
        if not _ours(name) or "*" in allowed:
            continue
        target = _package_of(name)
        if target == pkg or target in allowed:
            continue
        # A package may import its parent package's __init__ only if allowed.
        bad.append(f"line {line}: {name}")
    return bad


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if _package_of(_module(p)) in PURE],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_pure_cores_use_the_standard_library_only(path: Path) -> None:
    outside = [
        f"line {line}: {name}"
        for line, name in _imports(path)
        if not _ours(name) and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert not outside, f"{_module(path)} imports outside the standard library: {outside}"


# The cores whose clock is passed in: they read no time of their own (the
# engine measures its own thinking time; the benchmarks time themselves).
CLOCKED = ("controller.board", "controller.rules", "controller.reconcile")


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if _package_of(_module(p)) in CLOCKED and p.name != "bench.py"
     and not p.name.endswith("_bench.py")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_clocked_cores_read_no_clock_of_their_own(path: Path) -> None:
    read = [f"line {line}: {name}" for line, name in _imports(path)
            if name.split(".")[0] in ("time", "datetime")]
    assert not read, f"{_module(path)} reads the time ({read}): take a clock passed in"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_goes_around_the_checker(path: Path) -> None:
    # importlib.import_module or __import__ with a name the checker cannot
    # read would pass any layer; the one use, the match's round-1 engine
    # (a copy of an old release, never ours), is named here.
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            f = node.func
            name = (f.attr if isinstance(f, ast.Attribute)
                    else f.id if isinstance(f, ast.Name) else "")
            if name in ("import_module", "__import__"):
                found.append(f"line {node.lineno}")
    allowed = {"controller.engine.match"}
    assert not found or _module(path) in allowed, f"{_module(path)} imports by name: {found}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_drivers_and_calibration_touch_hardware_libraries(path: Path) -> None:
    pkg = _package_of(_module(path))
    if pkg in HARDWARE_USERS or pkg == "firmware":
        return
    used = [
        f"line {line}: {name}"
        for line, name in _imports(path)
        if name.split(".")[0] in HARDWARE
    ]
    assert not used, f"{_module(path)} imports hardware libraries: {used}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_files_and_functions_stay_small(path: Path) -> None:
    text = path.read_text()
    lines = text.count("\n")
    assert lines <= MAX_FILE_LINES, f"{lines} lines (limit {MAX_FILE_LINES})"
    long = []
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            if size > MAX_FUNCTION_LINES:
                long.append(f"{node.name} (line {node.lineno}): {size} lines")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    """The rule is live: a driver importing the reconciler (absolutely or
    relatively) and a board vocabulary importing the rules are caught, and
    a driver importing the vocabulary is not."""
    drivers = tmp_path / "controller" / "drivers"
    drivers.mkdir(parents=True)
    (drivers / "bad.py").write_text("import os\n"
                                     "from controller.reconcile import reconciler\n"
                                     "from ..reconcile.update import Update\n"
                                     "from controller.board import geometry\n")
    assert _forbidden_imports(drivers / "bad.py", tmp_path) == [
        "line 2: controller.reconcile", "line 3: controller.reconcile.update"]
    (drivers / "good.py").write_text("from controller.board.geometry import Geometry\n")
    assert _forbidden_imports(drivers / "good.py", tmp_path) == []
    board = tmp_path / "controller" / "board"
    board.mkdir()
    (board / "bad.py").write_text("from ..rules import Game\n")
    assert _forbidden_imports(board / "bad.py", tmp_path) == ["line 1: controller.rules"]


def test_every_module_is_on_the_map() -> None:
    """docs/architecture.md names every module of the controller and of
    calibration, so a new engineer finds each on the map."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"(\w+\.py)\b", text))
    named |= {f"{m}.py" for m in re.findall(r"`(\w+)\.\w+", text)}  # `api.best_move`
    missing = [str(p.relative_to(ROOT)) for p in SOURCES
               if p.parts[len(ROOT.parts)] in ("controller", "calibration")
               and p.name != "__init__.py" and p.name not in named]
    assert not missing, (
        f"docs/architecture.md does not name {missing}: say in its package's entry "
        "what each does")


def test_the_map_s_import_table_is_the_one_enforced() -> None:
    """docs/architecture.md's table of which package may import which says
    what ALLOWED (above) enforces."""
    short = {"board": "controller.board", "rules": "controller.rules",
             "reconcile": "controller.reconcile", "engine": "controller.engine",
             "drivers": "controller.drivers", "calibration": "calibration",
             "hall": "controller.hall"}
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = [line.split("|")[1:3] for line in text.splitlines() if line.startswith("| `")]
    documented: dict[str, set[str]] = {}
    above: set[str] = set()
    for packages, may in rows:
        may = may.split("(")[0]
        if "all of the above" in may:
            allowed = set(above)
        elif "anything" in may:
            allowed = {"*"}
        else:
            allowed = {short[w] for w in may.replace(",", " ").split() if w in short}
        for name in packages.replace("`", "").replace(",", " ").split():
            documented[name] = allowed
            above.add(name)
    for package, allowed in ALLOWED.items():
        if package == "controller":
            continue  # controller/__init__.py, not a row
        assert documented.get(package) == allowed, (
            f"docs/architecture.md says {package} may import "
            f"{sorted(documented.get(package, {'(no row)'}))}; tests/test_architecture.py "
            f"ALLOWED enforces {sorted(allowed)}: make them say the same")


def _entries() -> dict[str, str]:
    """docs/architecture.md's entry of each package directory: the text
    that places its modules ("controller" for the command line's)."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    entries = {"controller/board": text.split("## The vocabulary")[1].split("\n## ")[0]}
    inside = text.split("## Inside the packages")[1].split("\n## ")[0]
    for label, body in re.findall(r"^- \*\*([\w ]+)\*\*(.*?)(?=^- \*\*|\Z)", inside,
                                  re.M | re.S):
        key = {"the command line": "controller", "calibration": "calibration"}.get(
            label, f"controller/{label}")
        entries[key] = entries.get(key, "") + body
    return entries


def test_every_module_is_placed_in_its_own_package_s_entry() -> None:
    """A module is on the map where its package is: its name in its
    package's entry, or its path (``reconcile/bench.py``) anywhere; a
    ``config.py`` named under board does not place ``hall/config.py``."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    paths = set()
    for p in re.findall(r"((?:\w+/)+\w+\.py)\b", text):
        paths.add(p if p.split("/")[0] in ("controller", "calibration") else f"controller/{p}")
    entries = _entries()
    misplaced = []
    for p in SOURCES:
        rel = p.relative_to(ROOT)
        if rel.parts[0] not in ("controller", "calibration") or p.name == "__init__.py":
            continue
        if rel.as_posix() in paths:
            continue
        entry = entries.get(rel.parent.as_posix(), "")
        named = set(re.findall(r"(?<![\w/])(\w+\.py)\b", entry))
        named |= {f"{m}.py" for m in re.findall(r"`(\w+)\.\w+", entry)}  # `api.best_move`
        if p.name not in named:
            misplaced.append(rel.as_posix())
    assert not misplaced, (
        f"docs/architecture.md does not place {misplaced} in its package's entry")


def test_nothing_imports_the_scripts_or_the_firmware() -> None:
    """scripts/ are offline tools imported by none of the packages, and the
    firmware runs on the Pico (its tests start it as files, not imports)."""
    bad = [f"{p.relative_to(ROOT)} line {line}: {name}" for p in SOURCES
           if _package_of(_module(p)) != "firmware"
           for line, name in _imports(p) if name.split(".")[0] in ("scripts", "firmware")]
    assert not bad, f"imports of scripts/ or firmware/: {bad}"


# The third-party column of docs/architecture.md's table, by import name
# (pyserial is ``serial``, NeoPixel SPI is Blinka's ``board``, ``busio`` and
# ``neopixel_spi``, paho-mqtt is ``paho``); the entry points may use anything.
THIRD_PARTY: dict[str, set[str]] = {
    "controller.drivers": HARDWARE | {"tomlkit"},
    "calibration": {"cv2", "numpy", "aiohttp"},
    "controller.hall": {"aiohttp", "paho"},
    "controller.service": {"aiohttp", "paho"},
}


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if _package_of(_module(p)) not in
     ("firmware", "controller.cli", "controller.bench", "controller.__main__")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_third_party_libraries_are_the_table_s(path: Path) -> None:
    allowed = THIRD_PARTY.get(_package_of(_module(path)) or "", set())
    used = [f"line {line}: {name}" for line, name in _imports(path)
            if not _ours(name) and name.split(".")[0] not in sys.stdlib_module_names
            and name.split(".")[0] not in allowed]
    assert not used, f"{_module(path)} imports {used}: not in docs/architecture.md's table"


def _eager_imports(path: Path) -> list[tuple[int, str]]:
    """The imports run when ``path`` is imported: at module level, not
    inside a function or an ``if TYPE_CHECKING:`` block."""
    lazy: set[int] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        checking = (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                    and node.test.id == "TYPE_CHECKING")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or checking:
            lazy |= {n.lineno for n in ast.walk(node)
                     if isinstance(n, ast.Import | ast.ImportFrom)}
    return [(line, name) for line, name in _imports(path) if line not in lazy]


@pytest.mark.parametrize(
    "path",
    [p for p in SOURCES if _package_of(_module(p)) in ("controller.service", "calibration")],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_what_the_map_says_is_imported_lazily_is(path: Path) -> None:
    """The service reaches the drivers and calibration only through the
    backend it chose, imported when opened (a board without a camera needs
    no OpenCV); calibration imports aiohttp only for its live page."""
    lazy = (("controller.drivers", "calibration")
            if _package_of(_module(path)) == "controller.service" else ("aiohttp",))
    eager = [f"line {line}: {name}" for line, name in _eager_imports(path)
             if any(name == m or name.startswith(m + ".") for m in lazy)]
    assert not eager, f"{_module(path)} imports at module level {eager}: import it lazily"
