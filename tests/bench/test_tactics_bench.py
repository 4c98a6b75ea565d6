"""bench.tactics: the options and result folders, B2's configuration file and its validation, the speed-up
statistics, the label cache, every B2 configuration's prior and training options on a small problem,
B3's engine command, and the problem keys."""
from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from bench import records
from bench.tactics import b2, b3, labels, report, results
from bench.tactics.b1 import solve_both
from bench.tactics.b2config import ConfigError, b2_settings, parse_b2
from bench.tactics.cli import main, parse_args
from bench.tactics.problems import Problem, distinct_problems, heldout_split, problem_key
from bench.tactics.training import PriorConfig, new_prior, train_prior
from engine import tactics
from engine.board import BLACK, WHITE
from engine.tactics.leafpriors import load_leaf_prior
from tests.bench.test_records import assert_figures, assert_invocation
from tests.boards import board_from_ascii, normalize, vertex
from tests.positions import LADDER, NET

SERIAL = SimpleNamespace(map=lambda f, *its, **kw: list(map(f, *its)))     # a pool that runs in the caller


def problem(diagram: str, goal: str) -> Problem:
    b = board_from_ascii(diagram)
    return Problem(goal, b, vertex(b, goal), libs=b.liberties(vertex(b, goal)))


def test_records_go_to_one_short_folder_per_run(tmp_path, monkeypatch):
    assert results.record_slug("b1") == "b1" and results.record_slug("b1", quick=True) == "b1-quick"
    assert results.record_slug("b2", True, "pool2000") == "b2-quick-pool2000"
    monkeypatch.setattr(records, "RESULTS", tmp_path)
    args = parse_args(["--only", "b2", "--b2-seeds", "5", "--b2-regimes", "local", "--tag", "local5"])
    assert results.record_folder("b2", args) == tmp_path / "tactics" / "b2-local5"
    assert results.config_of(args)["b2_seeds"] == 5 and results.config_of(args)["data"] == str(args.data)


def test_a_b2_run_writes_its_record_and_is_reported_from_it(tmp_path, monkeypatch, capsys):
    ladder, net = problem(LADDER, "D4"), problem(NET, "E4")
    monkeypatch.setattr(records, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(b2, "b2_problems", lambda args, pool: ([ladder, net, ladder], [ladder, net, ladder]))
    for archive in ("tsumego.tar.xz", "gnugo_regression.tar.xz"):
        (tmp_path / archive).touch()
    argv = ["--only", "b2", "--b2-regimes", "local", "--b2-configs", "hier_0obs", "--b2-references", "pns",
            "--b2-local-budget", "500", "--workers", "1", "--data", str(tmp_path), "--tag", "t"]
    assert main(argv) == 0
    folder = tmp_path / "results" / "tactics" / "b2-t"
    run, summary = records.read_run(folder), records.read_summary(folder)
    assert run["bench"] == "tactics" and run["benchmark"] == "b2" and run["config"]["b2_configs"] == ["hier_0obs"]
    assert_invocation(run["invocations"][0], "python -m bench.tactics --only b2")
    figures = {f["key"]: f for f in assert_figures(summary)}
    assert {"local/pns/solved", *(f"local/hier_0obs/{k}" for k in (
        "solved", "newly-solved", "newly-failed", "speedup", "speedup-cpu"))} <= set(figures)
    local = summary["results"]["local"]
    assert "per_problem" not in local and "per_problem" not in local["configs"]["hier_0obs"]
    assert figures["local/pns/solved"]["value"] == local["pns_solved"] and figures["local/pns/solved"]["n"] == 1
    items = records.read_jsonl(folder / "items.jsonl")
    assert [(i["split"], i["regime"], list(i["configs"])) for i in items] == [(0, "local", ["hier_0obs"])]
    assert items[0]["pns"][0] in "TFU" and len(items[0]["configs"]["hier_0obs"]) == 4
    assert "B2" in (folder / "summary.txt").read_text()
    assert main(["--b2-report", str(folder)]) == 0
    assert "hier_0obs" in capsys.readouterr().out


def test_per_problem_rows_leave_the_results_and_come_back_whole():
    def split(seed):
        per = {"names": ["a", "b"], "pns": [["T", 10, 0.1, 0.1], ["U", 50, 0.2, 0.2]]}
        return {"seed": seed, "region": {"per_problem": per, "pns_solved": 1,
                                         "configs": {"h": {"solved": 2, "per_problem": [["T", 5, 0, 0], ["T", 9, 0, 0]]}}}}
    result = {"regimes": ["region"], "splits": [split(1), split(2)], "summary": {}}
    stripped, items = results.split_items("b2", result)
    assert len(items) == 4 and "per_problem" not in stripped["splits"][1]["region"]
    assert items[3] == {"split": 1, "regime": "region", "problem": "b", "pns": ["U", 50, 0.2, 0.2],
                        "configs": {"h": ["T", 9, 0, 0]}}
    assert results.join_items(stripped, items) == result
    b3 = {"tesuji_pns": {"tests": 2, "passed": 1, "rows": [{"test": "1"}, {"test": "2"}]}}
    stripped, items = results.split_items("b3", b3)
    assert stripped == {"tesuji_pns": {"tests": 2, "passed": 1}} and items[1] == {"engine": "tesuji_pns", "test": "2"}
    (passed,) = results.figures("b3", stripped)
    assert (passed["key"], passed["value"], passed["n"]) == ("tesuji_pns/passed", 0.5, 2)


def test_a_subset_of_configurations_in_the_files_order():
    args = parse_args(["--only", "b2"])
    assert args.b2_configs is None and args.b2_references is None and args.tag == ""
    assert parse_args(["--b2-configs", "all"]).b2_configs is None
    args = parse_args(["--b2-configs", "hier_cal_03, hier_consistent,hier_cal_03"])
    assert args.b2_configs == ["hier_consistent", "hier_cal_03"]     # the file's order, no repeats


@pytest.mark.parametrize("argv, message", [(["--b2-configs", "hier_cal,oracle"], "oracle"),
                                           (["--b2-configs", ","], "unknown configuration"),
                                           (["--tag", "a/b"], "--tag"),
                                           (["--b2-test-budget", "0"], "--b2-test-budget"),
                                           (["--b2-max-store", "10"], "--b2-max-store"),
                                           (["--b2-splits", "4,x"], "--b2-splits"),
                                           (["--b2-references", "pns,oracle"], "oracle"),
                                           (["--save-prior", "p.npz"], "--save-prior"),
                                           (["--save-prior", "p.npz", "--b2-configs", "hier_cal"], "--save-prior"),
                                           (["--save-prior", "p.txt", "--b2-configs", "hier_cal", "--b2-regimes",
                                             "local"], ".npz")])
def test_bad_options_are_clear_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_the_configuration_file_keeps_the_recorded_names_and_settings():
    settings = b2_settings()
    assert list(settings.configs)[:4] == ["beta_1", "beta_1000", "hier_0obs", "hier_virtual"]   # the paper's
    assert list(settings.references) == ["pns", "pp_uniform", "pp_uniform_low", "pp_branching",
                                         "pp_branching2_decay1"]
    config = settings.configs["hier_consistent_sharp2_branching2_decay1"]
    assert (config.prior, config.params, config.learn) == ("hier", {"scale": 2.0}, "consistent")
    assert config.options == config.search == {"branching_weight": 2.0, "depth_decay": 1.0}
    assert settings.configs["hier_consistent_u_p3"].options == {"learn_unsolved": True, "passes": 3}
    assert settings.configs["hier_cal"].params == {"shift": np.log(0.1 / 0.9), "scale": 0.5}
    assert settings.references["pp_uniform_low"] == {"method": "pp", "prior_p": 0.1}


GOOD = {"configs": {"a": {"prior": "hier", "learn": "consistent"}}, "references": {"pns": {"method": "pns"}}}


@pytest.mark.parametrize("change, message", [
    ({"extra": {}}, "extra: unknown key"),
    ({"configs": {"a": {"prior": "hier", "lern": True}}}, "configs.a.lern: unknown key"),
    ({"configs": {"a": {"learn": True}}}, "configs.a.prior: the leaf prior's name is missing"),
    ({"configs": {"a": {"prior": "oracle"}}}, "configs.a: unknown tactics prior 'oracle'"),
    ({"configs": {"a": {"prior": "hier", "params": {"sharpness": 2}}}}, "sharpness"),
    ({"configs": {"a": {"prior": "hier", "learn": "sometimes"}}}, "configs.a.learn"),
    ({"configs": {"a": {"prior": "hier", "passes": 0}}}, "configs.a.passes"),
    ({"configs": {"a": {"prior": "hier", "learn_unsolved": "yes"}}}, "configs.a.learn_unsolved"),
    ({"configs": {"a": {"prior": "hier", "search": {"max_nodes": 10}}}}, "configs.a.search.max_nodes: unknown key"),
    ({"configs": {"a": {"prior": "hier", "search": {"depth_decay": -1.0}}}}, "configs.a.search.depth_decay: must be"),
    ({"configs": {"A b": {"prior": "hier"}}}, "configs.A b: a name"),
    ({"references": {"pns": {"method": "pns", "budget": 5}}}, "references.pns.budget: unknown key"),
    ({"references": {"pns": {"method": "pns"}, "pp": {"prior_p": "low"}}}, "references.pp.prior_p: expected a float"),
    ({"references": {"pns": {"method": "pns"}, "pp": {"prior_p": 1.5}}}, "references.pp.prior_p: must be"),
    ({"references": {"pp": {"method": "pp"}}}, "references.pns: missing"),
    ({"configs": [1, 2]}, "configs: expected a mapping"),
    ({"heldout": {"salt": "s", "every": 1}}, "heldout.every"),
    ({"heldout": {"salt": "", "every": 3}}, "heldout.salt"),
    ({"heldout": {"salt": "s", "every": 3, "seed": 1}}, "heldout.seed: unknown key")])
def test_a_bad_configuration_file_is_an_error_naming_the_key(change, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        parse_b2({**GOOD, **change})


def test_an_integer_for_a_float_setting_is_the_same_setting():
    settings = parse_b2({**GOOD, "references": {"pns": {"method": "pns"}, "pp": {"branching_weight": 1}}})
    assert settings.references["pp"] == {"branching_weight": 1.0}
    assert isinstance(settings.references["pp"]["branching_weight"], float)


def test_speedups_in_nodes_and_cpu_seconds():
    pns = [("T", 100, 0.5, 0.4), ("T", 50, 0.2, 0.2), ("U", 1000, 1.0, 0.9), ("T", 10, 0.1, 0.1)]
    pp = [("T", 25, 0.1, 0.1), ("U", 999, 1.0, 1.0), ("T", 400, 0.9, 0.8), ("T", 20, 0.1, 0.2)]
    assert report.speedups(pp, pns, 1) == [4.0, 0.5]                 # only the problems both prove
    assert report.speedups(pp, pns, 3) == [4.0, 0.5]
    assert report.speedups([("T", 25, 0.1)], [("T", 100, 0.5)], 3) == []   # older records: no cpu field
    s = report.ratio_summary([4.0, 0.25, 1.0], "speedup_cpu")
    assert s["speedup_cpu_mean"] == pytest.approx(1.75)           # the paper's arithmetic mean of ratios
    assert s["speedup_cpu_geomean"] == pytest.approx(1.0) and s["speedup_cpu_median"] == 1.0
    assert report.ratio_summary([], "speedup")["speedup_mean"] is None
    assert report.run_stats(pp)["test_cpu_per_problem"] == pytest.approx(0.525)


def test_a_cpu_time_out_is_read_from_node_budgeted_results():
    # the paper's time-out is in seconds: the least CPU of a query that spent the node budget (100) is a
    # time-out every query reached, so a proof that took longer fails there
    pns = [("T", 40, 0, 0.2), ("U", 100, 0, 0.5), ("T", 90, 0, 0.45)]
    pp = [("T", 10, 0, 0.1), ("T", 60, 0, 0.6), ("U", 100, 0, 0.4), ("T", 30, 0, 0.3)]
    assert report.cpu_timeout([pns, pp], 100) == 0.4
    assert report.cpu_timeout([pns[:1]], 100) is None
    assert report.cut_at(pp, 0.4) == [("T", 10, 0, 0.1), ("U", 60, 0, 0.6), ("U", 100, 0, 0.4), ("T", 30, 0, 0.3)]
    t = report.at_timeout(pp[:3], pns, 0.4)
    assert (t["solved"], t["pns_solved"], t["newly_solved"], t["newly_failed"], t["both"]) == (1, 1, 0, 0, 1)
    assert t["speedup_cpu_mean"] == pytest.approx(2.0) and t["timeout_cpu"] == 0.4


def test_speedups_by_the_difficulty_for_pns():
    pns = [("T", 100, 0, 0), ("T", 900, 0, 0), ("T", 5_000, 0, 0), ("T", 40_000, 0, 0), ("U", 50_000, 0, 0)]
    pp = [("T", 50, 0, 0), ("T", 300, 0, 0), ("U", 50_000, 0, 0), ("T", 4_000, 0, 0), ("T", 9_000, 0, 0)]
    bands = report.speedup_bands(pp, pns)
    assert [(b["pns_nodes_from"], b["pns_nodes_below"], b["both"]) for b in bands] == \
        [(0, 1_000, 2), (1_000, 10_000, 0), (10_000, None, 1)]
    assert bands[0]["speedup_mean"] == pytest.approx(2.5) and bands[1]["speedup_mean"] is None
    assert bands[2]["speedup_geomean"] == pytest.approx(10.0)


def test_a_recorded_b2_run_is_reported_by_difficulty_with_its_splits_pooled(tmp_path, capsys):
    def split(pns, pp):
        return {"region": {"per_problem": {"pns": pns}, "configs": {"hier_0obs": {"per_problem": pp}}}}
    record = {"results": {"regimes": ["region"], "splits": [split([("T", 100)], [("T", 25)]),
                                                            split([("T", 20_000)], [("T", 1_000)])]}}
    bands = report.b2_report(record)["region"]["hier_0obs"]
    assert [b["both"] for b in bands] == [1, 0, 1]
    assert bands[0]["speedup_mean"] == 4.0 and bands[2]["speedup_mean"] == 20.0
    assert report.b2_node_cost(record) == {"region": {"pns": None, "hier_0obs": None}}    # no CPU times recorded
    timed = {"results": {"region": {"per_problem": {"names": ["a", "b"], "pns": [("T", 100, 0.1, 0.001),
                                                                                  ("U", 300, 0.1, 0.002)]},
                                    "configs": {"hier_0obs": {"per_problem": [("T", 50, 0.1, 0.0005),
                                                                              ("T", 150, 0.1, 0.0025)]}}}}}
    costs = report.b2_node_cost(timed)["region"]
    assert costs["pns"] == pytest.approx(7.5) and costs["hier_0obs"] == pytest.approx(15.0)
    assert main(["--b2-report", str(tmp_path)]) == 2
    assert "not a B2 record" in capsys.readouterr().err


def test_labels_are_reused_only_with_the_same_parameters(tmp_path):
    path = tmp_path / "labels.json"
    params = {"move_gen": "local", "max_nodes": 50_000, "l_max": 8}
    assert labels.load_labels(path, params) == {}
    labels.save_labels(path, params, {"a": True, "b": False})
    assert labels.load_labels(path, params) == {"a": True, "b": False}
    assert labels.load_labels(path, dict(params, max_nodes=1000)) == {}
    assert labels.load_labels(None, params) == {}
    path.write_text(json.dumps([1, 2, 3]))                       # someone else's file
    assert labels.load_labels(path, params) == {}
    path.write_text("{not json")
    assert labels.load_labels(path, params) == {}


def test_only_new_candidates_are_labelled(tmp_path):
    path = tmp_path / "labels.json"
    params = {"move_gen": "local", "max_nodes": 2000, "l_max": 8}
    calls = []
    pool = SimpleNamespace(map=lambda f, items, *rest: calls.append(len(items)) or list(map(f, items, *rest)))
    ladder, net = problem(LADDER, "D4"), problem(NET, "E4")
    net.name = "net"
    assert labels.known_true(pool, [ladder], params, path) == [True]
    assert labels.known_true(pool, [ladder, net], params, path) == [True, True]
    assert labels.known_true(pool, [net, ladder], params, path) == [True, True]
    assert calls == [1, 1, 0]                                    # the second run labels "net" only
    assert labels.known_true(pool, [ladder], params, None) == [True] and calls[-1] == 1


@pytest.mark.parametrize("name", sorted(b2_settings().configs))
def test_every_configuration_trains_and_answers(name):
    config = b2_settings().configs[name]
    p = problem(LADDER, "D4")
    params = tactics.TacticsParams(move_gen="local", max_nodes=2000, **config.search)
    r = tactics.solve(p.board, p.goal, params=params, prior=new_prior(config), learn=config.learn,
                      learn_unsolved=config.learn_unsolved)
    assert r.value == "T"


def test_b2_regime_runs_the_chosen_configurations_only():
    train, test = [problem(LADDER, "D4")], [problem(NET, "E4"), problem(LADDER, "D4")]
    out = b2.b2_regime(SERIAL, train, test, {"move_gen": "local", "max_nodes": 3000, "l_max": 8}, 1,
                       ["hier_consistent_u_p3"])
    assert list(out["configs"]) == ["hier_consistent_u_p3"]
    s = out["configs"]["hier_consistent_u_p3"]
    assert s["options"] == {"learn_unsolved": True, "passes": 3} and s["passes"] == 3 and s["train_solved"] == 1
    assert out["pns_solved"] == 2 and s["solved"] == 2 and s["both"] == 2
    assert s["speedup_cpu_mean"] is not None and all(len(x) == 4 for x in s["per_problem"])
    assert out["pp_branching_solved"] == 2 and len(out["per_problem"]["pp_branching"]) == 2  # the reference run
    assert out["pp_branching_stats"]["both"] == 2 and out["pp_branching_stats"]["newly_failed"] == 0
    assert out["references"]["pp_branching"] == {"method": "pp", "branching_weight": 1.0}   # the record says


def test_the_test_queries_can_have_their_own_budget():
    train, test = [problem(LADDER, "D4")], [problem(NET, "E4")]
    params = {"move_gen": "region", "max_nodes": 3000, "l_max": 8}
    out = b2.b2_regime(SERIAL, train, test, params, 1, ["hier_0obs"], dict(params, max_nodes=5))
    assert out["test_params"]["max_nodes"] == 5 and out["params"]["max_nodes"] == 3000
    s = out["configs"]["hier_0obs"]
    assert s["train_solved"] == 1                              # trained with 3,000 nodes
    assert [n for _, n, *_ in out["per_problem"]["pns"]] == [5] and [n for _, n, *_ in s["per_problem"]] == [5]


def test_the_test_queries_can_have_a_larger_store():
    args = SimpleNamespace(b2_test_budget=None, b2_max_store=2000)
    params = {"move_gen": "region", "max_nodes": 3000, "l_max": 8}
    assert b2.b2_test_params(args, params) == dict(params, max_store=2000)
    assert b2.b2_test_params(SimpleNamespace(b2_test_budget=None, b2_max_store=None), params) is None


def test_a_trained_prior_is_saved_for_the_gtp_commands(tmp_path, monkeypatch):
    ladder, net = problem(LADDER, "D4"), problem(NET, "E4")
    monkeypatch.setattr(b2, "b2_problems", lambda args, pool: ([ladder, net], [ladder, net]))
    path = tmp_path / "leaf.npz"
    args = parse_args(["--save-prior", str(path), "--b2-configs", "hier_consistent_sharp2_branching",
                       "--b2-regimes", "local", "--b2-local-budget", "3000"])
    info = b2.save_prior(args, SERIAL)
    assert info["problems"] == 2 and info["solved"] >= 1 and info["search"] == {"branching_weight": 1.0}
    prior = load_leaf_prior(path)
    assert prior.params()["scale"] == 2.0 and prior.n_patterns() > 0
    header = json.loads(str(np.load(path, allow_pickle=False)["metadata"]))
    assert header["info"]["config"] == "hier_consistent_sharp2_branching"
    assert header["info"]["training_params"] == {"move_gen": "local", "max_nodes": 3000, "l_max": 8}


def test_splits_and_references_can_be_chosen():
    args = parse_args(["--b2-splits", "6,4", "--b2-references", "pp_branching", "--b2-configs", "hier_0obs"])
    assert args.b2_splits == [4, 6] and args.b2_references == ["pns", "pp_branching"]      # PNS always
    out = b2.b2_regime(SERIAL, [problem(LADDER, "D4")], [problem(NET, "E4")],
                       {"move_gen": "local", "max_nodes": 500, "l_max": 8}, 1, ["hier_0obs"], None, ["pns"])
    assert set(out["per_problem"]) == {"names", "pns"} and "pp_uniform_solved" not in out
    assert report.b2_summary([{"local": out}, {"local": out}], ["local"])["local"].keys() == {"pns", "hier_0obs"}


def test_b1_names_points_as_gtp_vertices():
    row = solve_both(problem(LADDER, "D4"), {"move_gen": "local", "max_nodes": 2000, "l_max": 8})
    assert row["goal"] == "D4" and row["pp_value"] == row["pns_value"] == "T"
    assert row["pp_move"] == row["pns_move"] != "pass"


def test_b3_runs_our_engine_with_reading_settings():
    assert b3.engine_command("pns", 0.5, 20_000) == [
        sys.executable, "-m", "gtp.cli", "gtp", "--set", "reading.method=pns", "reading.prior_p=0.5",
        "reading.max_nodes=20000", "search.max_nodes=1000"]
    args = parse_args(["--b3-prior", "leaf.npz", "--b3-branching", "1", "--b3-budget", "700", "--gnugo", "/absent"])
    engines = b3.b3_engines(args)
    assert list(engines) == ["tesuji_pp", "tesuji_pp_paper", "tesuji_pns", "tesuji_pp_prior"]   # no GnuGo here
    assert engines["tesuji_pp"][5:] == ["reading.method=pp", "reading.prior_p=0.1", "reading.max_nodes=700",
                                        "search.max_nodes=1000"]
    assert engines["tesuji_pp_prior"][5:] == ["reading.method=pp", "reading.prior_p=0.1", "reading.max_nodes=700",
                                              "reading.prior=leaf.npz", "reading.branching_weight=1.0",
                                              "search.max_nodes=1000"]


def turned_and_recoloured(picture: str) -> str:
    """The diagram turned a quarter (rows become columns) with the colours swapped."""
    rows = [r.split() for r in normalize(picture).splitlines()]
    swap = {"X": "O", "O": "X", ".": "."}
    return "\n".join(" ".join(swap[rows[len(rows) - 1 - c][r]] for c in range(len(rows))) for r in range(len(rows)))


def test_a_turned_recoloured_copy_of_a_problem_is_the_same_problem():
    # the books share problems: a copy turned a quarter with the colours swapped has the same key and is
    # dropped from B2's pool; another goal block in the same position is another problem
    board = board_from_ascii(NET)
    copy = board_from_ascii(turned_and_recoloured(NET), to_play=WHITE)
    block = board.group_stones(vertex(board, "E4"))
    copies = [p for p in copy.points() if copy.color_at(p) == BLACK and copy.liberties(p) == board.liberties(block[0])]
    net = Problem("a", board, vertex(board, "E4"))
    same = [Problem("b", copy, p) for p in copies]
    assert sum(problem_key(p) == problem_key(net) for p in same) == 1
    other = [p for p in board.points() if board.color_at(p) == WHITE and p not in block]
    assert other and all(problem_key(Problem("c", board, p)) != problem_key(net) for p in other)
    kept = distinct_problems([net, *same, net])
    assert kept[0] is net and len(kept) == len(same)


def test_the_heldout_split_is_fixed_by_the_problem_and_keeps_copies_together():
    board = board_from_ascii(NET)
    copy = board_from_ascii(turned_and_recoloured(NET), to_play=WHITE)
    net = Problem("net", board, vertex(board, "E4"))
    twin = next(Problem("twin", copy, p) for p in copy.points()
                if copy.color_at(p) == BLACK and problem_key(Problem("", copy, p)) == problem_key(net))
    others = [Problem(f"o{p}", board, p) for p in board.points() if board.color_at(p) in (BLACK, WHITE)]
    pool = [net, twin, *others]
    for salt in ("a", "b", "c", "d"):
        choosing, held = heldout_split(pool, salt, 2)
        assert sorted(p.name for p in choosing + held) == sorted(p.name for p in pool)
        assert (net in held) == (twin in held)                           # copies on one side
        assert heldout_split(list(reversed(pool)), salt, 2)[1] == list(reversed(held))   # not the order
        assert heldout_split(pool[1:], salt, 2)[1] == [p for p in held if p is not net]  # nor the pool
    sides = {salt: net in heldout_split(pool, salt, 2)[1] for salt in map(str, range(20))}
    assert 0 < sum(sides.values()) < 20                                  # the salt decides
    with pytest.raises(ValueError, match="every"):
        heldout_split(pool, "a", 1)


def test_the_heldout_protocol_chooses_on_choosing_problems_and_reports_the_others(monkeypatch):
    problems = [problem(NET, "E4"), problem(LADDER, "D4")] * 6
    for i, p in enumerate(problems):
        p.name = f"p{i}"
    keys = {p.name: i for i, p in enumerate(problems)}
    monkeypatch.setattr("bench.tactics.problems.problem_key", lambda p: keys[p.name])
    rule = b2_settings().heldout
    choosing, held = heldout_split(problems, rule.salt, rule.every)
    assert held and choosing
    args = parse_args(["--b2-heldout", "report"])
    ((name, train, test),), info = b2.b2_splits(args, problems)
    assert (name, train, test) == ("heldout", choosing, held)
    assert info == {"heldout": "report", "heldout_rule": {"salt": rule.salt, "every": rule.every},
                    "choosing": len(choosing), "held_out": len(held)}
    splits, _ = b2.b2_splits(parse_args(["--b2-heldout", "choose", "--b2-splits", "3,4"]), problems)
    assert [seed for seed, *_ in splits] == [3, 4]
    for _, train, test in splits:
        assert sorted(p.name for p in train + test) == sorted(p.name for p in choosing)
        assert len(train) == 2 * len(choosing) // 3
    (_, train, test), = b2.b2_splits(parse_args([]), problems)[0]       # without it: the whole pool
    assert len(train) + len(test) == len(problems)


def test_training_repeats_the_unsolved_problems_until_a_pass_solves_none(monkeypatch):
    # the paper's protocol: "re-attempting problems that previously failed until as many problems as
    # possible are solved"; problem i is solved at its i-th attempt, "never" never
    attempts = {}

    def solve(board, goal, **kw):
        attempts[goal] = attempts.get(goal, 0) + 1
        return SimpleNamespace(value="T" if attempts[goal] >= goal else "U")

    monkeypatch.setattr("bench.tactics.training.tactics.solve", solve)
    train = [Problem(str(i), None, i) for i in (1, 2, 3, 99)]
    config = PriorConfig("b", "beta")
    params = {"move_gen": "local", "max_nodes": 10, "l_max": 8}
    _, solved, _, passes = train_prior(config, train, params, 0)
    assert (solved, passes) == (3, 4) and attempts[99] == 4             # the 4th pass solved none
    attempts.clear()
    _, solved, _, passes = train_prior(config, train, params, 2)
    assert (solved, passes) == (2, 2)


def test_passes_and_the_heldout_choice_are_checked(capsys):
    assert parse_args(["--passes", "0"]).passes == 0
    for argv, message in ((["--passes", "-1"], "--passes"), (["--b2-heldout", "all"], "--b2-heldout")):
        with pytest.raises(SystemExit):
            parse_args(argv)
        assert message in capsys.readouterr().err
