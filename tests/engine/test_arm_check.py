"""scripts/arm_check.py (the C extensions built and tested for a Pi's
processor under qemu-user): what it needs and cannot install is named in
one line, with a non-zero exit.  The build and the emulated tests
themselves run with ``make arm-check`` (docs/engine-c.md)."""

from __future__ import annotations

import pytest
from script_loader import load_script

arm_check = load_script("arm_check")


def test_missing_tools_are_named_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(arm_check.shutil, "which",
                        lambda name: "/usr/bin/apt-get" if name == "apt-get" else None)
    monkeypatch.setattr(arm_check, "is_root", lambda: False)
    assert arm_check.main(["--arch", "armhf"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["arm_check: armhf: needs gcc-arm-linux-gnueabihf, qemu-user, the armhf "
                   "architecture in dpkg (run as root to install them with apt-get)"]


def test_without_apt_it_says_so(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(arm_check.shutil, "which", lambda name: None)
    assert arm_check.main(["--arch", "arm64", "--arch", "armhf"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "arm_check: arm64: needs Debian's gcc-aarch64-linux-gnu, qemu-user (no apt-get here)",
        "arm_check: armhf: needs Debian's gcc-arm-linux-gnueabihf, qemu-user (no apt-get here)",
    ]


def test_an_unknown_architecture_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        arm_check.main(["--arch", "riscv64"])
    assert exc.value.code == 2
    assert "invalid choice: 'riscv64'" in capsys.readouterr().err
