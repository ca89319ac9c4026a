"""Build the compiled rules core and the C search for a Raspberry Pi's
processor, and run their tests there, on this (x86) machine.

For each architecture (``arm64``: 64-bit Raspberry Pi OS or Debian on a Pi
3, 4 or 5; ``armhf``: 32-bit Raspberry Pi OS), the project's own
``setup.py build_ext`` runs under that architecture's Debian Python (its
own ``sysconfig``, so its compiler name and flags, as ``make install`` on
the Pi has them, and setuptools as ``pyproject.toml`` asks for it), run
by qemu-user, with Debian's cross compiler standing in for the Pi's gcc and
``-Werror`` added: any warning fails the build.
Then, still under emulation, the differential test of the compiled core
against the pure-Python core and the C search's tests run on the result.

    python scripts/arm_check.py                 # arm64 and armhf
    python scripts/arm_check.py --arch armhf

Needs Debian's cross compilers (gcc-aarch64-linux-gnu,
gcc-arm-linux-gnueabihf), qemu-user and the architecture added to dpkg;
run as root it installs what is missing with apt-get, otherwise it names
it in one line.  The Python of the architecture, of the same version as
the Python running this script, is unpacked from Debian's packages
(``apt-get download``, ``dpkg -x``; the package names are Debian 12
bookworm's, where that Python is 3.11) into ``build/arm/ARCH/root`` (about
60 MB an architecture); the copy built and tested is
``build/arm/ARCH/tree``.  ``make arm-check`` runs it.  Exit status 0 when
every architecture built and its tests passed with none skipped;
docs/engine-c.md has the results.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "arm"
PY = f"python3.{sys.version_info.minor}"
LIBPY = f"libpython3.{sys.version_info.minor}"

# What the architecture's Python needs to run the tests (its standard
# library and the libraries of the stdlib's C modules that they import).
PACKAGES = [
    "libc6", "libgcc-s1", f"{PY}-minimal", f"{LIBPY}-minimal", f"{LIBPY}-stdlib",
    f"{LIBPY}-dev", LIBPY, "zlib1g", "libexpat1", "libffi8", "libssl3", "libbz2-1.0",
    "liblzma5", "libsqlite3-0", "libuuid1", "libcrypt1", "libnsl2", "libtirpc3",
    "libncursesw6", "libtinfo6", "libreadline8", "libdb5.3", "libzstd1",
    "libgssapi-krb5-2", "libkrb5-3", "libk5crypto3", "libcom-err2", "libkrb5support0",
    "libkeyutils1",
]

TESTS = ["tests/rules/test_ccore_differential.py", "tests/engine/test_csearch.py"]
TIMEOUT = 3 * 3600  # seconds for a build or a test run under emulation

# Settings of this machine's builds and Pythons that must not reach the
# emulated one (a CC here would build for this machine's processor).
CLEAN = ("CC", "CXX", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED", "ARCHFLAGS",
         "PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "KHARBGA_PURE")

CHECK = """
import platform, struct
from controller.rules import accel
from controller.engine import csearch
print(platform.machine(), struct.calcsize("P") * 8, "bit; compiled rules core:", accel.AVAILABLE,
      "; C search:", csearch.available())
raise SystemExit(0 if accel.AVAILABLE and csearch.available() else 1)
"""


@dataclass(frozen=True)
class Arch:
    name: str      # Debian's architecture
    triplet: str   # the cross compiler's prefix and the multiarch directory
    qemu: str      # the qemu-user binary
    gcc_package: str


ARCHES = {
    "arm64": Arch("arm64", "aarch64-linux-gnu", "qemu-aarch64", "gcc-aarch64-linux-gnu"),
    "armhf": Arch("armhf", "arm-linux-gnueabihf", "qemu-arm", "gcc-arm-linux-gnueabihf"),
}


class CheckError(Exception):
    """A step that failed, in one line."""


def run(cmd: list[str], log: Path | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise CheckError(f"{' '.join(cmd[:4])} ... did not finish in {TIMEOUT} s") from exc
    except OSError as exc:
        raise CheckError(f"cannot run {cmd[0]}: {exc}") from exc
    if log is not None:
        log.write_text(f"$ {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return done


def last_line(text: str) -> str:
    """A command's last line of output (its summary or its error)."""
    return (text.strip().splitlines() or ["no output"])[-1]


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def ensure_tools(arch: Arch) -> None:
    """The cross compiler, qemu-user and the foreign architecture in dpkg."""
    foreign = run(["dpkg", "--print-foreign-architectures"]).stdout.split() \
        if shutil.which("dpkg") else []
    missing = [p for p, ok in ((arch.gcc_package, shutil.which(f"{arch.triplet}-gcc")),
                               ("qemu-user", shutil.which(arch.qemu))) if not ok]
    if not missing and arch.name in foreign:
        return
    if not shutil.which("apt-get"):
        raise CheckError(f"needs Debian's {', '.join(missing) or 'apt-get'} (no apt-get here)")
    if not is_root():
        needs = missing + ([] if arch.name in foreign
                           else [f"the {arch.name} architecture in dpkg"])
        raise CheckError(f"needs {', '.join(needs)} (run as root to install them with apt-get)")
    if arch.name not in foreign:
        run(["dpkg", "--add-architecture", arch.name])
    # An index that fails to download (a mirror mid-sync) is not fatal: the
    # install and download below say whether what is needed was found.
    run(["apt-get", "update", "-qq"])
    if missing:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        done = run(["apt-get", "install", "-y", "-qq", *missing], env=env)
        if done.returncode:
            raise CheckError(f"apt-get install {' '.join(missing)} failed: "
                             f"{last_line(done.stderr)}")


def unpack_python(arch: Arch) -> Path:
    """The architecture's Debian Python, unpacked (not installed)."""
    root = WORK / arch.name / "root"
    if (root / "usr" / "bin" / PY).exists():
        return root
    debs = WORK / arch.name / "debs"
    shutil.rmtree(debs, ignore_errors=True)
    debs.mkdir(parents=True)
    done = run(["apt-get", "download", *(f"{p}:{arch.name}" for p in PACKAGES)], cwd=debs)
    if done.returncode:
        errors = [line for line in done.stderr.splitlines() if line.startswith("E:")]
        raise CheckError(f"apt-get download failed: {'; '.join(errors) or done.stderr.strip()}")
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for deb in sorted(debs.glob("*.deb")):
        if run(["dpkg", "-x", str(deb), str(root)]).returncode:
            raise CheckError(f"dpkg -x {deb.name} failed")
    if not (root / "usr" / "bin" / PY).exists():
        raise CheckError(f"{PY} for {arch.name} is not in Debian's packages here")
    return root


def copy_tree(arch: Arch) -> Path:
    """The sources to build and test, without this machine's builds."""
    tree = WORK / arch.name / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    skip = shutil.ignore_patterns("*.so", "__pycache__", "*.pyc")
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, tree / name)
    for name in ("controller", "tests"):
        shutil.copytree(ROOT / name, tree / name, ignore=skip)
    return tree


def emulated(arch: Arch, root: Path) -> list[str]:
    return [arch.qemu, "-L", str(root), str(root / "usr" / "bin" / PY)]


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    env.update(extra)
    return env


def site_packages() -> str:
    """Where this Python's pytest is (pure Python: the emulated Python of the
    same version imports it)."""
    try:
        import pytest
    except ImportError as exc:
        raise CheckError("needs pytest in this Python (make install-test)") from exc
    return str(Path(pytest.__file__).resolve().parent.parent)


def build_tools() -> Path:
    """setuptools as pyproject.toml's build-system asks for it (pure Python,
    so the emulated Python runs it), installed once into build/arm."""
    target = WORK / "setuptools"
    if not (target / "setuptools").is_dir():
        done = run([sys.executable, "-m", "pip", "install", "-q", "--target", str(target),
                    "setuptools>=68", "wheel"])
        if done.returncode:
            raise CheckError(f"pip could not fetch setuptools: {last_line(done.stderr)}")
    return target


def check(arch: Arch, tests: list[str]) -> None:
    ensure_tools(arch)
    root = unpack_python(arch)
    tree = copy_tree(arch)
    logs = WORK / arch.name
    # setuptools takes $CFLAGS in place of the Python's own compile flags:
    # hand it the emulated Python's (as the Pi's build has them) and more.
    flags = run([*emulated(arch, root), "-c",
                 "import sysconfig; print(sysconfig.get_config_var('CFLAGS'))"])
    if flags.returncode:
        raise CheckError(f"the {arch.name} Python does not run: {flags.stderr.strip()[-300:]}")
    env = environment(PYTHONPATH=str(build_tools()),
                      CFLAGS=f"{flags.stdout.strip()} -I{root}/usr/include "
                             f"-I{root}/usr/include/{PY} -Werror")
    build = run([*emulated(arch, root), "setup.py", "build_ext", "--inplace"],
                log=logs / "build.log", env=env, cwd=tree)
    built = sorted(p.name for p in tree.glob("controller/*/_c*.so"))
    if build.returncode or len(built) != 2:
        raise CheckError(f"the C extensions did not build (built: {built or 'none'}; "
                         f"see {logs / 'build.log'})")
    print(f"{arch.name}: built {', '.join(built)} with setup.py and -Werror", flush=True)
    env = environment(PYTHONPATH=f"{tree}{os.pathsep}{site_packages()}",
                      PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    probe = run([*emulated(arch, root), "-c", CHECK], env=env, cwd=tree)
    if probe.returncode:
        raise CheckError(f"the built extensions do not load: {probe.stdout.strip()} "
                         f"{probe.stderr.strip()[-300:]}")
    print(f"{arch.name}: {probe.stdout.strip()}", flush=True)
    # Third-party plugins stay off (some are compiled for this machine); the
    # timeout plugin is pure Python and keeps a hung test from hanging here.
    # (``addopts`` emptied: the project's ``-q`` with this one would drop the
    # summary line read below.)
    result = run([*emulated(arch, root), "-m", "pytest", "-q", "-o", "addopts=",
                  "-p", "no:cacheprovider", "-p", "pytest_timeout", *tests],
                 log=logs / "tests.log", env=env, cwd=tree)
    summary = last_line(result.stdout)
    if result.returncode:
        raise CheckError(f"tests failed: {summary} (see {logs / 'tests.log'})")
    if "skipped" in summary or "passed" not in summary:
        raise CheckError(f"tests did not all run: {summary} (see {logs / 'tests.log'})")
    print(f"{arch.name}: {summary}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arch", action="append", choices=sorted(ARCHES),
                   help="architecture (repeatable; default arm64 and armhf)")
    p.add_argument("--tests", nargs="+", default=TESTS, metavar="PATH",
                   help="test files to run under emulation (default: the differential "
                        "test and the C search's tests)")
    args = p.parse_args(argv)
    failed = 0
    for name in args.arch or ["arm64", "armhf"]:
        try:
            check(ARCHES[name], args.tests)
        except CheckError as exc:
            print(f"arm_check: {name}: {exc}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
