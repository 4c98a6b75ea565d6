"""Leaf priors of the tactical solver: Beta counts and the hierarchical Gaussian model over the nested
pattern stacks, their learning from finished searches, and their files (Stern, Herbrich & Graepel
2007, §4)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engine import tactics
from engine.tactics import Solver, TacticsParams
from engine.modelfile import ModelError
from engine.tactics.leafpriors import (LEAF_PRIORS, BetaPrior, HierGaussPrior, UniformLeafPrior, load_leaf_prior,
                                       make_leaf_prior)
from tests.boards import board_from_ascii, vertex
from tests.positions import BREAKER, LADDER, NET

LOCAL = TacticsParams(move_gen="local", max_nodes=20_000)


def stack(*keys):
    return np.array([keys], dtype=np.uint64)


def solved_ladder(prior=None):
    b = board_from_ascii(LADDER)
    s = Solver("pp", prior=prior, keep_keys=True)
    s.set_capture(b, vertex(b, "D4"), move_gen="local")
    assert s.run(20_000) == "T"
    return s


# --- the contract, over every registered prior ---

@pytest.mark.parametrize("name", sorted(LEAF_PRIORS))
def test_contract(name, tmp_path):
    prior = make_leaf_prior(name)
    keys, roles, values = solved_ladder().observations()
    out = prior.logodds(keys[:5], 0)
    assert out.dtype == np.float64 and out.shape == (5,) and np.isfinite(out).all()
    prior.observe(keys, roles, values)
    path = tmp_path / f"{name}.npz"
    prior.save(path)
    again = type(prior).load(path)
    assert again.logodds(keys, 0).tolist() == prior.logodds(keys, 0).tolist()
    loaded = load_leaf_prior(path)                    # whichever kind the file holds
    assert type(loaded) is type(prior) and loaded.params() == prior.params() and loaded.source == str(path)
    assert loaded.logodds(keys, 0).tolist() == prior.logodds(keys, 0).tolist()
    path.write_bytes(path.read_bytes()[:50])
    with pytest.raises(ModelError):
        type(prior).load(path)
    with pytest.raises(ModelError):
        load_leaf_prior(path)


def test_a_file_of_another_kind_is_rejected(tmp_path):
    BetaPrior().save(tmp_path / "beta.npz")
    with pytest.raises(ModelError, match="holds a 'beta' model, expected 'hier'"):
        HierGaussPrior.load(tmp_path / "beta.npz")
    with pytest.raises(ModelError, match="no such model file"):
        BetaPrior.load(tmp_path / "missing.npz")
    with pytest.raises(ModelError, match="no such model file"):
        load_leaf_prior(tmp_path / "missing.npz")
    np.savez(tmp_path / "other.npz", metadata=np.array('{"kind": "oracle", "format_version": 1}'))
    with pytest.raises(ModelError, match="not a leaf prior"):
        load_leaf_prior(tmp_path / "other.npz")
    np.savez(tmp_path / "list.npz", metadata=np.array('[1, 2]'))
    with pytest.raises(ModelError, match="no valid metadata header"):
        load_leaf_prior(tmp_path / "list.npz")


def test_bad_parameters_are_errors():
    with pytest.raises(ValueError, match="unknown tactics prior"):
        make_leaf_prior("oracle")
    with pytest.raises(ValueError, match="bad parameters"):
        make_leaf_prior("beta", gamma=1)
    with pytest.raises(ValueError):
        BetaPrior(alpha0=0)
    with pytest.raises(ValueError):
        HierGaussPrior(beta_sq=(1.0,) * 3)
    with pytest.raises(ValueError, match="uint64"):
        BetaPrior().logodds(np.zeros((2, 8), dtype=np.int64), 0)


def test_a_uniform_prior_object_searches_like_no_prior():
    b = board_from_ascii(NET)
    goal = vertex(b, "E4")
    plain = tactics.solve(b, goal, params=LOCAL)
    with_object = tactics.solve(b, goal, params=LOCAL, prior=UniformLeafPrior(0.5))
    assert (plain.developed, plain.move, plain.value) == (with_object.developed, with_object.move, with_object.value)


def test_a_failing_prior_is_reported():
    class Broken:
        def logodds(self, keys, role):
            raise RuntimeError("model exploded")
    b = board_from_ascii(LADDER)
    with pytest.raises(RuntimeError, match="exploded"):
        tactics.solve(b, vertex(b, "D4"), params=LOCAL, prior=Broken())

    class Infinite:
        def logodds(self, keys, role):
            return np.full(len(keys), np.inf)
    with pytest.raises(ValueError, match="finite"):
        tactics.solve(b, vertex(b, "D4"), params=LOCAL, prior=Infinite())


# --- 9. Beta learning ---

def test_beta_counts_eight_per_solved_non_root_node():
    s = solved_ladder()
    keys, roles, values = s.observations()
    n_solved = sum(1 for i in range(1, s.n_nodes) if s.node(i)["value"] != "U")
    assert len(keys) == n_solved > 0
    assert ((roles == 0) == np.array([s.node(i)["kind"] == "and" for i in range(1, s.n_nodes)
                                      if s.node(i)["value"] != "U"])).all()
    prior = BetaPrior()
    prior.observe(keys, roles, values)
    assert prior.n_observations() == 8 * n_solved
    prior.observe(keys, roles, values)
    assert prior.n_observations() == 16 * n_solved


def test_beta_predictive_uses_the_largest_observed_pattern():
    prior = BetaPrior(alpha0=1, beta0=1)
    seen = stack(*range(10, 18))
    prior.observe(seen, np.zeros(1, np.int8), np.array([True]))      # every size of this stack: 1 TRUE
    prior.observe(stack(10, 11, 12, 13, 99, 98, 97, 96), np.zeros(1, np.int8), np.array([False]))
    # a new stack that shares sizes 0..3 with both: size 3 holds (1 TRUE, 1 FALSE) -> 2 / 4
    query = stack(10, 11, 12, 13, 50, 51, 52, 53)
    a, b, size = prior.predictive(query[0].tolist())
    assert (a, b, size) == (2.0, 2.0, 3)
    assert prior.logodds(query, 0)[0] == 0.0
    assert prior.logodds(seen, 0)[0] == pytest.approx(math.log(2 / 1))          # T_7 seen once, TRUE
    assert prior.logodds(stack(*range(60, 68)), 0)[0] == 0.0                  # nothing seen: alpha0/beta0


def test_beta_clip_and_weight_cap():
    prior = BetaPrior(clip=1.0, weight_cap=2.0)
    keys = np.repeat(stack(*range(8)), 10, axis=0)
    prior.observe(keys, np.zeros(10, np.int8), np.zeros(10, bool))
    assert prior.n_observations() == pytest.approx(8 * 2.0)       # 10 correlated observations count as 2
    assert prior.logodds(keys[:1], 0)[0] == -1.0                   # ln(1/3) clipped to -1


# --- 10. hierarchical Gaussian learning ---

def test_unseen_pattern_inherits_its_deepest_seen_ancestor():
    prior = HierGaussPrior(beta_sq=(0.3, 0.2, 0.5, 0.4, 0.6, 0.7, 0.8))
    seen = stack(*range(1, 9))
    prior.observe(seen, np.zeros(1, np.int8), np.array([True]))
    new = stack(1, 2, 3, 4, 5, 90, 91, 92)                          # shares T_0 .. T_4
    mu, var = prior.belief(new[0].tolist())
    m4, v4 = prior.marginals()[5]                                   # x_4 of the seen stack
    assert mu == pytest.approx(m4, rel=1e-12)
    assert var == pytest.approx(v4 + 0.6 + 0.7 + 0.8 + 1.0, rel=1e-12)
    mu_seen, var_seen = prior.belief(seen[0].tolist())
    assert var > var_seen


def test_a_true_update_raises_the_pattern_and_its_relatives():
    prior = HierGaussPrior()
    a = stack(*range(1, 9))
    sibling = stack(1, 2, 3, 4, 5, 6, 7, 100)                       # same T_6, different T_7
    cousin = stack(1, 2, 30, 40, 50, 60, 70, 80)                    # shares T_0, T_1
    before = [prior.p_true(s[0].tolist()) for s in (a, sibling, cousin)]
    prior.observe(a, np.zeros(1, np.int8), np.array([True]))
    after = [prior.p_true(s[0].tolist()) for s in (a, sibling, cousin)]
    assert all(x > y for x, y in zip(after, before))
    assert after[0] > after[1] > after[2] > 0.5
    prior.observe(a, np.zeros(1, np.int8), np.array([False]))
    assert prior.p_true(a[0].tolist()) < after[0]


def test_adf_messages_have_positive_precision():
    prior = HierGaussPrior(mu0=0.0, sigma0_sq=4.0)
    rng = np.random.default_rng(5)
    for _ in range(300):
        keys = [1, 2, 3] + rng.integers(4, 12, size=5).tolist()
        value = bool(rng.random() < 0.9)                            # lopsided: means go far out
        tau, rho = prior.update(keys, value)
        assert tau > 0 and math.isfinite(rho)
    tau, _ = prior.update([1, 2, 3, 4, 5, 6, 7, 8], False)         # a surprise in the far tail
    assert tau > 0
    assert np.isfinite(prior.logodds(np.array([[1, 2, 3, 4, 5, 6, 7, 8]], np.uint64), 0)).all()


def test_virtual_observations_slow_learning():
    fast, slow = HierGaussPrior(), HierGaussPrior(k_virtual=5)
    a = stack(*range(1, 9))
    for prior in (fast, slow):
        prior.observe(a, np.zeros(1, np.int8), np.array([True]))
    assert 0.5 < slow.p_true(a[0].tolist()) < fast.p_true(a[0].tolist())


@pytest.mark.parametrize("k", [1, 3])
def test_virtual_observations_of_one_half_leave_the_belief_at_one_half(k):
    # the paper's hand-tuned prior: "as if a number of previous observations of p = 0.5 had been made";
    # a TRUE and a FALSE taken one after the other left P(TRUE) at 0.47 (k = 1)
    prior = HierGaussPrior(k_virtual=k)
    a, b = stack(*range(1, 9)), stack(*range(1, 8), 99)
    prior.observe(a, np.zeros(1, np.int8), np.array([False]))
    before = HierGaussPrior().belief(b[0].tolist())
    fresh = HierGaussPrior(k_virtual=k)
    fresh._virtual(a[0].tolist())                      # the virtual observations alone
    mu, var = fresh.belief(a[0].tolist())
    assert mu == pytest.approx(0.0, abs=1e-12) and var < before[1]      # no lean, less variance
    assert fresh.belief(b[0].tolist())[0] == pytest.approx(0.0, abs=1e-12)   # the siblings' too
    assert prior.p_true(a[0].tolist()) < 0.5                            # the real FALSE still counts


def test_beta_sq_by_moments():
    prior = HierGaussPrior()
    for i in range(200):
        keys = np.array([[1, 2, 3, 4, 5, 6, 7, 1000 + i]], dtype=np.uint64)
        prior.observe(keys, np.zeros(1, np.int8), np.array([i % 3 == 0]))
    fitted = prior.fit_beta_sq()
    assert len(fitted) == 7 and all(b > 0 for b in fitted)
    assert fitted[6] > fitted[0]           # all the variety is at T_7


def test_learning_from_a_search_speeds_up_the_same_search():
    b = board_from_ascii(LADDER)
    goal = vertex(b, "D4")
    params = TacticsParams(move_gen="region", margin=9, max_nodes=20_000)
    prior = HierGaussPrior()
    first = tactics.solve(b, goal, params=params, prior=prior, learn=True)
    second = tactics.solve(b, goal, params=params, prior=prior)
    assert first.value == second.value == "T"
    assert second.developed < first.developed
    with pytest.raises(ValueError, match="observe"):
        tactics.solve(b, goal, params=params, learn=True)


class Recorder(UniformLeafPrior):
    """A uniform prior that keeps what it is asked to learn."""

    def __init__(self):
        super().__init__(0.5)
        self.calls = []

    def observe(self, keys, roles, values):
        self.calls.append(np.asarray(values).copy())


def test_consistent_learning_keeps_false_only_from_the_last_search():
    b = board_from_ascii(BREAKER)
    goal = vertex(b, "D4")
    params = TacticsParams(move_gen="local", max_nodes=500, l_max=4)
    paper, ours = Recorder(), Recorder()
    r = tactics.solve(b, goal, params=params, prior=paper, learn=True)
    assert [run[:2] for run in r.runs] == [(3, "F"), (4, "U")]   # the second search learns nothing
    tactics.solve(b, goal, params=params, prior=ours, learn="consistent")
    assert len(paper.calls) == len(ours.calls) == 1
    assert not paper.calls[0].all()                       # the paper learns the FALSE at L = 3 ...
    assert ours.calls[0].all() and ours.calls[0].sum() == paper.calls[0].sum()   # ... we keep its TRUE only
    last = TacticsParams(move_gen="local", max_nodes=500, l_max=3)              # L = 3 is now the last
    ours.calls.clear()
    tactics.solve(b, goal, params=last, prior=ours, learn="consistent")
    assert ours.calls[0].tolist() == paper.calls[0].tolist()
    with pytest.raises(ValueError, match="learn"):
        tactics.solve(b, goal, params=params, prior=ours, learn="sometimes")


def test_priced_learning_keeps_only_the_nodes_the_prior_priced():
    b = board_from_ascii(LADDER)
    s = Solver("pp", keep_keys=True)
    s.set_capture(b, vertex(b, "D4"), move_gen="local")
    assert s.run(20_000) == "T"
    keys, roles, values = s.observations()
    pk, pr, pv = s.observations(priced_only=True)
    developed = [i for i in range(1, s.n_nodes) if s.node(i)["value"] != "U" and s.node(i)["developed"]]
    assert 0 < len(pk) == len(developed) < len(keys)
    assert set(map(tuple, pk.tolist())) <= set(map(tuple, keys.tolist()))
    everything, priced = Recorder(), Recorder()
    tactics.solve(b, vertex(b, "D4"), params=LOCAL, prior=everything, learn=True)
    tactics.solve(b, vertex(b, "D4"), params=LOCAL, prior=priced, learn="priced")
    assert 0 < len(priced.calls[0]) < len(everything.calls[0])


def test_learning_from_searches_that_spend_their_budget():
    b = board_from_ascii(BREAKER)
    goal = vertex(b, "D4")
    params = TacticsParams(move_gen="local", max_nodes=500, l_max=4)
    plain, paper, ours = Recorder(), Recorder(), Recorder()
    r = tactics.solve(b, goal, params=params, prior=plain, learn=True)
    assert [run[:2] for run in r.runs] == [(3, "F"), (4, "U")] and len(plain.calls) == 1
    again = tactics.solve(b, goal, params=params, prior=paper, learn=True, learn_unsolved=True)
    assert again.runs == r.runs                           # learning does not change a uniform prior's search
    assert len(paper.calls) == 2 and paper.calls[0].tolist() == plain.calls[0].tolist()
    unsolved = paper.calls[1]                             # what the search at L = 4 solved before the budget ran out
    assert len(unsolved) > 0 and unsolved.any() and not unsolved.all()
    tactics.solve(b, goal, params=params, prior=ours, learn="consistent", learn_unsolved=True)
    assert len(ours.calls) == 2                           # consistent: TRUE only, from both searches
    assert ours.calls[1].all() and ours.calls[1].sum() == unsolved.sum()
