"""The Mosquitto ACL of docs/broadcast.md: boards log in with user names
and passwords from their configuration file, each may publish only under
its own id, the hall reads everything."""

from __future__ import annotations

import os
import pwd
import re
import subprocess
from pathlib import Path

import pytest
from bchelp import Broker, Player, board, hall, hall_has, random_game, wait_until

DOCS = Path(__file__).resolve().parents[2] / "docs" / "broadcast.md"


def _acl_from_docs() -> str:
    text = DOCS.read_text()
    found = re.search(r"```\n(# /etc/mosquitto/acl\n.*?)```", text, re.S)
    assert found, "docs/broadcast.md shows the ACL file"
    return found[1]


def test_acl_keeps_each_board_to_its_own_id(tmp_path: Path) -> None:
    work = tmp_path / "broker"
    work.mkdir()
    passwd = work / "passwd"
    for i, (user, password) in enumerate((("hall", "hall-secret"), ("ab1", "pw-ab1"))):
        subprocess.run(["mosquitto_passwd", "-b", *([] if i else ["-c"]), str(passwd), user,
                        password], check=True, capture_output=True)
    acl = work / "acl"
    acl.write_text(_acl_from_docs())
    # Run by root, mosquitto would read the files as user mosquitto (the
    # test's folder is private): it keeps the user it was started as.
    me = pwd.getpwuid(os.getuid()).pw_name
    broker = Broker(work, f"user {me}\nallow_anonymous false\npassword_file {passwd}\n"
                          f"acl_file {acl}\n")
    broker.start()
    hall_conf = tmp_path / "hall.toml"
    hall_conf.write_text('[broadcast]\nusername = "hall"\npassword = "hall-secret"\n')
    h = hall(tmp_path, broker.url)
    h.args += ["--config", str(hall_conf)]
    creds = '[broadcast]\nusername = "ab1"\npassword = "pw-ab1"\n'
    good = board(tmp_path, "ab1", broker.url, extra=creds)
    # The same account claiming another board's id.
    impostor = board(tmp_path, "ab2", broker.url, extra=creds)
    try:
        h.start("/api/boards")
        good.start()
        impostor.start()
        wait_until(lambda: good.get("/api/state")["broker"]["connected"], 15, "good connected")
        wait_until(lambda: impostor.get("/api/state")["broker"]["connected"], 15, "connected")
        p1, p2 = Player(good, random_game(31)), Player(impostor, random_game(32))
        p1.play(6, pause=0.02)
        p2.play(6, pause=0.02)
        wait_until(lambda: hall_has(h, "ab1", p1.actions[:6]), 15, "ab1 in the hall")
        boards = [b["board"] for b in h.get("/api/boards")["boards"]]
        assert boards == ["ab1"]  # nothing of ab2 got through
    finally:
        good.stop()
        impostor.stop()
        h.stop()
        broker.stop()


def test_a_missing_paho_names_the_make_target(monkeypatch: pytest.MonkeyPatch) -> None:
    # paho comes with `make install` (the web extra): the line says so, as
    # every other missing library's does, for the board and the hall alike.
    import sys

    from controller.service.broadcast import need_paho

    monkeypatch.setitem(sys.modules, "paho.mqtt.client", None)  # import fails
    with pytest.raises(ValueError) as err:
        need_paho()
    assert str(err.value) == ("the broadcast needs paho-mqtt: make install (or .venv/bin/pip "
                              "install -e '.[mqtt]' in the checkout)")
