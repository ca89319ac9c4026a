"""What a board publishes, against a real Mosquitto: the retained state
(the JSON of GET /api/state), one QoS 1 message per confirmed action (and
undo), the retained record; an unreachable broker at start; bad options."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from bchelp import (
    SLOWEST,
    Broker,
    Listener,
    Player,
    board,
    free_port,
    hall,
    random_game,
    wait_until,
)

from controller.hall.protocol import action_tokens
from controller.rules import Game
from controller.rules.record import parse_record


def test_state_moves_and_record(tmp_path: Path) -> None:
    broker = Broker(tmp_path / "broker").start()
    listener = Listener(broker.url)
    b = board(tmp_path, "b1", broker.url).start()
    try:
        wait_until(lambda: b.get("/api/state")["broker"]["connected"], 10, "board connected")
        actions = random_game(11)[:30]
        player = Player(b, actions)
        player.play(30, pause=0.05)
        b.post("/api/button", {"button": "undo"})
        wait_until(lambda: player.stored() == actions[:29], 10, "undo recorded")
        wait_until(lambda: len(listener.on("kharbga/b1/moves")) >= 31, 10, "31 messages")
        moves = [json.loads(p) for p in listener.on("kharbga/b1/moves")]
        # One message per action, in order, then the undo.
        assert [m["move"] for m in moves[:30]] == actions
        assert [m["ply"] for m in moves[:30]] == list(range(1, 31))
        assert moves[30]["undo"] is True and moves[30]["ply"] == 29
        seqs = [m["seq"] for m in moves]
        assert seqs == sorted(set(seqs))
        store = moves[0]["store"]  # names the board's store, the same in every message
        assert len(store) == 16 and {m["store"] for m in moves} == {store}
        replay = Game.new("sabouiyya")
        for m in moves[:30]:
            replay.play(m["move"])
            assert m["position"] == replay.position()
            assert m["board"] == "b1" and m["variant"] == "sabouiyya"
        times = [m["time"] for m in moves[:30]]
        assert times == sorted(times)
        replay.pop()
        assert moves[30]["position"] == replay.position()
        # The retained state is the page's state; the retained record the game.
        state = b.get("/api/state")
        fresh = Listener(broker.url, "kharbga/b1/#")
        wait_until(lambda: fresh.on("kharbga/b1/game") and fresh.on("kharbga/b1/state"), 10,
                   "retained messages")
        wait_until(lambda: json.loads(fresh.on("kharbga/b1/state")[-1]) ==
                   {**b.get("/api/state"), "store": store},
                   10, "retained state equal to GET /api/state, with the store")
        assert json.loads(fresh.on("kharbga/b1/state")[-1])["game_id"] == state["game_id"]
        record = wait_until(lambda: [r for r in fresh.on("kharbga/b1/game")
                                     if len(parse_record(r.decode()).game().moves) == 29], 10,
                            "record after the undo")
        assert [str(m) for m in parse_record(record[-1].decode()).game().moves] == actions[:29]
        assert parse_record(record[-1].decode()).tags["Store"] == store  # as the moves name it
        assert fresh.on("kharbga/b1/online") == [b"1"]
        fresh.close()
    finally:
        b.stop()
        listener.close()
        broker.stop()


def test_unreachable_broker_at_start(tmp_path: Path) -> None:
    """One line on the console and on the page; the board plays on; when
    the broker comes, every move reaches it."""
    port = free_port()
    b = board(tmp_path, "b2", f"mqtt://127.0.0.1:{port}").start()
    try:
        link = wait_until(lambda: b.get("/api/state")["broker"]["error"], 10, "error shown")
        assert "unreachable" in link and b.get("/api/state")["broker"]["connected"] is False
        actions = random_game(12)[:8]
        player = Player(b, actions)
        player.play(8, pause=0.02)
        assert player.slowest < SLOWEST
        lines = [ln for ln in b.log.read_text().splitlines() if "unreachable (" in ln]
        assert len(lines) == 1 and "Traceback" not in b.log.read_text()
        broker = Broker(tmp_path / "broker")
        broker.port = port
        broker.conf.write_text(f"listener {port} 127.0.0.1\npersistence false\n"
                               "allow_anonymous true\n")
        broker.start()
        try:
            listener = Listener(broker.url)
            wait_until(lambda: b.get("/api/state")["broker"]["connected"], 15, "connected")
            # Moves sent before the listener subscribed are in the retained record.
            record = wait_until(lambda: listener.on("kharbga/b2/game"), 10, "record")
            assert [str(m) for m in parse_record(record[-1].decode()).game().moves] == actions
            listener.close()
        finally:
            broker.stop()
    finally:
        b.stop()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], capture_output=True,
                          text=True, timeout=30)


def test_bad_broker_options(tmp_path: Path) -> None:
    cases = [
        (["run", "--broker", "http://127.0.0.1:1883", "--board-id", "x"], "mqtt://"),
        (["run", "--broker", "mqtt://127.0.0.1:1883"], "board id"),
        (["run", "--broker", "mqtt://127.0.0.1:1883", "--board-id", "a/b"], "'/'"),
        (["run", "--board-id", "x"], "needs a broker"),
        # The URL given, its port too, without the credentials.
        (["run", "--broker", "mqtt://u:secret@127.0.0.1:1883", "--board-id", "x"],
         "broker mqtt://127.0.0.1:1883: put the user name and password in the configuration"),
        (["run", "--broker", "mqtt://127.0.0.1:99999", "--board-id", "x"], "mqtt://"),
        # A URL refused for another reason than its credentials: not said with them.
        (["run", "--broker", "http://u:secret@127.0.0.1:1883", "--board-id", "x"],
         "broker 'http://127.0.0.1:1883': use mqtt://"),
        (["hall", "--broker", "mqtt://u:secret@127.0.0.1:99999"],
         "broker 'mqtt://127.0.0.1:99999': not a URL"),
        (["hall", "--broker", "mqtt://u:se/cret@[::1"], "broker 'mqtt://[::1': not a URL"),
        # Port 0 is no port to connect to: it was taken as the default (1883).
        (["hall", "--broker", "mqtt://127.0.0.1:0"], "broker 'mqtt://127.0.0.1:0': the port"),
        (["hall"], "needs a broker"),
        (["hall", "--broker", "mqtt://h:1", "--port", "0"], "--port"),
    ]
    for args, words in cases:
        out = _run(*args, "--data-dir", str(tmp_path / "d")) if args[0] == "run" else _run(*args)
        assert out.returncode == 2, (args, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0], (args, out.stderr)
        assert "secret" not in out.stderr and "cret" not in out.stderr
    config = tmp_path / "c.toml"
    config.write_text('[broadcast]\nbroker = "mqtt://127.0.0.1:1883"\nboard_id = "x"\nport = 1\n')
    out = _run("run", "--config", str(config), "--data-dir", str(tmp_path / "d"))
    assert out.returncode == 2 and "broadcast.port" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_hall_counts_junk_and_lives_on(tmp_path: Path) -> None:
    """Malformed and foreign messages on the hall's topics: ignored and
    counted by the running hall, which goes on showing boards."""
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    try:
        # Junk is not retained: the hall must be subscribed before it is sent.
        wait_until(lambda: h.get("/api/boards")["link"]["connected"], 10, "hall subscribed")
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        junk = [("kharbga/j1/moves", b"{"), ("kharbga/j1/moves", b'{"seq": 1}'),
                ("kharbga/j1/game", b"no record"), ("kharbga/j1/state", b"\x00\x01"),
                ("kharbga/j1/online", b"maybe"), ("kharbga/j1/extra/deep", b"{}"),
                ("kharbga/bad id!/moves", b"{}"), ("kharbga/j1/moves", b"x" * 300_000)]
        for topic, payload in junk:
            c.publish(topic, payload, qos=1).wait_for_publish(5)
        wait_until(lambda: h.get("/api/boards")["stats"]["ignored"] == len(junk), 10,
                   "every junk message counted")
        said = h.log.read_text()
        for topic in {t for t, _ in junk}:  # one line each, naming the topic
            assert f"hall: {topic}: " in said, said
        b = board(tmp_path, "j2", broker.url).start()
        try:
            Player(b, random_game(13)[:4]).play(4, pause=0.02)
            wait_until(lambda: h.get("/api/boards/j2")["ply"] == 4, 10, "a real board shown")
        finally:
            b.stop()
    finally:
        c.loop_stop()  # a client left running reconnects for ever in later tests
        c.disconnect()
        h.stop()
        broker.stop()


def test_hall_with_an_unreachable_broker(tmp_path: Path) -> None:
    """One line on the console; the page serves and says why; the hall
    connects when the broker comes."""
    port = free_port()
    h = hall(tmp_path, f"mqtt://127.0.0.1:{port}").start("/api/boards")
    try:
        link = wait_until(lambda: h.get("/api/boards")["link"]["error"], 10, "error shown")
        assert "unreachable" in link
        log = h.log.read_text()
        assert len([ln for ln in log.splitlines() if "unreachable (" in ln]) == 1
        assert "Traceback" not in log
        broker = Broker(tmp_path / "broker")
        broker.port = port
        broker.conf.write_text(f"listener {port} 127.0.0.1\npersistence false\n"
                               "allow_anonymous true\n")
        broker.start()
        try:
            wait_until(lambda: h.get("/api/boards")["link"]["connected"], 15, "connected")
        finally:
            broker.stop()
    finally:
        h.stop()


def test_a_board_stopped_leaves_its_whole_record(tmp_path: Path) -> None:
    """A board stopped within the two seconds a record is held back (the
    end of the evening, a restart): its retained record holds every action,
    so a hall started or restarted afterwards shows the whole game."""
    broker = Broker(tmp_path / "broker").start()
    b = board(tmp_path, "s1", broker.url).start()
    actions = random_game(17)[:8]
    try:
        p = Player(b, actions)
        p.play(4, pause=0.02)
        time.sleep(2.5)  # the record of four actions goes out
        p.play(4, pause=0.02)
        b.stop()  # at once: the later record was still held back
        heard = Listener(broker.url, "kharbga/s1/game")
        try:
            wait_until(lambda: heard.on("kharbga/s1/game"), 10, "the retained record")
            record = parse_record(heard.on("kharbga/s1/game")[-1].decode())
        finally:
            heard.close()
        assert action_tokens(record.game()) == actions
    finally:
        b.stop()
        broker.stop()


def test_a_hall_stopped_does_not_say_its_broker_was_lost(tmp_path: Path) -> None:
    # The organiser stops the hall (Ctrl-C, systemctl stop): its console must
    # not read as a broker gone ("lost; ... keeps trying") as it goes.
    broker = Broker(tmp_path / "broker").start()
    h = hall(tmp_path, broker.url).start("/api/boards")
    try:
        wait_until(lambda: h.get("/api/boards")["link"]["connected"], 15, "connected")
        h.stop()
        log = h.log.read_text()
        assert "hall: connected to" in log
        assert "lost" not in log and "keeps trying" not in log, log
    finally:
        h.stop()
        broker.stop()


def test_a_broker_url_without_a_port_takes_mqtt_s_own() -> None:
    # MQTT's registered ports: 1883 plain, 8883 over TLS (docs/broadcast.md).
    from controller.hall.protocol import parse_broker_url

    assert parse_broker_url("mqtt://organiser.local") == ("organiser.local", 1883, False)
    assert parse_broker_url("mqtts://organiser.local") == ("organiser.local", 8883, True)
    assert parse_broker_url("mqtts://organiser.local:9883") == ("organiser.local", 9883, True)
