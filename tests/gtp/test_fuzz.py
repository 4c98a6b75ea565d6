"""Property tests: whatever arrives on stdin, one long-lived engine answers in GTP framing, never
dies, never reports an internal error, and a rejected command leaves the position unchanged."""
from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gtp.protocol import parse, preprocess
from tests.gtp.gtpproc import FAST, REQUIRED, GtpProcess, tesuji_command

SENTINEL = "987654321"
COMMANDS = [c for c in REQUIRED if c != "quit"] + ["frobnicate", "Play", "kgs-chat", "gogui-analyze_commands"]
WEIGHTED = COMMANDS + ["play"] * 8 + ["genmove"] * 2 + ["undo"] * 2   # so that games get played

# Argument pools: mostly well-formed values, some wrong ones. Board sizes stay at most 9x9 so that
# the scoring searches the fuzz triggers stay quick.
COLOR = st.sampled_from(["b", "w", "black", "white", "B", "W", "x", "bw"])
ON_BOARD = st.builds(lambda c, r: c + str(r), st.sampled_from("ABCDEFGabcdefg"), st.integers(1, 7))
VERTEX = st.one_of(ON_BOARD, ON_BOARD, ON_BOARD, st.builds(lambda c, r: c + str(r), st.sampled_from("HJhj"),
                                                           st.integers(1, 9)),
                   st.sampled_from(["pass", "PASS", "resign", "I3", "Z25", "A0", "A10", "T19"]))
SIZE = st.sampled_from(["7", "9", "7", "9", "5", "2", "1", "0", "26", "x"])
NUMBER = st.sampled_from(["0", "5", "7.5", "-3", "300", "1e2", "0.5", "nan", "inf", "x"])
COUNT = st.sampled_from(["0", "1", "2", "3", "4", "5", "9", "10", "-1", "2.5"])
KGS_TIME = st.one_of(st.tuples(st.just("none")),
                     st.tuples(st.just("absolute"), NUMBER),
                     st.tuples(st.sampled_from(["byoyomi", "canadian", "x"]), NUMBER, NUMBER, COUNT))
ARGS = {   # command -> its arguments, as a list strategy
    "play": st.tuples(COLOR, VERTEX), "genmove": st.tuples(COLOR), "reg_genmove": st.tuples(COLOR),
    "kgs-genmove_cleanup": st.tuples(COLOR), "boardsize": st.tuples(SIZE), "komi": st.tuples(NUMBER),
    "fixed_handicap": st.tuples(COUNT), "place_free_handicap": st.tuples(COUNT),
    "set_free_handicap": st.lists(VERTEX, min_size=2, max_size=4),
    "time_settings": st.tuples(NUMBER, NUMBER, COUNT), "time_left": st.tuples(COLOR, NUMBER, COUNT),
    "known_command": st.tuples(st.sampled_from(COMMANDS)),
    "final_status_list": st.tuples(st.sampled_from(["alive", "dead", "seki", "x"])),
    "loadsgf": st.one_of(st.tuples(st.sampled_from(["game.sgf", "missing.sgf", "."])),
                         st.tuples(st.just("game.sgf"), COUNT)),
    "printsgf": st.tuples(st.sampled_from(["out.sgf", "."])),
    "kgs-rules": st.tuples(st.sampled_from(["chinese", "aga", "new_zealand", "japanese", "ing"])),
    "kgs-time_settings": KGS_TIME,
}
# Random tokens: printable, no path separators (printsgf writes into the engine's scratch directory).
TOKEN_CHARS = string.ascii_letters + string.digits + "+-.,:;=?!@$%^&*()[]{}'\"#\t\r\x00\x1b\x7f"
token = st.one_of(VERTEX, COLOR, COUNT, NUMBER, st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=6))


@st.composite
def command_line(draw) -> str:
    """`[id] name args`: usually the command's own kinds of arguments (now and then one short),
    sometimes random tokens."""
    cmd_id = draw(st.one_of(st.none(), st.integers(0, 10 ** 6)))
    name = draw(st.sampled_from(WEIGHTED))
    roll = draw(st.integers(0, 19))
    if roll < 17:
        args = list(draw(ARGS.get(name, st.just(()))))
        if roll == 16:
            args = args[:-1]
    else:
        args = draw(st.lists(token, max_size=4))
    return " ".join(([str(cmd_id)] if cmd_id is not None else []) + [name] + args)


FUZZ = settings(max_examples=600, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def fuzz_engine(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("fuzz")
    (cwd / "game.sgf").write_bytes(b"(;SZ[7]KM[0.5]AB[aa];B[dd];W[cc];B[ee];W[ff];B[cd])")
    proc = GtpProcess(tesuji_command(*FAST), cwd=str(cwd), timeout=60)
    proc.ok("boardsize 7")
    yield proc
    assert proc.close() == 0, proc.stderr_text()[-2000:]


def is_quit(data: bytes) -> bool:
    """Whether some line of data would reach the engine as `quit` (which ends it, as it should)."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    return any(parse(preprocess(line))[1] == "quit" for line in lines)


def position(engine: GtpProcess) -> tuple[str, str]:
    return engine.ok("printsgf"), engine.ok("showboard")


def send_and_collect(engine: GtpProcess, data: bytes) -> list[str]:
    """Send raw input, then a sentinel command; every reply before the sentinel's (framing checked)."""
    engine.write(data + b"\n" + SENTINEL.encode() + b" protocol_version\n")
    replies = []
    while True:
        reply = engine.read_reply()
        if reply == f"={SENTINEL} 2\n\n":
            return replies
        replies.append(reply)


def check(engine: GtpProcess, data: bytes) -> list[str]:
    before = position(engine)
    replies = send_and_collect(engine, data)
    assert engine.alive()
    for reply in replies:
        assert "internal error" not in reply, (data, reply, engine.stderr_text()[-3000:])
    if replies and all(r.startswith("?") for r in replies):
        assert position(engine) == before, (data, replies)
    return replies


@FUZZ
@given(line=command_line())
def test_random_command_lines(fuzz_engine, line):
    data = line.encode()
    replies = check(fuzz_engine, data)
    if line.split("#", 1)[0].strip():
        assert len(replies) == 1, (line, replies)
        cmd_id = line.split()[0] if line.split()[0].isdigit() else ""
        assert replies[0][1:].startswith(cmd_id + " "), (line, replies)


@settings(FUZZ, max_examples=300)
@given(data=st.binary(max_size=60))
def test_random_bytes(fuzz_engine, data):
    assume(not is_quit(data))
    check(fuzz_engine, data)


def test_engine_survived_with_a_clean_log(fuzz_engine):
    assert fuzz_engine.alive()
    assert fuzz_engine.ok("name") == "Tesuji"
    assert "Traceback" not in fuzz_engine.stderr_text()
