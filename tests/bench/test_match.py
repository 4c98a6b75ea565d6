"""Short real matches: GnuGo against GnuGo, and a broken engine (fake_engine.py) against GnuGo."""
import concurrent.futures as cf
import json
import os
import signal
import subprocess
import sys
import time
import textwrap
from pathlib import Path

import pytest
from sgfmill import boards, common, sgf

from bench.game import GameTask, play_game
from bench.gameclock import TimeSettings
from bench.gamerecords import read_games
from bench.match import main, run_match
from bench.matchrun import Run
from bench.records import RunError
from bench.runlock import LOCK_NAME, locked
from bench.runreport import progress_line
from bench.matchconfig import EngineSpec, load_config
from bench.report import read_dat
from bench.sgf import main as sgf_main
from tests.polling import wait_until

GNUGO = "/usr/games/gnugo --mode gtp --level 1 --chinese-rules"
REFEREE = "/usr/games/gnugo --mode gtp --chinese-rules --positional-superko"
FAKE = f"{sys.executable} {Path(__file__).with_name('fake_engine.py')}"

pytestmark = pytest.mark.usefixtures("gnugo_binary")


def write_config(tmp_path, text, name="m.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def gnugo_pair(name, games, more=""):
    """A 5x5 match of GnuGo against itself, refereed; `more` adds YAML lines (e.g. variants)."""
    return textwrap.dedent(f"""
        name: {name}
        board_size: 5
        komi: 0.5
        games: {games}
        referee: {REFEREE}
        player: {GNUGO}
        opponent: {GNUGO}
    """) + textwrap.dedent(more)


def records(run_dir):
    return list(read_games(run_dir).values())


def sgf_root(run_dir, name):
    """The root node of a game's SGF, as `python -m bench.sgf` writes it from the records."""
    assert sgf_main([str(run_dir), "--games", name.rpartition("-")[2], "--out", str(run_dir / "sgf")]) == 0
    return sgf.Sgf_game.from_bytes((run_dir / "sgf" / f"{name}.sgf").read_bytes())


def test_a_gnugo_match_writes_every_output_with_correct_tallies(tmp_path, capsys):
    config = write_config(tmp_path, f"""
        name: gg
        board_size: 5
        komi: 0.5
        games: 4
        referee: {REFEREE}
        player:
          command: {GNUGO}
          label: GnuGo-P
          setup: ["set_random_seed {{seed}}"]
        opponent:
          command: {GNUGO}
          label: GnuGo-O
    """)
    out = tmp_path / "run"
    assert main([str(config), "--jobs", "2", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    games = sorted(records(out), key=lambda r: r["game"])
    assert [r["game"] for r in games] == [0, 1, 2, 3]
    assert [r["player_colour"] for r in games] == ["b", "w", "b", "w"]
    # Every game is finished and scored, and area scoring agrees with the referee.
    for r in games:
        assert r["end"] in ("passes", "resign") and r["result"] not in (None, "Void")
        if r["end"] == "passes":
            assert r["result_referee"] and not r["disagreement"]
    # SGFs: players, komi, the true result and one timed node per move.
    wins = 0
    for r in games:
        game = sgf_root(out, f"main-{r['game']}")
        root = game.get_root()
        black, white = ("GnuGo-O", "GnuGo-P") if r["alternated"] else ("GnuGo-P", "GnuGo-O")
        assert (root.get("PB"), root.get("PW"), root.get("KM"), root.get("SZ")) == (black, white, 0.5, 5)
        assert root.get("RE") == r["result"]
        nodes = game.get_main_sequence()[1:]
        assert len(nodes) == len(r["moves"]) and all(n.get("C").endswith(" s") for n in nodes)
        wins += root.get("RE").startswith("BW"[r["alternated"]] + "+")
    # The tallies, the .dat and the printed table agree with the SGFs.
    summary = json.loads((out / "summary.json").read_text())["variants"][0]
    assert (summary["games"], summary["wins"], summary["losses"] + summary["draws"]) == (4, wins, 4 - wins)
    header, rows = read_dat(out / "main.dat")
    assert header["BlackLabel"] == "GnuGo-P" and header["Size"] == "5" and header["Referee"] == "GNU Go"
    assert sum(row["RES_R"].startswith("B+") for row in rows) == wins      # -black engine's view
    assert [row["ALT"] for row in rows] == ["0", "1", "0", "1"]
    assert f"{wins}-{4 - wins}-0" in printed and "GnuGo-P vs GnuGo-O" in printed
    assert (out / "summary.txt").read_text().strip() in printed
    assert (out / "winrate.png").read_bytes()[:4] == b"\x89PNG"
    meta = json.loads((out / "run.json").read_text())
    assert meta["engines"]["opponent"]["version"] == "3.8" and meta["config"]["games"] == 4
    assert (meta["bench"], meta["slug"]) == ("match", "run") and meta["invocations"][0]["commit"]
    assert not list(out.glob("*.sgf"))                                   # SGFs are derived, not written
    figure = json.loads((out / "summary.json").read_text())["figures"][0]
    assert (figure["key"], figure["n"], figure["unit"]) == ("main", 4, "win rate")
    assert figure["text"].startswith(f"{wins}-{4 - wins}-0 of 4, {100 * wins / 4:.1f}% [")


def test_crash_hang_and_illegal_moves_are_recorded_and_the_run_goes_on(tmp_path):
    # Each variant breaks in game 0 only; game 1 is played by a fresh engine and ends normally.
    fake = f"{FAKE} --at 2 --moves 3 --game 0 --this-game {{game}}"
    config = write_config(tmp_path, f"""
        name: faults
        board_size: 5
        komi: 0.5
        games: 2
        referee: {REFEREE}
        player:
          command: {fake}
          timeout: 1.5
        opponent: {GNUGO}
        variants:
          - name: crash
            args: --fail crash
          - name: hang
            args: --fail hang
          - name: illegal
            args: --fail illegal
          - name: garbage
            args: --fail garbage
    """)
    run, failed = run_match(load_config(config), tmp_path / "run", jobs=2, progress=False)
    assert failed == 0
    by_key = {(r["variant"], r["game"]): r for r in records(tmp_path / "run")}
    assert len(by_key) == 8
    crash, hang = by_key[("crash", 0)], by_key[("hang", 0)]
    assert crash["end"] == "fault" and crash["fault"]["role"] == "player"
    assert crash["fault"]["kind"] == "crash" and "exit code 3" in crash["fault"]["message"]
    assert hang["end"] == "fault" and hang["fault"]["kind"] == "timeout"
    assert crash["result"] == hang["result"] == "Void" and crash["winner"] is None
    illegal = by_key[("illegal", 0)]
    assert illegal["end"] == "illegal" and illegal["result"] == "W+F"        # player was Black
    assert illegal["reason"].endswith("occupied")
    garbage = by_key[("garbage", 0)]
    assert garbage["end"] == "illegal" and "not a vertex" in garbage["reason"]
    for variant in ("crash", "hang", "illegal", "garbage"):
        game1 = by_key[(variant, 1)]
        assert game1["end"] == "passes" and game1["fault"] is None and game1["winner"] == "b"
    summaries = {s.variant: s for s in run.summaries()}
    assert (summaries["crash"].faults, summaries["crash"].void, summaries["crash"].losses) == (1, 1, 1)
    assert (summaries["illegal"].faults, summaries["illegal"].illegal, summaries["illegal"].losses) == (0, 1, 2)
    _, rows = read_dat(tmp_path / "run" / "hang.dat")
    assert rows[0]["ERR"] == "1" and "timeout" in rows[0]["ERR_MSG"] and rows[1]["ERR"] == "0"
    root = sgf_root(tmp_path / "run", "crash-0").get_root()
    assert root.get("RE") == "Void" and "Fault: player crash" in root.get("C")


def test_void_games_are_replayed_under_new_indices_up_to_replay_void(tmp_path):
    # "once" crashes in game 1: game 3 replaces it. "often" crashes in games 0, 3 and 4: games 3 and 4
    # replace games 0 and 3, and the third void is not replaced (replay_void: 2).
    fake = f"{FAKE} --fail crash --at 2 --moves 3 --this-game {{game}}"
    config = write_config(tmp_path, f"""
        name: replays
        board_size: 5
        komi: 0.5
        games: 3
        replay_void: 2
        referee: {REFEREE}
        player: {fake}
        opponent: {GNUGO}
        variants:
          - name: once
            args: --game 1
          - name: often
            args: --game 0 3 4
    """)
    out = tmp_path / "run"
    run, failed = run_match(load_config(config), out, jobs=2, progress=False)
    assert failed == 0
    played = {(r["variant"], r["game"]): r["result"] for r in records(out)}
    assert sorted(played) == sorted([("once", i) for i in range(4)] + [("often", i) for i in range(5)])
    void = sorted(k for k, result in played.items() if result == "Void")
    assert void == [("often", 0), ("often", 3), ("often", 4), ("once", 1)]
    summaries = {s.variant: s for s in run.summaries()}
    assert (summaries["once"].games, summaries["once"].void) == (4, 1)
    assert (summaries["often"].games, summaries["often"].void) == (5, 3)
    assert summaries["once"].wins + summaries["once"].losses + summaries["once"].draws == 3
    _, rows = read_dat(out / "once.dat")
    assert len(rows) == 4
    run_match(load_config(config), out, jobs=1, progress=False)       # a resume plays nothing more
    assert len(records(out)) == 9


def task(player, opponent=GNUGO, referee=REFEREE, **kw):
    spec = lambda c: EngineSpec(c, timeout=5) if c else None
    fields = dict(run="t", variant="v", index=0, seed=1, board_size=5, komi=0.5, handicap=0,
                  move_limit=75, swapped=False, player=spec(player), opponent=spec(opponent),
                  referee=spec(referee))
    fields.update(kw)
    return GameTask(**fields)


def test_a_fault_can_count_as_a_loss_for_the_faulty_engine():
    record = play_game(task(f"{FAKE} --fail crash --at 2", fault_result="loss"))
    assert record["end"] == "fault" and record["fault"]["role"] == "player"
    assert record["result"] == "W+F" and record["winner"] == "w"


def test_a_referee_that_disagrees_is_recorded_not_followed():
    record = play_game(task(f"{FAKE} --moves 2", referee=f"{FAKE} --score W+99"))
    assert record["end"] == "passes" and record["result_referee"] == "W+99"
    assert record["disagreement"] and record["result"] != "W+99"
    # two passes left the board open and GnuGo (the opponent) counts it otherwise: marked unfinished
    assert record["open_points"] > 0 and record["unfinished"]


def test_an_open_board_is_scored_as_the_referee_and_the_engines_all_count_it():
    claim = f"{FAKE} --moves 2 --score W+99"
    record = play_game(task(claim, claim, referee=f"{FAKE} --score W+99"))
    assert record["open_points"] > 0 and "unfinished" not in record
    assert (record["result"], record["winner"], record["score"]) == ("W+99", "w", -99.0)
    assert not record["disagreement"]


def test_a_disputed_count_is_played_out_with_cleanup_moves_and_every_stone_left_counts():
    # The fake (Black) plays A1 and B1, then passes, and claims B+99: GnuGo's count says otherwise.
    record = play_game(task(f"{FAKE} --moves 2 --score B+99", GNUGO, board_size=9, komi=7.5,
                            move_limit=243, disputes="play"))
    dispute = record["dispute"]
    assert record["end"] == "cleanup" and dispute["engine_results"]["player"] == "B+99"
    n = dispute["after_moves"]
    assert dispute["result_referee"].startswith("W+") and record["moves"][n - 2:n] == ["pass", "pass"]
    board = boards.Board(9)
    for i, vertex in enumerate(record["moves"]):
        if vertex != "pass":
            board.play(*common.move_from_vertex(vertex, 9), "bw"[i % 2])
    assert board.get(0, 0) is None and board.get(0, 1) is None   # GnuGo's cleanup captured them
    assert record["dead_stones"] == [] and record["result"] == f"W+{-(board.area_score() - 7.5):g}"
    assert record["result"] == record["result_referee"]


def test_an_undisputed_count_is_not_played_out():
    record = play_game(task(f"{FAKE} --moves 2 --score W+99", GNUGO, board_size=9, komi=7.5,
                            move_limit=243, disputes="play"))
    assert record["end"] == "passes" and "dispute" not in record


def test_the_move_limit_ends_and_scores_the_game():
    record = play_game(task(GNUGO, referee=None, move_limit=4))
    assert record["end"] == "move_limit" and len(record["moves"]) == 4
    board = boards.Board(5)                     # the final position's area score, by sgfmill
    for i, vertex in enumerate(record["moves"]):
        row, col = common.move_from_vertex(vertex, 5)
        board.play(row, col, "bw"[i % 2])
    margin = board.area_score() - 0.5
    assert record["result"] == (f"B+{margin:g}" if margin > 0 else f"W+{-margin:g}")


def test_an_interrupted_run_resumes_without_replaying_games(tmp_path):
    out = tmp_path / "run"
    run_match(load_config(write_config(tmp_path, gnugo_pair("resume", 2))), out, jobs=1, progress=False)
    first = (out / "games.jsonl").read_text()
    assert len(first.splitlines()) == 2
    # A kill while writing leaves half a line: that game is not trusted, the others are kept.
    (out / "games.jsonl").write_text(first + '{"variant": "main", "game": 2, "res')

    class Counting(cf.ThreadPoolExecutor):
        submitted = []

        def submit(self, fn, task):
            self.submitted.append(task.index)
            return super().submit(fn, task)

    with Counting(max_workers=2) as executor:
        run, failed = run_match(load_config(write_config(tmp_path, gnugo_pair("resume", 4))), out,
                                executor=executor, progress=False)
    assert sorted(Counting.submitted) == [2, 3] and failed == 0
    assert (out / "games.jsonl").read_text().startswith(first)
    lines = (out / "games.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["game"] for line in lines) == [0, 1, 2, 3]   # the cut line is gone
    assert sorted(r["game"] for r in run.records.values()) == [0, 1, 2, 3]
    assert run.summaries()[0].games == 4
    meta = json.loads((out / "run.json").read_text())
    assert [i["games_already_played"] for i in meta["invocations"]] == [0, 2]


def test_variants_plays_only_the_named_variants_and_a_later_run_plays_the_rest(tmp_path, capsys):
    config = write_config(tmp_path, gnugo_pair("some", 2, """
        variants:
          - name: one
          - name: two
    """))
    out = tmp_path / "run"
    assert main([str(config), "--out", str(out), "--no-progress", "--variants", "nine", "two"]) == 2
    assert "no variant named nine" in capsys.readouterr().err and not (out / "games.jsonl").exists()
    assert main([str(config), "--out", str(out), "--no-progress", "--variants", "two"]) == 0
    assert sorted((r["variant"], r["game"]) for r in records(out)) == [("two", 0), ("two", 1)]
    summary = {v["variant"]: v["games"] for v in json.loads((out / "summary.json").read_text())["variants"]}
    assert summary == {"one": 0, "two": 2}
    assert main([str(config), "--out", str(out), "--no-progress"]) == 0
    played = [(r["variant"], r["game"]) for r in records(out)]
    assert sorted(played) == [("one", 0), ("one", 1), ("two", 0), ("two", 1)]   # two's games not replayed
    # Each line leaves out what the run shares; the variant that came later joined game_common.
    common = json.loads((out / "run.json").read_text())["game_common"]
    assert set(common["player_command"]) == {"one", "two"} and common["board_size"] == 5
    lines = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert not any({"player_command", "opponent_command", "referee_command", "board_size", "run"} & set(line)
                   for line in lines)
    assert all(isinstance(line["moves"], str) and isinstance(line["times"], str) for line in lines)


def test_games_option_plays_that_many_in_place_of_the_configs_and_a_later_run_the_rest(tmp_path, capsys):
    config = write_config(tmp_path, gnugo_pair("some", 3))
    out = tmp_path / "run"
    with pytest.raises(SystemExit):
        main([str(config), "--out", str(out), "--no-progress", "--games", "0"])
    assert "--games must be at least 1" in capsys.readouterr().err and not out.exists()
    assert main([str(config), "--out", str(out), "--no-progress", "--games", "1"]) == 0
    assert [r["game"] for r in records(out)] == [0]
    assert json.loads((out / "summary.json").read_text())["variants"][0]["games"] == 1
    assert main([str(config), "--out", str(out), "--no-progress"]) == 0
    assert sorted(r["game"] for r in records(out)) == [0, 1, 2]


def test_a_head_to_head_between_two_tesuji_variants_is_played_and_refereed(tmp_path):
    tesuji = "python -m gtp.cli gtp --set search.playouts=150 --set search.n_threads=1 --set search.seed={seed}"
    config = write_config(tmp_path, f"""
        name: h2h
        board_size: 7
        komi: 7.5
        games: 2
        referee: {REFEREE}
        player:
          command: {tesuji} --config configs/mm.yaml
          label: Tesuji-mm
        opponent:
          command: {tesuji} --set prior.name=none
          label: Tesuji-none
    """)
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "bench.match", str(config), "--jobs", "2", "--out", str(out),
                           "--no-progress"], cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    games = sorted(records(out), key=lambda r: r["game"])
    assert [r["player_colour"] for r in games] == ["b", "w"]
    for r in games:
        assert r["fault"] is None and r["reason"] is None and r["result"] not in (None, "Void")
        assert "configs/mm.yaml" in r["player_command"] and "prior.name=none" in r["opponent_command"]
        assert r["engine_results"] is not None and len(r["moves"]) > 10
        if r["end"] == "passes":
            assert r["result_referee"] and not r["disagreement"]
    engines = json.loads((out / "run.json").read_text())["engines"]
    assert engines["player:main"]["name"] == engines["opponent"]["name"] == "Tesuji"   # from GTP `name`
    assert "Tesuji-mm" in proc.stdout and "Tesuji-none" in (out / "main.dat").read_text()


def default_sigint() -> None:
    """Ctrl-C as at a terminal, even when the tests run in the background (where SIGINT is ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_hanging_match(tmp_path) -> tuple[subprocess.Popen, Path]:
    """`python -m bench.match` in its own session, two games under way whose player hangs and two more
    queued; returns the process and the file listing the pids of the engines started."""
    pids, hanging = tmp_path / "pids", tmp_path / "hanging"
    config = write_config(tmp_path, f"""
        board_size: 5
        games: 4
        player:
          command: {FAKE} --fail hang --at 1 --pidfile {pids} --hangfile {hanging}
          timeout: 60
        opponent: {GNUGO}
    """)
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "bench.match", str(config), "--out", str(tmp_path / "run"),
                             "--jobs", "2", "--no-progress"], cwd=root, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    wait_until(lambda: hanging.exists() and len(hanging.read_text().split()) >= 2,
               "the player of both games to hang", timeout=30)
    return proc, pids


def is_running(pid: int) -> bool:
    """A process that has not ended (a zombie has)."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def wait_exited(pids) -> None:
    """Every process of pids ends within 10 s (a loaded machine reaps late)."""
    pids = list(pids)
    try:
        wait_until(lambda: not any(map(is_running, pids)), f"the processes {pids} to end", timeout=10)
    except AssertionError as e:
        left = ",".join(str(p) for p in pids if is_running(p))
        ps = subprocess.run(["ps", "-o", "pid,ppid,pgid,stat,etime,wchan:24,args", "-p", left or "1"],
                            capture_output=True, text=True).stdout
        raise AssertionError(f"{e}; still running:\n{ps}") from None


def stopped(proc: subprocess.Popen, timeout: float = 30.0) -> str:
    """The stderr of a harness that must exit within `timeout` seconds. If it does not, the test fails
    with the Python stacks of the harness and its pool workers (SIGUSR1) and their process states."""
    try:
        return proc.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        tree = subprocess.run(["ps", "-o", "pid,ppid,stat,wchan:24,args", "-g", str(proc.pid)],
                              capture_output=True, text=True).stdout
        workers = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        for pid in [proc.pid, *map(int, workers)]:
            try:
                os.kill(pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
        time.sleep(2)              # time to print the stacks, which nothing announces, before the kill
        os.killpg(proc.pid, signal.SIGKILL)
        err = proc.communicate()[1]
        pytest.fail(f"the harness did not exit within {timeout} s\n{tree}\n{err[-20000:]}")


def test_ctrl_c_stops_the_run_and_its_engines_and_says_how_to_resume(tmp_path):
    proc, pids = start_hanging_match(tmp_path)
    os.killpg(proc.pid, signal.SIGINT)
    err = stopped(proc)                        # it takes about 3 s; an engine timeout is 60
    assert proc.returncode == 130 and "run the same command again to resume" in err
    assert "Traceback" not in err
    wait_exited(map(int, pids.read_text().split()))


def test_a_sigterm_to_the_harness_alone_stops_its_workers_and_engines(tmp_path):
    proc, pids = start_hanging_match(tmp_path)
    group = [int(p) for p in subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True,
                                             text=True).stdout.split() if int(p) != proc.pid]
    assert group                              # the pool workers and the engines they started
    proc.send_signal(signal.SIGTERM)          # the harness only, as a job scheduler would
    err = stopped(proc)                        # it takes about 3 s; an engine timeout is 60
    assert "run the same command again to resume" in err and "Traceback" not in err
    wait_exited(group + [int(p) for p in pids.read_text().split()])


def test_a_second_run_on_a_folder_in_use_is_refused_and_a_killed_run_leaves_no_lock(tmp_path):
    first, _ = start_hanging_match(tmp_path)
    out = tmp_path / "run"
    meta = (out / "run.json").read_text()
    second = subprocess.run([sys.executable, "-m", "bench.match", str(tmp_path / "m.yaml"), "--out", str(out),
                             "--no-progress"], cwd=Path(__file__).resolve().parents[2],
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == 2
    assert f"{out} is in use by another run (process {first.pid} on " in second.stderr
    assert "Traceback" not in second.stderr
    assert (out / "run.json").read_text() == meta            # the second run wrote nothing
    os.killpg(first.pid, signal.SIGKILL)                      # a crash: no clean-up runs
    first.communicate(timeout=30)
    assert (out / LOCK_NAME).exists()
    with locked(out):                                         # ... yet the folder is free
        with pytest.raises(RunError, match="in use by another run"):
            with locked(out):
                pass
    assert not (out / LOCK_NAME).exists()


def test_resuming_with_a_different_board_is_refused(tmp_path, capsys):
    text = f"""
        board_size: {{size}}
        games: 1
        player: {GNUGO}
        opponent: {GNUGO}
    """
    out = tmp_path / "run"
    assert main([str(write_config(tmp_path, text.format(size=5))), "--out", str(out), "--no-progress"]) == 0
    assert main([str(write_config(tmp_path, text.format(size=7))), "--out", str(out), "--no-progress"]) == 2
    assert "board_size" in capsys.readouterr().err


def test_a_run_resumes_without_the_disputes_key_and_is_refused_with_another_rule(tmp_path, capsys):
    out = tmp_path / "run"
    run = lambda more, games=1: main([str(write_config(tmp_path, gnugo_pair("d", games, more))), "--out",
                                      str(out), "--no-progress"])
    assert run("") == 0 and run("disputes: referee\n", games=2) == 0   # the default, said or not
    assert run("disputes: play\n", games=3) == 2
    assert "disputes" in capsys.readouterr().err and len(records(out)) == 2


def test_an_engine_that_cannot_start_stops_the_run_before_any_game(tmp_path, capsys):
    config = write_config(tmp_path, f"""
        board_size: 5
        games: 2
        player: /no/such/engine
        opponent: {GNUGO}
    """)
    assert main([str(config), "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "player" in err and "/no/such/engine" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "games.jsonl").exists()


def test_a_match_runs_on_a_dask_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    config = write_config(tmp_path, f"""
        name: dask
        board_size: 5
        komi: 0.5
        games: 2
        referee: {REFEREE}
        player: {GNUGO}
        opponent: {GNUGO}
    """)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        code = main([str(config), "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "run"),
                     "--no-progress"])
    assert code == 0
    games = records(tmp_path / "run")
    assert sorted(r["game"] for r in games) == [0, 1]
    assert all(r["result"] not in (None, "Void") for r in games)
    assert len(read_dat(tmp_path / "run" / "main.dat")[1]) == 2


def test_timed_games_send_the_clock_and_a_slow_engine_loses_on_time(tmp_path):
    # 5x5, 2 s sudden death against GnuGo: the quick engine finishes its game on the clock;
    # the one that sleeps 0.8 s before each move runs out at its third move.
    log = tmp_path / "commands.log"
    config = write_config(tmp_path, f"""
        name: timed
        board_size: 5
        komi: 0.5
        games: 1
        max_moves: 16
        referee: {REFEREE}
        time: {{system: absolute, main: 2}}
        player:
          command: {FAKE} --log {log}
          label: Fake
        opponent:
          command: {GNUGO}
          label: GnuGo
        variants:
          - name: quick
          - name: slow
            command: {FAKE} --sleep 0.8
    """)
    out = tmp_path / "run"
    assert main([str(config), "--out", str(out), "--no-progress"]) == 0
    games = {r["variant"]: r for r in records(out)}
    quick, slow = games["quick"], games["slow"]
    assert quick["end"] in ("passes", "move_limit") and not quick["clock"]["player"]["lost"]
    assert slow["end"] == "time" and slow["result"] == "W+T" and slow["winner"] == "w"
    assert slow["clock"]["player"]["lost"] and not slow["clock"]["opponent"]["lost"]
    assert len(slow["moves"]) == 4                 # two moves each (1.6 s); the third came too late (2.4 s)
    assert slow["clock"]["player"]["used"] > 2 and slow["clock"]["player"]["available"] == 2
    for record in games.values():
        opponent = record["clock"]["opponent"]
        assert 0 < opponent["used"] <= opponent["available"] == 2
    # The quick engine was told the settings, then its clock before each genmove, as kgsGtp does.
    lines = log.read_text().splitlines()
    assert "time_settings 2 0 0" in lines and "kgs-time_settings absolute 2" in lines
    genmoves = [i for i, line in enumerate(lines) if line.startswith("genmove")]
    assert genmoves and all(lines[i - 1].startswith("time_left b ") for i in genmoves)
    assert lines[genmoves[0] - 1] == "time_left b 2 0"
    assert sgf_root(out, "slow-0").get_root().get("RE") == "W+T"
    summary = (out / "summary.txt").read_text()
    assert "2 s sudden death" in summary and "lost on time" in summary
    assert json.loads((out / "summary.json").read_text())["variants"][1]["clock"]["player"]["lost_on_time"] == 1


def test_a_timed_gnugo_game_with_japanese_byoyomi():
    settings = TimeSettings("byoyomi", 1, 1, 2)
    record = play_game(task(GNUGO, time=settings))
    assert record["end"] in ("passes", "resign") and not record["result"].endswith("+T")
    for role in ("player", "opponent"):
        clock = record["clock"][role]
        assert not clock["lost"] and 0 < clock["used"] and clock["available"] >= 1.0


# -- SPRT and game pairs: a fake player that plays one stone and passes beats an opponent that only passes --

WINNER = f"{FAKE} --moves 1"
PASSER = f"{FAKE} --moves 0"


def sprt_match(name, games, more="", sprt="{elo0: 0, elo1: 400}"):
    """A 5x5 match the player wins every game of (unless `more` breaks some), without a referee."""
    return textwrap.dedent(f"""
        name: {name}
        board_size: 5
        komi: 0.5
        games: {games}
        sprt: {sprt}
        opponent: {PASSER}
    """) + textwrap.dedent(more)


def test_an_sprt_stops_the_run_at_its_decision_records_the_game_in_flight_and_resumes_to_it(tmp_path, capsys):
    # Two games at a time; game 1 is slow, so the fifth win (game 5) accepts H1 while game 1 still runs.
    config = write_config(tmp_path, sprt_match("sprt", 40, f"""
        player: {WINNER} --fail slow --game 1 --this-game {{game}}
    """))
    out = tmp_path / "run"
    assert main([str(config), "--jobs", "2", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    lines = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert [line["game"] for line in lines] == [0, 2, 3, 4, 5, 1]          # the order they finished in
    test = json.loads((out / "summary.json").read_text())["sequential"][0]
    assert (test["decision"], test["decided_at"], test["in_flight"], test["games"]) == ("H1", 5, 1, 6)
    assert test["llr_at_decision"] >= test["sprt"]["upper"] and test["model"] == "trinomial"
    assert (test["wins"], test["losses"], test["elo"]) == (6, 0, "inf")          # every game won
    text = (out / "summary.txt").read_text()
    assert "H1 accepted after 5 games" in text and "1 game in flight then" in text and text.strip() in printed
    assert "SPRT, at most 40 games per variant" in text
    figures = {f["key"]: f for f in json.loads((out / "summary.json").read_text())["figures"]}
    assert figures["main/sprt"]["text"].startswith("H1 accepted after 5 games (1 more in flight): LLR ")
    assert figures["main/elo"]["unit"] == "Elo" and figures["main/sprt"]["unit"] == "LLR"
    assert all(set(f) == {"key", "label", "value", "low", "high", "n", "unit", "text"} for f in figures.values())
    assert figures["main"]["n"] == 6
    run = Run(load_config(config), out)
    run.records = read_games(out)
    assert progress_line(run).startswith("main 6-0 LLR ") and progress_line(run).endswith(" [-2.94, 2.94] H1 accepted")
    # A resume recomputes the decision from games.jsonl and plays nothing more.
    before = (out / "games.jsonl").read_text()
    assert main([str(config), "--jobs", "2", "--out", str(out), "--no-progress"]) == 0
    assert (out / "games.jsonl").read_text() == before
    assert json.loads((out / "summary.json").read_text())["sequential"][0] == test
    # Wider bounds on the command line: the same games no longer decide, and the run goes on to its decision.
    assert main([str(config), "--jobs", "2", "--out", str(out), "--no-progress", "--sprt", "0", "200"]) == 0
    test = json.loads((out / "summary.json").read_text())["sequential"][0]
    assert (test["decision"], test["decided_at"], test["sprt"]["elo1"]) == ("H1", 8, 200)
    assert test["games"] in (8, 9)


def test_an_sprt_accepts_h0_and_a_cap_without_a_decision_is_reported(tmp_path):
    losing = write_config(tmp_path, sprt_match("h0", 10, f"player: {PASSER}\nopponent: {WINNER}\n"))
    run, _ = run_match(load_config(losing), tmp_path / "h0", jobs=1, progress=False)
    test = run.sequential("main")
    assert (test.result, test.decided_at, test.in_flight, test.losses) == ("H0", 2, 0, 2)
    capped = write_config(tmp_path, sprt_match("cap", 2, f"player: {WINNER}\n"))
    run, _ = run_match(load_config(capped), tmp_path / "cap", jobs=1, progress=False)
    assert run.sequential("main").result == "cap" and "cap reached" in (tmp_path / "cap" / "summary.txt").read_text()


def test_openings_are_played_in_pairs_colours_swapped_recorded_and_counted_per_pair(tmp_path):
    suite = tmp_path / "suite.txt"
    suite.write_text("# size 5\nC3 D4\nB2\n")
    log = tmp_path / "player.log"
    # The player forfeits games 1, 2 and 3 (a fault counted as a loss): pairs score 1, 0 and 2.
    config = write_config(tmp_path, sprt_match("pairs", 6, f"""
        openings: {suite}
        fault_result: loss
        player: {WINNER} --fail error --game 1 2 3 --this-game {{game}} --log {log}
    """, sprt="null"))
    out = tmp_path / "run"
    run, failed = run_match(load_config(config), out, jobs=2, progress=False)
    games = sorted(records(out), key=lambda r: r["game"])
    assert failed == 0 and [r["game"] for r in games] == list(range(6))
    assert [r["player_colour"] for r in games] == ["b", "w"] * 3
    assert [r["opening"] for r in games] == [0, 0, 1, 1, 0, 0]
    assert all(r["opening_file"] == str(suite) for r in games)
    assert [r["moves"][:2] for r in games if r["opening"] == 0] == [["C3", "D4"]] * 4
    assert games[0]["moves"] == ["C3", "D4", "A1", "pass", "pass"] and games[0]["times"][:2] == [0, 0]
    assert games[0]["player_moves"] == 2 and games[0]["winner"] == "b"        # the opening is no one's move
    assert [r["winner"] == r["player_colour"] for r in games] == [True, False, False, False, True, True]
    assert "play b C3" in log.read_text() and "play w D4" in log.read_text()
    test = run.sequential("main")
    assert test.paired and test.counts.counts == (1, 0, 1, 0, 1) and test.test is None
    text = (out / "summary.txt").read_text()
    assert f"pentanomial, game pairs on {suite}" in text and "pairs 0:1 0.5:0 1:1 1.5:0 2:1" in text
    assert json.loads((out / "summary.json").read_text())["sequential"][0]["pairs"] == [1, 0, 1, 0, 1]
    line = json.loads((out / "games.jsonl").read_text().splitlines()[0])
    assert "opening" in line and "opening_file" not in line          # the suite is the run's, in game_common
    root = sgf_root(out, "main-3").get_root()
    assert root.get("GN") == f"main-3, opening 1 of {suite}" and f"Opening: 1 of {suite}" in root.get("C")


def test_a_pair_counts_once_both_its_games_have_a_result_in_the_order_they_finished():
    from bench.report import count_rows

    def game(i, score):
        return {"game": i, "player_colour": "b", "result": "Void" if score is None else "B+1",
                "winner": {1: "b", 0: "w", 0.5: None}.get(score)}
    finished = [game(1, 1), game(0, 0.5), game(3, None), game(2, 1), game(5, 0), game(4, 0)]
    rows = count_rows(finished, paired=True)
    assert rows.tolist() == [[0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 0],
                             [0, 0, 0, 1, 0], [1, 0, 0, 1, 0]]        # pair 1 has a void game: never counted
    assert count_rows(finished, paired=False)[-1].tolist() == [2, 1, 2]


def test_an_sprt_run_on_a_dask_cluster_keeps_its_threads_busy_and_stops_at_the_decision(tmp_path):
    distributed = pytest.importorskip("distributed")
    config = write_config(tmp_path, sprt_match("dask-sprt", 20, f"player: {PASSER}\nopponent: {WINNER}\n"))
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        code = main([str(config), "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "run"),
                     "--no-progress"])
    assert code == 0
    test = json.loads((tmp_path / "run" / "summary.json").read_text())["sequential"][0]
    assert (test["decision"], test["decided_at"]) == ("H0", 2) and test["games"] <= 3
