"""GoGui: the analyze-command menu, every view's format and meaning, interrupts, live graphics."""
import re
import time

import numpy as np
import pytest

from engine.config import knobs
from engine.params import EngineParams, SearchParams
from engine.player import Player
from gtp.gogui import GoGuiCommands, ViewCommands, _count
from gtp.protocol import GtpServer
from engine.builder import build_leaf_prior
from gtp.tactics_commands import TacticsCommands
from tests.gtp.gtpproc import GtpProcess, tesuji_command
from tests.gtp.replies import ANALYZE_ENTRY, GFX_LINE, GENMOVE, dboard_rows, is_gfx
from tests.polling import wait_until
from tests.positions import LADDER_SGF


def walls(engine, size=7):
    """Black wall on column C, White wall on column E: A-B are Black's, F-G White's."""
    engine.ok(f"boardsize {size}")
    engine.ok("clear_board")
    for row in range(1, size + 1):
        engine.ok(f"play b C{row}")
        engine.ok(f"play w E{row}")


def test_analyze_commands_are_well_formed_and_known(engine):
    entries = engine.ok("gogui-analyze_commands").split("\n")
    names = []
    for entry in entries:
        m = ANALYZE_ENTRY.fullmatch(entry)
        assert m, entry
        names.append(m.group(2))
        assert engine.ok(f"known_command {m.group(2)}") == "true", entry
    for wanted in ["tesuji-prior", "tesuji-visits", "tesuji-winrates", "tesuji-pv", "tesuji-ownership",
                   "final_status_list", "tesuji-param"]:
        assert wanted in names
    has_tactics = engine.ok("known_command attack") == "true" and engine.ok("known_command defend") == "true"
    assert ("tesuji-tactics" in names) == has_tactics
    assert "dboard/Ownership/tesuji-ownership %m" in entries
    assert "plist/Dead Stones/final_status_list dead" in entries


def test_gogui_interrupt_is_acknowledged(engine):
    assert engine.ok("gogui-interrupt") == ""


def test_search_views(engine):
    walls(engine)
    visits = engine.ok("tesuji-visits b")
    assert is_gfx(visits), visits
    influence = dict(zip(*[iter(visits.split("\n")[0].split()[1:])] * 2))
    assert max(float(v) for v in influence.values()) == 1.0          # the most visited move
    labels = visits.split("\n")[1].split()[1:]
    counts = [int(x) for x in labels[1::2] if x.isdigit()]
    total = int(re.search(r"(\d+) playouts", visits).group(1))
    assert 0 < sum(counts) <= total

    pv = engine.ok("tesuji-pv w")
    assert is_gfx(pv) and pv.startswith("VAR w ")                     # White moves first
    colors = pv.split("\n")[0].split()[1::2]
    assert colors == ["w", "b"] * (len(colors) // 2) + ["w"] * (len(colors) % 2)

    winrates = engine.ok("tesuji-winrates")
    assert is_gfx(winrates) and "Black to play" in winrates
    for value in winrates.split("\n")[1].split()[2::2]:
        assert 0 <= int(value) <= 100

    rows = dboard_rows(engine.ok("tesuji-ownership b"), 7)
    assert all(-1 <= x <= 1 for row in rows for x in row)
    assert rows[3][0] > 0.5 and rows[3][6] < -0.5                     # A4 Black's, G4 White's (top row first)


def test_views_deepen_the_same_search(engine):
    first = int(re.search(r"(\d+) playouts", engine.ok("tesuji-visits")).group(1))
    second = int(re.search(r"(\d+) playouts", engine.ok("tesuji-visits")).group(1))
    assert second >= first + 50                                       # FAST: 50 playouts a view


def test_prior_view_without_a_prior_is_uniform_over_legal_moves(tmp_path):
    engine = GtpProcess(tesuji_command("prior.name=none", "search.playouts=50", "search.n_threads=1"),
                        cwd=str(tmp_path))
    engine.ok("boardsize 9")
    engine.ok("play b E5")
    text = engine.ok("tesuji-prior w")
    assert is_gfx(text) and "prior none (uniform)" in text
    influence = text.split("\n")[0].split()[1:]
    points = influence[0::2]
    assert "E5" not in points and len(points) == 80
    assert set(influence[1::2]) == {"-1.000"}                         # White to move: white squares
    assert engine.close() == 0


def test_prior_view_of_the_default_engine_shows_its_learned_prior(engine):
    engine.ok("play b E5")
    text = engine.ok("tesuji-prior w")
    assert is_gfx(text) and "prior fbt" in text
    shades = {float(x) for x in text.split("\n")[0].split()[2::2]}
    assert len(shades) > 5                                            # not one value everywhere


class PeakedPrior:
    name = "peaked"

    def evaluate(self, board, color):
        n = board.size * board.size
        p = np.full(n + 1, 0.5 / n, dtype=np.float32)
        p[3 * board.size + 3] = 0.5                                   # D4
        return p


def test_prior_view_shows_the_configured_prior():
    player = Player(EngineParams(search=SearchParams(playouts=20)), prior=PeakedPrior())
    player.game.set_size(9)
    server = GtpServer([GoGuiCommands(), ViewCommands(player)])
    reply = server.handle_line("tesuji-prior b")
    text = reply[2:-2]
    assert is_gfx(text) and text.startswith("INFLUENCE ") and " D4 1.000 " in text
    assert "A1 0.012 " in text and "LABEL D4 50 A1 1 " in text and "TEXT prior peaked" in text


def test_tactics_view_and_menu_entries_follow_the_registered_commands():
    player = Player(EngineParams(search=SearchParams(playouts=20)))
    player.game.load_sgf(LADDER_SGF)
    plain = GtpServer([GoGuiCommands(), ViewCommands(player)])
    assert "tesuji-tactics" not in plain.handle_line("gogui-analyze_commands")
    assert plain.handle_line("tesuji-tactics D6") == "? attack and defend are not available\n\n"

    server = GtpServer([GoGuiCommands(), ViewCommands(player), TacticsCommands(player, build_leaf_prior)])
    menu = server.handle_line("gogui-analyze_commands")
    assert "gfx/Tactical Status/tesuji-tactics %p" in menu and "pstring/Attack/attack %p" in menu
    reply = server.handle_line("tesuji-tactics D6")
    assert reply.startswith("= MARK D6\n")
    text = reply[2:-2]
    assert is_gfx(text), text
    attack = server.handle_line("attack D6")[2:-2].split()
    assert attack[0] == "1" and f"{attack[1]} A" in text               # the capturing move is labelled
    assert re.search(r"TEXT D6 \(1 stones\): (dead|unsettled), attack ", text)
    assert server.handle_line("tesuji-tactics E1") == "? no stone at E1\n\n"


def test_dead_stones_and_score_entries(engine):
    walls(engine)
    engine.ok("play b G2")                                            # a lone black stone in White's area
    dead = engine.ok("final_status_list dead")
    assert dead.split() == ["G2"]
    assert re.fullmatch(r"[BW]\+\d+(\.\d+)?|0", engine.ok("final_score"))


def test_param_lists_and_sets_runtime_options(engine):
    lines = engine.ok("tesuji-param").split("\n")
    assert [line.split()[1] for line in lines] == [k for k, f in knobs().items() if f.metadata["runtime"]]
    assert "[bool] gtp.live_gfx 0" in lines and "[bool] search.ponder 0" in lines
    assert all(re.fullmatch(r"\[(bool|string)\] [a-z_.]+ \S+", x) for x in lines)
    engine.ok("tesuji-param search.ponder 1")
    assert "[bool] search.ponder 1" in engine.ok("tesuji-param").split("\n")
    engine.ok("tesuji-param search.ponder 0")
    assert engine.fail("tesuji-param search.playouts -3").startswith("search.playouts: must be >= 0")
    assert engine.fail("tesuji-param search.n_threads 4") == "unknown parameter search.n_threads"
    assert engine.fail("tesuji-param gtp.live_gfx") == "syntax error"
    assert "[string] search.playouts 50" in engine.ok("tesuji-param").split("\n")


@pytest.fixture
def slow_engine(tmp_path):
    """No playout limit and no clock: genmove searches until interrupted (or 600 s, ten times the read
    timeout, so that a reply at all shows the interrupt), a view until interrupted or 5 s."""
    proc = GtpProcess(tesuji_command("search.playouts=0", "search.seed=3", "search.max_nodes=20000",
                                     "time.max_time_per_move=600", "gtp.live_gfx=true",
                                     "gtp.live_gfx_interval=0.05"),
                      cwd=str(tmp_path))
    proc.ok("boardsize 9")
    yield proc
    assert proc.close() == 0, proc.stderr_text()[-2000:]


def test_interrupt_line_stops_genmove_with_a_move(slow_engine, record_property):
    slow_engine.write(b"1 genmove b\n")
    wait_until(lambda: "gogui-gfx:" in slow_engine.stderr_text(), "genmove's first live graphics")
    sent = time.monotonic()
    slow_engine.write(b"# interrupt\n")
    reply = slow_engine.read_reply()
    record_property("genmove_interrupt_seconds", round(time.monotonic() - sent, 4))
    m = re.fullmatch(r"=1 (\S+)\n\n", reply)
    assert m and GENMOVE.fullmatch(m.group(1)) and m.group(1) != "resign"
    assert slow_engine.ok("printsgf").count(";B[") == 1               # the move was played
    # A view can be interrupted too. The `# interrupt` is read as soon as the view's job has started,
    # often before its first playout: the view then draws the tree it holds, whose root (the played
    # move's node, reused) has no children when genmove's full node store never expanded it. So a
    # view of a set size gives that root visited moves first, and the interrupted one, which only
    # the interrupt can end, deepens the same tree.
    slow_engine.ok("tesuji-param gtp.view_playouts 50")
    first = slow_engine.ok("tesuji-visits")
    assert first.startswith("INFLUENCE ") and is_gfx(first)
    slow_engine.ok("tesuji-param gtp.view_playouts 1000000000")
    slow_engine.write(b"tesuji-visits\n")
    slow_engine.write(b"# interrupt\n")
    reply = slow_engine.read_reply()
    assert reply.startswith("= INFLUENCE ") and is_gfx(reply[2:-2])
    assert playouts(reply) >= playouts(first)                         # the same tree, kept
    assert slow_engine.ok("name") == "Tesuji"


def playouts(view: str) -> int:
    """The root's playouts in a search view's status line."""
    return int(re.search(r"(\d+) playouts", view).group(1))


def test_live_graphics_during_genmove(slow_engine):
    # Long enough for several 0.05 s updates on any machine: 3,000 playouts could end inside the first.
    slow_engine.ok("tesuji-param search.playouts 30000")
    slow_engine.ok("genmove b")
    wait_until(lambda: "gogui-gfx: CLEAR" in slow_engine.stderr_text(), "the live graphics to be cleared", timeout=5)
    err = slow_engine.stderr_text()
    blocks = err.split("gogui-gfx:\n")[1:]
    assert blocks, err[-2000:]
    for block in blocks:
        body = block.split("\n\n")[0]
        assert is_gfx(body), body
        assert "TEXT Black to play:" in body
    assert err.rstrip().endswith("gogui-gfx: CLEAR")
    slow_engine.ok("tesuji-param gtp.live_gfx 0")                     # switched off at run time
    slow_engine.ok("genmove w")
    assert slow_engine.stderr_text().count("gogui-gfx:\n") == len(blocks)


@pytest.mark.parametrize("n, text", [(0, "0"), (999, "999"), (1234, "1.2k"), (12_345, "12k"), (2_500_000, "2.5M")])
def test_visit_labels_fit_on_a_point(n, text):
    assert _count(n) == text
    assert GFX_LINE.fullmatch(f"LABEL D4 {text}")
