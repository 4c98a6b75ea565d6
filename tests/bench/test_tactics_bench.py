"""bench.tactics B2 plumbing: the configuration and naming options, the speed-up statistics, the label
cache, and every B2 configuration's prior and training options on a small problem."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from bench import tactics as bt
from engine import tactics
from engine.tactics_priors import load_prior, make_prior
from engine.board import BLACK, WHITE
from tests.boards import board_from_ascii, normalize, vertex
from tests.positions import LADDER, NET


def test_default_runs_every_configuration_and_keeps_the_file_names():
    args = bt.parse_args(["--only", "b2"])
    assert args.b2_configs is None and args.suffix == "" and args.tag == ""
    assert bt.parse_args(["--b2-seeds", "5", "--b2-regimes", "local"]).suffix == "_5seeds_local"
    assert bt.parse_args(["--b2-configs", "all"]).b2_configs is None


def test_a_subset_of_configurations_is_named_in_the_file():
    args = bt.parse_args(["--only", "b2", "--b2-regimes", "region",
                          "--b2-configs", "hier_cal_03, hier_consistent,hier_cal_03"])
    assert args.b2_configs == ["hier_consistent", "hier_cal_03"]     # registry order, no repeats
    assert args.suffix == "_region_hier_consistent-hier_cal_03"
    tagged = bt.parse_args(["--b2-seeds", "3", "--b2-configs", "hier_cal", "--tag", "pool2000"])
    assert tagged.suffix == "_3seeds_hier_cal_pool2000"


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
        bt.parse_args(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_speedups_in_nodes_and_cpu_seconds():
    pns = [("T", 100, 0.5, 0.4), ("T", 50, 0.2, 0.2), ("U", 1000, 1.0, 0.9), ("T", 10, 0.1, 0.1)]
    pp = [("T", 25, 0.1, 0.1), ("U", 999, 1.0, 1.0), ("T", 400, 0.9, 0.8), ("T", 20, 0.1, 0.2)]
    assert bt.speedups(pp, pns, 1) == [4.0, 0.5]                 # only the problems both prove
    assert bt.speedups(pp, pns, 3) == [4.0, 0.5]
    assert bt.speedups([("T", 25, 0.1)], [("T", 100, 0.5)], 3) == []   # older records: no cpu field
    s = bt.ratio_summary([4.0, 0.25, 1.0], "speedup_cpu")
    assert s["speedup_cpu_mean"] == pytest.approx(1.75)           # the paper's arithmetic mean of ratios
    assert s["speedup_cpu_geomean"] == pytest.approx(1.0) and s["speedup_cpu_median"] == 1.0
    assert bt.ratio_summary([], "speedup")["speedup_mean"] is None
    assert bt.run_stats(pp)["test_cpu_per_problem"] == pytest.approx(0.525)


def test_speedups_by_the_difficulty_for_pns():
    pns = [("T", 100, 0, 0), ("T", 900, 0, 0), ("T", 5_000, 0, 0), ("T", 40_000, 0, 0), ("U", 50_000, 0, 0)]
    pp = [("T", 50, 0, 0), ("T", 300, 0, 0), ("U", 50_000, 0, 0), ("T", 4_000, 0, 0), ("T", 9_000, 0, 0)]
    bands = bt.speedup_bands(pp, pns)
    assert [(b["pns_nodes_from"], b["pns_nodes_below"], b["both"]) for b in bands] == \
        [(0, 1_000, 2), (1_000, 10_000, 0), (10_000, None, 1)]
    assert bands[0]["speedup_mean"] == pytest.approx(2.5) and bands[1]["speedup_mean"] is None
    assert bands[2]["speedup_geomean"] == pytest.approx(10.0)


def test_a_recorded_b2_run_is_reported_by_difficulty_with_its_splits_pooled(tmp_path, capsys):
    def split(pns, pp):
        return {"region": {"per_problem": {"pns": pns}, "configs": {"hier_0obs": {"per_problem": pp}}}}
    record = {"results": {"regimes": ["region"], "splits": [split([("T", 100)], [("T", 25)]),
                                                            split([("T", 20_000)], [("T", 1_000)])]}}
    report = bt.b2_report(record)["region"]["hier_0obs"]
    assert [b["both"] for b in report] == [1, 0, 1]
    assert report[0]["speedup_mean"] == 4.0 and report[2]["speedup_mean"] == 20.0
    path = tmp_path / "b2.json"
    path.write_text(json.dumps(record))
    assert bt.main(["--b2-report", str(path)]) == 0
    assert "hier_0obs" in capsys.readouterr().out
    assert bt.b2_node_cost(record) == {"region": {"pns": None, "hier_0obs": None}}    # no CPU times recorded
    timed = {"results": {"region": {"per_problem": {"names": ["a", "b"], "pns": [("T", 100, 0.1, 0.001),
                                                                                  ("U", 300, 0.1, 0.002)]},
                                    "configs": {"hier_0obs": {"per_problem": [("T", 50, 0.1, 0.0005),
                                                                              ("T", 150, 0.1, 0.0025)]}}}}}
    costs = bt.b2_node_cost(timed)["region"]
    assert costs["pns"] == pytest.approx(7.5) and costs["hier_0obs"] == pytest.approx(15.0)
    path.write_text("{}")
    assert bt.main(["--b2-report", str(path)]) == 2
    assert "not a B2 result file" in capsys.readouterr().err


def test_labels_are_reused_only_with_the_same_parameters(tmp_path):
    path = tmp_path / "labels.json"
    params = {"move_gen": "local", "max_nodes": 50_000, "l_max": 8}
    assert bt.load_labels(path, params) == {}
    bt.save_labels(path, params, {"a": True, "b": False})
    assert bt.load_labels(path, params) == {"a": True, "b": False}
    assert bt.load_labels(path, dict(params, max_nodes=1000)) == {}
    assert bt.load_labels(None, params) == {}
    path.write_text(json.dumps([1, 2, 3]))                       # someone else's file
    assert bt.load_labels(path, params) == {}
    path.write_text("{not json")
    assert bt.load_labels(path, params) == {}


def test_only_new_candidates_are_labelled(tmp_path):
    path = tmp_path / "labels.json"
    params = {"move_gen": "local", "max_nodes": 2000, "l_max": 8}
    calls = []
    pool = SimpleNamespace(map=lambda f, items, *rest: calls.append(len(items)) or list(map(f, items, *rest)))
    ladder, net = problem(LADDER, "D4"), problem(NET, "E4")
    net.name = "net"
    assert bt.known_true(pool, [ladder], params, path) == [True]
    assert bt.known_true(pool, [ladder, net], params, path) == [True, True]
    assert bt.known_true(pool, [net, ladder], params, path) == [True, True]
    assert calls == [1, 1, 0]                                    # the second run labels "net" only
    assert bt.known_true(pool, [ladder], params, None) == [True] and calls[-1] == 1


def problem(diagram: str, goal: str) -> bt.Problem:
    b = board_from_ascii(diagram)
    return bt.Problem(goal, b, vertex(b, goal), libs=b.liberties(vertex(b, goal)))


@pytest.mark.parametrize("config", sorted(bt.B2_CONFIGS))
def test_every_configuration_trains_and_answers(config):
    kind, kw, learn, options = bt.config_parts(config)
    prior = make_prior(kind, **kw)
    p = problem(LADDER, "D4")
    search, options = bt.config_options(options)
    params = tactics.TacticsParams(move_gen="local", max_nodes=2000, **search)
    r = tactics.solve(p.board, p.goal, params=params, prior=prior, learn=learn, **options)
    assert r.value == "T"


def test_b2_regime_runs_the_chosen_configurations_only():
    pool = SimpleNamespace(map=lambda f, *its, **kw: list(map(f, *its)))
    train, test = [problem(LADDER, "D4")], [problem(NET, "E4"), problem(LADDER, "D4")]
    out = bt.b2_regime(pool, train, test, {"move_gen": "local", "max_nodes": 3000, "l_max": 8}, 1,
                       ["hier_consistent_u_p3"])
    assert list(out["configs"]) == ["hier_consistent_u_p3"]
    s = out["configs"]["hier_consistent_u_p3"]
    assert s["options"] == {"learn_unsolved": True, "passes": 3} and s["passes"] == 3 and s["train_solved"] == 1
    assert out["pns_solved"] == 2 and s["solved"] == 2 and s["both"] == 2
    assert s["speedup_cpu_mean"] is not None and all(len(x) == 4 for x in s["per_problem"])
    assert out["pp_branching_solved"] == 2 and len(out["per_problem"]["pp_branching"]) == 2  # the reference run
    assert out["pp_branching_stats"]["both"] == 2 and out["pp_branching_stats"]["newly_failed"] == 0


def test_the_test_queries_can_have_their_own_budget():
    pool = SimpleNamespace(map=lambda f, *its, **kw: list(map(f, *its)))
    train, test = [problem(LADDER, "D4")], [problem(NET, "E4")]
    params = {"move_gen": "region", "max_nodes": 3000, "l_max": 8}
    out = bt.b2_regime(pool, train, test, params, 1, ["hier_0obs"], dict(params, max_nodes=5))
    assert out["test_params"]["max_nodes"] == 5 and out["params"]["max_nodes"] == 3000
    s = out["configs"]["hier_0obs"]
    assert s["train_solved"] == 1                              # trained with 3,000 nodes
    assert [n for _, n, *_ in out["per_problem"]["pns"]] == [5] and [n for _, n, *_ in s["per_problem"]] == [5]
    assert bt.parse_args(["--b2-test-budget", "500000"]).suffix == "_test500000"
    assert bt.parse_args(["--b2-max-store", "100000000"]).suffix == "_store100000000"


def test_the_test_queries_can_have_a_larger_store():
    args = SimpleNamespace(b2_test_budget=None, b2_max_store=2000)
    params = {"move_gen": "region", "max_nodes": 3000, "l_max": 8}
    assert bt.b2_test_params(args, params) == dict(params, max_store=2000)
    assert bt.b2_test_params(SimpleNamespace(b2_test_budget=None, b2_max_store=None), params) is None


def test_a_trained_prior_is_saved_for_the_gtp_commands(tmp_path, monkeypatch):
    pool = SimpleNamespace(map=lambda f, *its, **kw: list(map(f, *its)))
    ladder, net = problem(LADDER, "D4"), problem(NET, "E4")
    monkeypatch.setattr(bt, "b2_problems", lambda args, pool: ([ladder, net], [ladder, net]))
    path = tmp_path / "leaf.npz"
    args = bt.parse_args(["--save-prior", str(path), "--b2-configs", "hier_consistent_sharp2_branching",
                          "--b2-regimes", "local", "--b2-local-budget", "3000"])
    info = bt.save_prior(args, pool)
    assert info["problems"] == 2 and info["solved"] >= 1 and info["search"] == {"branching_weight": 1.0}
    prior = load_prior(path)
    assert prior.params()["scale"] == 2.0 and prior.n_patterns() > 0
    header = json.loads(str(np.load(path, allow_pickle=False)["metadata"]))
    assert header["info"]["config"] == "hier_consistent_sharp2_branching"
    assert header["info"]["training_params"] == {"move_gen": "local", "max_nodes": 3000, "l_max": 8}


def test_splits_and_references_can_be_chosen():
    args = bt.parse_args(["--b2-splits", "6,4", "--b2-references", "pp_branching", "--b2-configs", "hier_0obs"])
    assert args.b2_splits == [4, 6] and args.b2_references == ["pns", "pp_branching"]      # PNS always
    assert args.suffix == "_splits4-6_hier_0obs_refs-pns-pp_branching"
    assert bt.parse_args(["--b2-references", ",".join(bt.B2_REFERENCES)]).suffix == ""
    pool = SimpleNamespace(map=lambda f, *its, **kw: list(map(f, *its)))
    out = bt.b2_regime(pool, [problem(LADDER, "D4")], [problem(NET, "E4")],
                       {"move_gen": "local", "max_nodes": 500, "l_max": 8}, 1, ["hier_0obs"], None, ["pns"])
    assert set(out["per_problem"]) == {"names", "pns"} and "pp_uniform_solved" not in out
    assert bt.b2_summary([{"local": out}, {"local": out}], ["local"])["local"].keys() == {"pns", "hier_0obs"}


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
    net = bt.Problem("a", board, vertex(board, "E4"))
    same = [bt.Problem("b", copy, p) for p in copies]
    assert sum(bt.problem_key(p) == bt.problem_key(net) for p in same) == 1
    other = [p for p in board.points() if board.color_at(p) == WHITE and p not in block]
    assert other and all(bt.problem_key(bt.Problem("c", board, p)) != bt.problem_key(net) for p in other)
    kept = bt.distinct_problems([net, *same, net])
    assert kept[0] is net and len(kept) == len(same)
