"""Take the pictures of docs/page.md again, of the page as it is now.

The browser tests that take them (in Debian's chromium) also write their
screenshots into ``$KHARBGA_PAGE_SHOTS``; this runs those tests so, into
a scratch folder, and copies into docs/page/ only the pictures
docs/page.md shows (the tests' other screenshots stay out).  Nothing is
copied unless the tests pass: a picture taken before a check failed may
show a page that is wrong.

    python scripts/page_shots.py                          # every picture
    python scripts/page_shots.py thinking gpio-page-stuck # these only
    python scripts/page_shots.py --jobs 2                 # tests in 2 processes

With names, only the test files that take them run.  ``make page-shots``
runs it.  Each picture copied is listed with its size; exit status 0 when
every picture asked for was taken, 1 when the tests failed or one was not
taken, 2 for a name docs/page.md shows no picture of.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "page.md"
PICTURES = ROOT / "docs" / "page"

# The tests that take docs/page.md's pictures (docs/page.md names them).
TESTS = [
    "tests/service/test_lights.py",
    "tests/service/test_leap_page.py",
    "tests/service/test_engine_page.py",
    "tests/service/test_pico_page.py",
    "tests/drivers/test_gpio_page.py",
]

TOO_BIG = 400_000  # bytes: a picture over this is said (the docs' pictures stay small)


def shown() -> list[str]:
    """The pictures docs/page.md shows, by name (``thinking`` for
    ``page/thinking.png``), in its order."""
    names = re.findall(r"\]\(page/([\w.-]+)\.png\)", DOC.read_text(encoding="utf-8"))
    return list(dict.fromkeys(names))


def takers(names: list[str]) -> list[str]:
    """The test files that take any of these pictures (their names quoted
    in the file)."""
    return [t for t in TESTS
            if any(f'"{n}"' in (ROOT / t).read_text(encoding="utf-8") for n in names)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="pictures to take again (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="test processes (pytest-xdist)")
    args = parser.parse_args(argv)
    every = shown()
    names: list[str] = [n.removesuffix(".png") for n in args.names] or every
    unknown = [n for n in names if n not in every]
    if unknown:
        print(f"page_shots: docs/page.md shows no picture {', '.join(unknown)} "
              f"(it shows {', '.join(every)})", file=sys.stderr)
        return 2
    files = takers(names)
    with tempfile.TemporaryDirectory(prefix="kharbga-shots-") as out:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files]
        if args.jobs > 1:
            command[4:4] = ["-n", str(args.jobs)]
        env = {**os.environ, "KHARBGA_PAGE_SHOTS": out}
        if subprocess.run(command, cwd=ROOT, env=env, check=False).returncode != 0:
            print("page_shots: the tests failed: no picture copied", file=sys.stderr)
            return 1
        missing = [n for n in names if not (Path(out) / f"{n}.png").exists()]
        for name in names:
            taken = Path(out) / f"{name}.png"
            if taken.exists():
                size = taken.stat().st_size
                shutil.copy(taken, PICTURES / taken.name)
                big = f" (over {TOO_BIG // 1000} KB: make it smaller)" if size > TOO_BIG else ""
                print(f"docs/page/{taken.name}: {size // 1000} KB{big}")
    if missing:
        print(f"page_shots: not taken by {', '.join(files)}: {', '.join(missing)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
