"""GTP v2 framing: unit tests of the protocol module, then conformance of `tesuji gtp` itself."""
import io
import os
import subprocess
import sys

import pytest

from gtp.protocol import CommandGroup, GtpError, GtpServer, format_reply, parse, preprocess
from tests.gtp.gtpproc import FAST, REQUIRED, ROOT, GtpProcess, split_reply, tesuji_command


# --- units ---

@pytest.mark.parametrize("raw, cleaned", [
    ("play b d4\n", "play b d4"),
    ("play\tb\td4\r\n", "play b d4"),
    ("pl\x01ay b d4\x7f", "play b d4"),
    ("  name  # a comment\n", "name"),
    ("# only a comment\n", ""),
    ("\r\n", ""),
    ("\t \t\n", ""),
    ("12 name#comment", "12 name"),
    ("bo\x00ardsize 9", "boardsize 9"),
])
def test_preprocess(raw, cleaned):
    assert preprocess(raw) == cleaned


@pytest.mark.parametrize("line, parsed", [
    ("name", (None, "name", [])),
    ("12 play b d4", ("12", "play", ["b", "d4"])),
    ("0 quit", ("0", "quit", [])),
    ("-3 name", (None, "-3", ["name"])),
    ("7", ("7", "", [])),
    ("x12 name", (None, "x12", ["name"])),
])
def test_parse(line, parsed):
    assert parse(line) == parsed


def test_format_reply():
    assert format_reply(True, None, "") == "= \n\n"
    assert format_reply(True, "3", "D4") == "=3 D4\n\n"
    assert format_reply(False, "3", "illegal move") == "?3 illegal move\n\n"
    # empty lines would end the reply early: they are dropped; a leading newline is kept
    assert format_reply(True, None, "\nrow 1\n\nrow 2\n\n") == "= \nrow 1\nrow 2\n\n"


class Toy(CommandGroup):
    def __init__(self):
        self.value = 0

    def cmd_set(self, args):
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("syntax error")
        self.value = int(args[0])
        return ""

    def cmd_get(self, args):
        return str(self.value)

    def cmd_crash(self, args):
        return str(1 // 0)

    def cmd_lines(self, args):
        return "a\nb"


class ToyExtra(Toy):
    prefix = "toy-"

    def cmd_more(self, args):
        return "more"


def serve(text: bytes, *groups) -> tuple[str, str]:
    log = io.StringIO()
    out = io.BytesIO()
    GtpServer(groups or [Toy()], log=log).serve(io.BytesIO(text), out)
    return out.getvalue().decode(), log.getvalue()


def test_a_handler_returning_no_text_is_an_internal_error():
    class Bad(Toy):
        def cmd_none(self, args):
            return None

    out, log = serve(b"none\nget\n", Bad())
    assert out.startswith("? internal error: TypeError: handler of 'none' returned NoneType")
    assert out.endswith("\n\n= 0\n\n")


def test_methods_register_themselves_in_order():
    assert list(Toy().commands()) == ["set", "get", "crash", "lines"]
    assert list(ToyExtra().commands()) == ["toy-set", "toy-get", "toy-crash", "toy-lines", "toy-more"]


def test_duplicate_command_names_are_refused():
    with pytest.raises(ValueError, match="registered twice"):
        GtpServer([Toy(), Toy()])


def test_server_ids_errors_and_state():
    out, log = serve(b"1 set 5\n2 get\nset x\nget\n3 nope\n4 lines\n")
    assert out == "=1 \n\n=2 5\n\n? syntax error\n\n= 5\n\n?3 unknown command\n\n=4 a\nb\n\n"
    assert log == ""


def test_internal_error_is_a_reply_and_the_traceback_goes_to_the_log():
    out, log = serve(b"5 crash\nget\n")
    assert out == "?5 internal error: ZeroDivisionError: integer division or modulo by zero\n\n= 0\n\n"
    assert "Traceback" in log and "ZeroDivisionError" in log


def test_eof_without_newline_and_id_only_line():
    out, _ = serve(b"\n\n# comment\n9\nget")
    assert out == "?9 missing command\n\n= 0\n\n"


def test_invalid_utf8_is_an_unknown_command():
    out, _ = serve(b"\xff\xfe get\n\xc3\x28\n")
    assert out == "? unknown command\n\n? unknown command\n\n"


def test_stop_ends_the_loop():
    class Quitter(Toy):
        def cmd_quit(self, args):
            self.server.stop()
            return ""

    out, _ = serve(b"set 1\nquit\nget\n", Quitter())
    assert out == "= \n\n= \n\n"


# --- conformance of the real engine (subprocess) ---

def test_ids_are_echoed(engine):
    engine.write(b"17 name\n")
    assert engine.read_reply() == "=17 Tesuji\n\n"
    engine.write(b"18 boardsize 99\n")
    assert engine.read_reply() == "?18 unacceptable size\n\n"
    engine.write(b"protocol_version\n")
    assert engine.read_reply() == "= 2\n\n"


def test_comments_blank_lines_cr_and_tabs(engine):
    engine.write(b"# a comment line\n\n   \n\t\n3\tprotocol_version # trailing\r\n")
    assert engine.read_reply() == "=3 2\n\n"
    engine.write(b"play\tb\tC3\r\n")
    assert engine.read_reply() == "= \n\n"
    engine.write(b"4 pl\x07ay w D4\n")   # a control character inside a word is removed
    assert engine.read_reply() == "=4 \n\n"
    assert "X" in engine.ok("showboard") and "O" in engine.ok("showboard")


def test_unknown_command(engine):
    engine.write(b"5 frobnicate 1 2\n")
    assert engine.read_reply() == "?5 unknown command\n\n"
    assert engine.fail("PLAY b c3") == "unknown command"   # command names are case-sensitive


def test_list_commands_and_known_command(engine):
    listed = engine.ok("list_commands").split("\n")
    assert set(REQUIRED) <= set(listed)
    assert len(listed) == len(set(listed))
    for name in REQUIRED:
        assert engine.ok(f"known_command {name}") == "true"
    for name in ["frobnicate", "kgs-chat", "PLAY", "play_b"]:
        assert engine.ok(f"known_command {name}") == "false"
    assert engine.fail("known_command") == "syntax error"


def test_rejected_commands_leave_the_game_unchanged(engine):
    engine.ok("play b E5")
    engine.ok("play w E6")
    before = (engine.ok("showboard"), engine.ok("printsgf"))
    for cmd in ["play b E5", "play x E4", "play b Z9", "play b", "boardsize 1", "boardsize x", "komi abc",
                "fixed_handicap 4", "set_free_handicap A1 B2", "undo 3", "loadsgf /nonexistent.sgf",
                "time_left b -5 0", "kgs-time_settings byoyomi 5", "kgs-rules chess"]:
        engine.fail(cmd)
        assert (engine.ok("showboard"), engine.ok("printsgf")) == before, cmd


def test_stdout_carries_only_replies_and_quit_exits(tmp_path):
    proc = GtpProcess(tesuji_command(*FAST), cwd=str(tmp_path))
    proc.write(b"1 boardsize 7\n2 genmove b\n3 final_score\n4 quit\n5 name\n")
    replies = [split_reply(proc.read_reply()) for _ in range(4)]
    assert [ok for ok, _ in replies] == [True] * 4
    assert proc.read_line() is None          # nothing after quit's reply
    assert proc.proc.wait(timeout=10) == 0


def test_eof_ends_the_engine_cleanly(tmp_path):
    proc = GtpProcess(tesuji_command(*FAST), cwd=str(tmp_path))
    proc.write(b"name\n")
    assert proc.read_reply() == "= Tesuji\n\n"
    proc.proc.stdin.close()
    assert proc.proc.wait(timeout=10) == 0
    assert "Traceback" not in proc.stderr_text()


STRAY_OUTPUT = """
import os, sys
from gtp import cli
from gtp.commands import StandardCommands

def noisy_version(self, args):
    print("stray print")                 # Python-level stdout
    os.write(1, b"stray write to fd 1\\n")   # C-level stdout
    return "9.9"

def broken_showboard(self, args):
    raise RuntimeError("boom")

StandardCommands.cmd_version = noisy_version
StandardCommands.cmd_showboard = broken_showboard
sys.exit(cli.main(["gtp", "--set", "search.playouts=10"]))
"""


def test_stray_output_goes_to_stderr_and_bugs_become_error_replies(tmp_path):
    result = subprocess.run([sys.executable, "-c", STRAY_OUTPUT], input=b"1 version\n2 showboard\n3 name\n",
                            capture_output=True, cwd=tmp_path, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 0
    assert result.stdout.decode() == ("=1 9.9\n\n?2 internal error: RuntimeError: boom\n\n=3 Tesuji\n\n")
    err = result.stderr.decode()
    assert "stray print" in err and "stray write to fd 1" in err
    assert "Traceback" in err and "RuntimeError: boom" in err
