"""lz-analyze / kata-analyze streams and *-genmove_analyze: formats, interrupts, tree reuse.

Units first (argument parsing, the line format from given search statistics), then the streaming
protocol in process with a fake job, then `tesuji gtp` itself.
"""
import io
import os
import threading
import time

import numpy as np
import pytest

from gtp.analysis import (AnalyzeRequest, format_info, format_ownership, lcb, parse_request,
                          select_moves)
from engine.coords import PASS, point
from gtp.protocol import CommandGroup, GtpError, GtpServer, Job, is_interrupt
from tests.gtp.gtpproc import FAST, GtpProcess, tesuji_command
from tests.gtp.replies import KATA_LINE, LZ_LINE, MOVE, Stream, segments
from tests.polling import wait_until

BLACK, WHITE = 1, 2
D4, E5, C3 = point(3, 3, 9), point(4, 4, 9), point(2, 2, 9)


# --- units ---

@pytest.mark.parametrize("args, kata, expected", [
    ([], False, AnalyzeRequest(BLACK)),
    (["W"], False, AnalyzeRequest(WHITE)),
    (["b", "50"], False, AnalyzeRequest(BLACK, 0.5)),
    (["10"], False, AnalyzeRequest(BLACK, 0.1)),
    (["white", "interval", "25", "minmoves", "3", "maxmoves", "5"], False, AnalyzeRequest(WHITE, 0.25, 3, 5)),
    (["B", "0"], False, AnalyzeRequest(BLACK, 0.01)),          # at least a centisecond
    (["B", "50", "ownership", "true"], True, AnalyzeRequest(BLACK, 0.5, ownership=True)),
    (["ownership", "false"], True, AnalyzeRequest(BLACK)),
])
def test_parse_request(args, kata, expected):
    assert parse_request(args, BLACK, kata) == expected


@pytest.mark.parametrize("args, kata, message", [
    (["B", "-5"], False, "unknown analyze option -5"),
    (["B", "50", "minmoves"], False, "missing value after minmoves"),
    (["B", "50", "minmoves", "x"], False, "syntax error"),
    (["B", "50", "ownership", "true"], False, "unknown analyze option ownership"),
    (["B", "50", "ownership", "yes"], True, "ownership must be true or false"),
    (["B", "50", "avoid", "b", "D4", "1"], False, "avoid is not supported"),
    (["B", "fast"], False, "unknown analyze option fast"),
])
def test_parse_request_errors(args, kata, message):
    with pytest.raises(GtpError, match=message):
        parse_request(args, BLACK, kata)


def test_lcb():
    assert lcb(0.9, 1) == 0.0
    assert lcb(0.5, 100) == pytest.approx(0.5 - 1.96 * 0.05)
    assert lcb(0.02, 4) == 0.0                       # never below 0
    assert lcb(0.6, 10_000) < 0.6 and lcb(0.6, 10_000) > lcb(0.6, 100)


CHILDREN = [   # as Search.root_children gives them: most visited first
    dict(move=D4, visits=60, winrate=0.55, prior=0.2, pv=[D4, E5, C3]),
    dict(move=E5, visits=30, winrate=0.61, prior=0.3, pv=[E5]),
    dict(move=PASS, visits=1, winrate=0.0, prior=0.01, pv=[PASS]),
    dict(move=C3, visits=0, winrate=0.5, prior=0.4, pv=[C3]),
]


def test_select_moves_orders_by_visits_and_pads_by_prior():
    assert [c["move"] for c in select_moves(CHILDREN)] == [D4, E5, PASS]
    assert [c["move"] for c in select_moves(CHILDREN, min_moves=4)] == [D4, E5, PASS, C3]
    assert [c["move"] for c in select_moves(CHILDREN, max_moves=2)] == [D4, E5]
    assert select_moves([c for c in CHILDREN if not c["visits"]]) == []


def test_lz_line_format():
    line = format_info(CHILDREN, 9, kata=False)
    assert LZ_LINE.fullmatch(line), line
    assert line.startswith("info move D4 visits 60 winrate 5500 prior 2000 lcb 4241 order 0 pv D4 E5 C3 "
                           "info move E5 visits 30 winrate 6100 prior 3000 lcb ")
    assert line.endswith("info move pass visits 1 winrate 0 prior 100 lcb 0 order 2 pv pass")
    assert format_info([c for c in CHILDREN if not c["visits"]], 9, kata=False) == ""


def test_kata_line_format():
    line = format_info(CHILDREN, 9, kata=True, min_moves=4)
    assert KATA_LINE.fullmatch(line), line
    first = segments(line)[0]
    assert first["move"] == "D4" and first["pv"] == ["D4", "E5", "C3"]
    assert "utility 0.100000 winrate 0.550000 prior 0.200000 lcb 0.424" in first["values"]
    assert [s["order"] for s in segments(line)] == [0, 1, 2, 3]


def test_ownership_is_side_to_move_from_the_top_left():
    own = np.zeros((3, 3), dtype=np.float32)
    own[2, 0] = 1.0      # A3, the top-left point, Black's
    own[0, 2] = -0.5     # C1, the bottom-right point, White's
    assert format_ownership(own, BLACK).split()[1:] == ["1.000000"] + ["0.000000"] * 7 + ["-0.500000"]
    assert format_ownership(own, WHITE).split()[1:] == ["-1.000000"] + ["0.000000"] * 7 + ["0.500000"]


# --- the streaming protocol, in process ---

class Ticker(CommandGroup):
    """A stream that ticks until interrupted, and a synchronous job that counts to its argument."""

    def __init__(self):
        self.stop = threading.Event()

    def cmd_tick(self, args):
        def run(emit):
            self.stop.clear()
            n = 0
            while not self.stop.wait(0.01):
                n += 1
                emit(f"tick {n}")
            return ""
        return Job(run, interrupt=self.stop.set, stream=True, until_input=True)

    def cmd_count(self, args):
        def run(emit):
            for i in range(int(args[0])):
                if self.stop.is_set():
                    return f"stopped at {i}"
                time.sleep(0.01)       # a job that takes time: what an interrupt cuts short
            return "done"
        self.stop.clear()
        return Job(run, interrupt=self.stop.set)

    def cmd_broken(self, args):
        def run(emit):
            emit("partial")
            raise GtpError("lost")
        return Job(run, stream=True)

    def cmd_name(self, args):
        return "ticker"


def serve_pipe():
    """A server on an OS pipe in a thread: (write(bytes), output BytesIO, thread)."""
    r, w = os.pipe()
    out = io.BytesIO()
    server = GtpServer([Ticker()], log=io.StringIO())
    thread = threading.Thread(target=server.serve, args=(os.fdopen(r, "rb"), out), daemon=True)
    thread.start()
    writer = os.fdopen(w, "wb", buffering=0)
    return writer, out, thread


def test_any_line_ends_a_stream_and_is_then_handled():
    writer, out, thread = serve_pipe()
    writer.write(b"1 tick\n")
    wait_until(lambda: b"tick 3\n" in out.getvalue(), "three ticks of the first stream")
    writer.write(b"2 name\n")
    writer.write(b"tick\n")
    wait_until(lambda: b"=2 ticker\n\n=\n" in out.getvalue(), "the second stream to open")
    writer.write(b"\n")            # a bare newline ends a stream too
    writer.write(b"3 count 3\n")
    writer.close()                 # end of input: the loop ends after the last reply
    thread.join(10)
    assert not thread.is_alive()
    text = out.getvalue().decode()
    first, rest = text.split("\n\n", 1)
    assert first.startswith("=1\ntick 1\ntick 2\n")
    assert rest.startswith("=2 ticker\n\n=\n")
    assert rest.endswith("\n\n=3 done\n\n")


def test_interrupt_line_cuts_a_synchronous_job_and_other_lines_wait_for_it():
    writer, out, thread = serve_pipe()
    writer.write(b"count 300\n")
    writer.write(b"# interrupt\n")     # the server reads it only once the count runs: no wait needed
    writer.write(b"count 3\nname\n")   # these wait for their turn
    writer.close()
    thread.join(10)
    text = out.getvalue().decode()
    assert text.startswith("= stopped at ")
    assert text.endswith("\n\n= done\n\n= ticker\n\n")


def test_a_failing_stream_still_ends_with_the_empty_line():
    writer, out, thread = serve_pipe()
    writer.write(b"broken\nname\n")
    writer.close()
    thread.join(10)
    assert out.getvalue().decode() == "=\npartial\n\n= ticker\n\n"


def test_handle_line_runs_jobs_to_the_end():
    server = GtpServer([Ticker()])
    assert server.handle_line("5 count 2") == "=5 done\n\n"
    assert server.handle_line("tick") == "=\n\n"     # nothing to wait for: interrupted at once


@pytest.mark.parametrize("line, expected", [("# interrupt\n", True), ("#interrupt", True),
                                            ("  # Interrupt \r\n", True), ("# interrupted\n", False),
                                            ("name # interrupt\n", False)])
def test_is_interrupt(line, expected):
    assert is_interrupt(line) == expected


# --- tesuji gtp ---

@pytest.fixture
def position(engine):
    for command in ["play b E5", "play w C3", "play b G5"]:
        engine.ok(command)
    return engine


def test_lz_analyze_streams_until_the_next_command(position, record_property):
    stream = Stream(position, "lz-analyze W 5")
    stream.wait_updates(3)
    latency = stream.stop_with("7 name")
    assert position.read_reply() == "=7 Tesuji\n\n"
    record_property("lz_analyze_stop_seconds", round(latency, 4))
    assert latency < 1.0
    for line in stream.lines:
        assert LZ_LINE.fullmatch(line), line
        moves = segments(line)
        assert [m["order"] for m in moves] == list(range(len(moves)))
        assert all(m["pv"][0] == m["move"] for m in moves)
        assert [m["visits"] for m in moves] == sorted((m["visits"] for m in moves), reverse=True)
    # The analysis played nothing: White is still to move after B E5, W C3, B G5.
    assert position.ok("printsgf").count(";B[") == 2


def test_analysis_reuses_the_tree_of_the_same_position(position):
    stream = Stream(position, "lz-analyze B 5")
    stream.wait_updates(3)
    stream.stop_with("name")
    position.read_reply()
    before = max(m["visits"] for m in segments(stream.lines[-1]))
    again = Stream(position, "lz-analyze B 5")
    again.wait_updates(1)
    again.stop_with("name")
    position.read_reply()
    assert max(m["visits"] for m in segments(again.lines[0])) >= before


def test_kata_analyze_with_ownership(position):
    stream = Stream(position, "kata-analyze B 5 ownership true minmoves 5 maxmoves 6")
    stream.wait_updates(2)
    stream.stop_with("")                      # a raw newline ends it as well
    assert position.ok("name") == "Tesuji"
    for line in stream.lines:
        m = KATA_LINE.fullmatch(line)
        assert m and m.group("own"), line
        values = [float(x) for x in m.group("own").split()[1:]]
        assert len(values) == 81 and all(-1 <= v <= 1 for v in values)
        assert 5 <= len(segments(line)) <= 6


def test_genmove_analyze_plays_and_ends_with_play(engine):
    for command in ["lz-genmove_analyze b 5", "kata-genmove_analyze W 5", "lz-genmove_analyze b"]:
        stream = Stream(engine, command)
        lines = stream.finish()
        assert lines[-1].startswith("play ") and MOVE.fullmatch(lines[-1][5:]), lines
        line_format = KATA_LINE if command.startswith("kata") else LZ_LINE
        assert lines[:-1] and all(line_format.fullmatch(x) for x in lines[:-1]), lines
    assert engine.ok("printsgf").count(";B[") == 2 and engine.ok("printsgf").count(";W[") == 1
    assert len(lines) == 2                    # no interval: one line, at the end of the search


@pytest.mark.parametrize("command, message", [
    ("lz-analyze B 50 avoid b D4 1", "avoid is not supported"),
    ("kata-analyze X", "unknown analyze option X"),
    ("lz-analyze B 50 ownership true", "unknown analyze option ownership"),
    ("lz-genmove_analyze b 50 minmoves", "missing value after minmoves"),
])
def test_bad_arguments_are_errors_and_start_nothing(engine, command, message):
    before = engine.ok("printsgf")
    assert engine.fail(command) == message
    assert engine.ok("printsgf") == before


def test_analysis_after_two_passes_searches_the_play_on_position(engine):
    engine.ok("play b E5")
    engine.ok("play w pass")
    engine.ok("play b pass")
    stream = Stream(engine, "lz-analyze w 5")
    stream.wait_updates(2)
    stream.stop_with("name")
    engine.read_reply()
    assert any(m["move"] != "pass" for m in segments(stream.lines[-1]))


def test_analysis_with_several_threads(tmp_path):
    proc = GtpProcess(tesuji_command(*FAST, "search.n_threads=2"), cwd=str(tmp_path))
    try:
        proc.ok("boardsize 7")
        stream = Stream(proc, "kata-analyze b 5")
        stream.wait_updates(3)
        assert stream.stop_with("quit") < 1.0
        assert proc.read_reply() == "= \n\n"
        assert all(KATA_LINE.fullmatch(x) for x in stream.lines)
    finally:
        assert proc.close() == 0
