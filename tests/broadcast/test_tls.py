"""mqtts://: a board and the hall over TLS to a Mosquitto listener with a
certificate signed by the club's own CA (made here with openssl)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest
from bchelp import Broker, Player, board, hall, hall_has, random_game, wait_until


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def _certificates(d: Path) -> None:
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
             "-keyout", str(d / "ca.key"), "-out", str(d / "ca.pem"), "-subj", "/CN=club CA")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(d / "broker.key"),
             "-out", str(d / "broker.csr"), "-subj", "/CN=127.0.0.1")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", str(d / "broker.csr"), "-CA", str(d / "ca.pem"),
             "-CAkey", str(d / "ca.key"), "-CAcreateserial", "-days", "2",
             "-extfile", str(d / "san.ext"), "-out", str(d / "broker.pem"))


def test_board_and_hall_over_tls(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is not installed: `make test` installs it (apt-get install openssl)")
    certs = tmp_path / "certs"
    certs.mkdir()
    _certificates(certs)
    me = pwd.getpwuid(os.getuid()).pw_name
    broker = Broker(tmp_path / "broker", f"user {me}\nallow_anonymous true\n"
                    f"cafile {certs / 'ca.pem'}\ncertfile {certs / 'broker.pem'}\n"
                    f"keyfile {certs / 'broker.key'}\n").start()
    url = f"mqtts://127.0.0.1:{broker.port}"
    tls = f'[broadcast]\nca_file = "{certs / "ca.pem"}"\n'
    conf = tmp_path / "hall.toml"
    conf.write_text(tls)
    h = hall(tmp_path, url)
    h.args += ["--config", str(conf)]
    b = board(tmp_path, "tb", url, extra=tls)
    try:
        h.start("/api/boards")
        b.start()
        wait_until(lambda: b.get("/api/state")["broker"]["connected"], 15, "TLS link up")
        player = Player(b, random_game(51))
        player.play(8, pause=0.02)
        wait_until(lambda: hall_has(h, "tb", player.actions[:8]), 15, "moves over TLS")
        assert h.get("/api/boards")["link"]["connected"] is True
    finally:
        b.stop()
        h.stop()
        broker.stop()


def test_mqtts_to_a_listener_without_tls_is_said_so(tmp_path: Path) -> None:
    # The port answers (the plain probe connects), the TLS handshake does
    # not: both the board and the hall said "unreachable".
    broker = Broker(tmp_path / "broker").start()
    url = f"mqtts://127.0.0.1:{broker.port}"
    h = hall(tmp_path, url)
    b = board(tmp_path, "tb", url)
    words = ("no TLS connection (the port answers, but not with TLS, or refused the "
             "certificates: mqtts:// needs the broker's TLS listener, often port 8883)")
    try:
        h.start("/api/boards")
        b.start()
        wait_until(lambda: b.get("/api/state")["broker"]["error"] == words, 20,
                   "the board says why")
        wait_until(lambda: h.get("/api/boards")["link"]["error"] == words, 20,
                   "the hall says why")
    finally:
        b.stop()
        h.stop()
        broker.stop()
