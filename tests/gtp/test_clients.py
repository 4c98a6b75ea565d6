"""The command transcripts Sabaki, GoGui and kgsGtp send, replayed through `tesuji gtp`.

Each client is a script of the commands it sends (shared/specs/gtp-clients.md; GoGui's and Sabaki's
sources), and each reply is checked against the format that client parses. Clients pick commands
from `list_commands` as they do: Sabaki analyses with the first of `analyze`, `kata-analyze`,
`lz-analyze` and plays with the first genmove command of its version's list; GoGui enables
interrupts when `gogui-interrupt` is listed and builds its menu from `gogui-analyze_commands`.
"""
import re

import pytest

from tests.gtp.gtpproc import FAST, GtpProcess, tesuji_command
from tests.gtp.replies import (ANALYZE_ENTRY, GENMOVE, KATA_LINE, LZ_LINE, MOVE, SCORE, Stream,
                               dboard_rows, is_gfx)

SABAKI_ANALYZE = ["analyze", "kata-analyze", "lz-analyze"]
SABAKI_GENMOVE = {"v0.52.2": ["genmove_analyze", "lz-genmove_analyze", "genmove"],
                  "master": ["genmove_analyze", "kata-genmove_analyze", "lz-genmove_analyze", "genmove"]}


@pytest.fixture
def client(tmp_path):
    proc = GtpProcess(tesuji_command(*FAST), cwd=str(tmp_path))
    yield proc
    assert proc.close() == 0, proc.stderr_text()[-2000:]


def start_up(engine, commands) -> list[str]:
    """Send the start-up commands; the list_commands reply as a list."""
    replies = {c: engine.ok(c) for c in commands}
    assert replies.get("name") == "Tesuji"
    if "protocol_version" in replies:
        assert replies["protocol_version"] == "2"
    if "version" in replies:
        assert re.fullmatch(r"\d+\.\d+\.\d+", replies["version"])
    listed = replies["list_commands"].split("\n")
    assert all(re.fullmatch(r"[a-z][a-z0-9_-]*", c) for c in listed)
    return listed


def sabaki_parse(line: str, command: str) -> list[dict]:
    """What Sabaki reads from an update: one dict per `info`, its pv at the end; win rates in
    percent (master: by command name; 0.52.2: by the dot in the value)."""
    moves = []
    for part in re.split(r"\s*info\s+", line)[1:]:
        part = part.split(" ownership ")[0]
        head, _, pv = part.partition(" pv ")
        words = head.split()
        assert len(words) % 2 == 0, part          # key value pairs before pv
        values = dict(zip(words[0::2], words[1::2]))
        for key in ("move", "visits", "winrate"):
            assert key in values, part
        raw = values["winrate"]
        by_dot = float(raw) * 100 if "." in raw else int(raw) / 100
        by_name = float(raw) * 100 if command.startswith("kata-") else int(raw) / 100
        assert by_dot == by_name and 0 <= by_dot <= 100
        moves.append({"move": values["move"], "visits": int(values["visits"]), "winrate": by_dot,
                      "pv": pv.split()})
    return moves


def test_sabaki_transcript(client, record_property):
    listed = start_up(client, ["name", "version", "protocol_version", "list_commands"])
    analyze = next(c for c in SABAKI_ANALYZE if c in listed)
    assert analyze == "kata-analyze"
    for command in ["boardsize 9", "clear_board", "komi 6.5", "play B E5", "play W C4"]:
        assert client.ok(command) == ""
    latencies = []
    for color, next_command in [("B", "play B G5"), ("W", "undo"), ("W", "name")]:
        stream = Stream(client, f"{analyze} {color} 50")   # Sabaki's default interval
        stream.wait_updates(1)
        latencies.append(stream.stop_with(next_command))
        client.read_reply()
        for line in stream.lines:
            assert KATA_LINE.fullmatch(line), line
            assert sabaki_parse(line, analyze)
    record_property("sabaki_stop_seconds", [round(x, 3) for x in latencies])
    assert max(latencies) < 1.0
    for names in SABAKI_GENMOVE.values():
        command = next(c for c in names if c in listed)
        assert command != "genmove"                         # Sabaki plays through genmove_analyze
        stream = Stream(client, f"{command} W 50")
        lines = stream.finish()
        assert re.fullmatch(r"play " + GENMOVE.pattern, lines[-1], re.IGNORECASE), lines
        for line in lines[:-1]:
            assert (KATA_LINE if command.startswith("kata-") else LZ_LINE).fullmatch(line), line
            assert sabaki_parse(line, command)
        assert client.ok("printsgf").count(";W[") == 2      # C4 and the move just played
        assert client.ok("undo") == ""                      # the user takes it back
    client.write(b"quit\n")
    assert client.read_reply() == "= \n\n"


def test_gogui_transcript(client):
    listed = start_up(client, ["name", "protocol_version", "version", "list_commands"])
    assert "gogui-interrupt" in listed
    assert client.ok("gogui-interrupt") == ""
    menu = client.ok("gogui-analyze_commands").split("\n")
    for command in ["boardsize 9", "clear_board", "komi 6.5", "play b E5"]:
        assert client.ok(command) == ""
    assert GENMOVE.fullmatch(client.ok("genmove w"))
    to_move = "b"
    for entry in menu:
        kind, command = ANALYZE_ENTRY.fullmatch(entry).group(1), entry.split("/")[2]
        if "%p" in command:
            command = command.replace("%p", "E5")
        command = command.replace("%m", to_move)
        ok, text = client.send(command)
        assert ok, (entry, text)
        if kind == "gfx":
            assert is_gfx(text), (entry, text)
        elif kind == "dboard":
            assert all(-1 <= x <= 1 for row in dboard_rows(text, 9) for x in row)
        elif kind in ("plist", "pstring"):
            assert all(MOVE.fullmatch(v) for v in text.split() if not v.isdigit()), (entry, text)
        elif kind == "string":
            assert SCORE.fullmatch(text), (entry, text)
        elif kind == "param":
            assert all(re.fullmatch(r"\[(bool|string)\] \S+ \S+", x) for x in text.split("\n")), text
    client.write(b"genmove b\n# interrupt\n")             # GoGui's Interrupt button
    assert GENMOVE.fullmatch(client.read_reply()[2:-2])
    assert client.ok("undo") == ""
    assert SCORE.fullmatch(client.ok("final_score"))
    client.write(b"quit\n")
    assert client.read_reply() == "= \n\n"


def test_kgsgtp_transcript(client):
    listed = start_up(client, ["list_commands", "name", "version"])
    for command in ["kgs-genmove_cleanup", "kgs-time_settings", "kgs-game_over", "kgs-rules",
                    "final_status_list", "time_left", "undo", "place_free_handicap", "set_free_handicap"]:
        assert command in listed
        assert client.ok(f"known_command {command}") == "true"
    assert "kgs-chat" not in listed                       # it crashes kgsGtp 3.5.20 and later
    for command in ["boardsize 9", "clear_board", "komi 6.5", "kgs-rules japanese",
                    "kgs-time_settings byoyomi 300 30 5", "play b E5", "time_left w 300 0"]:
        assert client.ok(command) == ""
    assert GENMOVE.fullmatch(client.ok("genmove w"))
    for command in ["play b C3", "time_left w 295.2 0", "undo", "undo", "time_left w 290 0"]:
        assert client.ok(command) == ""                     # the opponent asked for an undo
    assert GENMOVE.fullmatch(client.ok("genmove w"))
    assert client.ok("play b pass") == ""
    assert client.ok("time_left w 30 5") == ""            # in byo-yomi: seconds and periods left
    assert GENMOVE.fullmatch(client.ok("kgs-genmove_cleanup w"))
    dead = client.ok("final_status_list dead")
    assert all(MOVE.fullmatch(v) for v in dead.split()), dead
    assert client.ok("kgs-game_over") == ""
    # A new game after a handicap challenge: kgsGtp sends the free placement itself.
    for command in ["boardsize 9", "clear_board", "komi 0.5", "kgs-time_settings canadian 60 30 10",
                    "set_free_handicap C3 G7"]:
        assert client.ok(command) == ""
    assert client.ok("time_left w 60 0") == ""
    assert GENMOVE.fullmatch(client.ok("genmove w"))
    assert client.ok("kgs-time_settings absolute 180") == ""
    assert client.ok("kgs-time_settings none") == ""
    client.write(b"quit\n")
    assert client.read_reply() == "= \n\n"
    assert client.read_line() is None                     # nothing after quit: stdout is clean
