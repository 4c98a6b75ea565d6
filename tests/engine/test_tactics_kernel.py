"""The leaf-prior kernel: the learned models' tables searched in C give, to the bit, the log-odds of
the models' Python path, and whole searches through either path are identical."""
from __future__ import annotations

import numpy as np
import pytest

from engine import tactics
from engine.tactics import PriorKernel, Solver, TacticsParams
from engine.tactics.leafpriors import BetaPrior, HierGaussPrior, LeafPrior, UniformLeafPrior
from tests.boards import board_from_ascii, vertex
from tests.positions import BREAKER, LADDER, NET

LOCAL = TacticsParams(move_gen="local", max_nodes=3_000)
REGION = TacticsParams(move_gen="region", margin=9, max_nodes=3_000)

MODELS = {
    "beta_1": lambda: BetaPrior(),
    "beta_1000": lambda: BetaPrior(1000, 1000),
    "beta_clip": lambda: BetaPrior(clip=0.5, weight_cap=20),
    "hier": lambda: HierGaussPrior(),
    "hier_virtual": lambda: HierGaussPrior(k_virtual=2),
    "hier_shifted": lambda: HierGaussPrior(mu0=-1.5, sigma0_sq=0.3, beta_sq=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)),
    "hier_clip": lambda: HierGaussPrior(clip=0.7),
    "beta_calibrated": lambda: BetaPrior(clip=3.0, scale=0.7, shift=-1.3),
    "hier_calibrated": lambda: HierGaussPrior(scale=0.45, shift=-2.2),
}


def observed_stacks(model=None, params=LOCAL):
    """Every stack of the nodes of a few searches (real, nested stacks), and the model trained on them."""
    stacks = []
    for picture, goal in ((LADDER, "D4"), (NET, "E4"), (BREAKER, "D4")):
        b = board_from_ascii(picture)
        if model is not None:
            tactics.solve(b, vertex(b, goal), params=params, prior=model, learn=True)
        s = Solver("pp", keep_keys=True)
        s.set_capture(b, vertex(b, goal), move_gen=params.move_gen, margin=params.margin)
        s.run(300)
        stacks.append(s.observations()[0])
    return np.concatenate(stacks)


def python_logodds(model, keys):
    """The model's own per-stack formula, uncached."""
    return np.array([model._calibrate(model._stack_logodds(st)) for st in keys.tolist()])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_kernel_equals_the_python_model_bit_for_bit(name):
    model = MODELS[name]()
    keys = observed_stacks(model)
    rng = np.random.default_rng(5)
    unseen = rng.integers(0, 2 ** 63, size=(200, 8), dtype=np.uint64)     # nothing of these was seen
    partly = keys[: 200].copy()
    partly[:, 5:] = unseen[:, 5:]                                          # seen small patterns, new large ones
    keys = np.concatenate([keys, unseen, partly])
    kernel = model.kernel()
    assert len(kernel) > 100
    expected = python_logodds(model, keys)
    got = kernel.logodds(keys)
    assert len(np.unique(expected)) > 5          # a trained model, not a constant
    assert got.tolist() == expected.tolist()     # exact, not approximate
    # the model's own (cached) logodds agree on real stacks
    real = keys[: len(keys) - 400]
    assert model.logodds(real, 0).tolist() == got[: len(real)].tolist()


@pytest.mark.parametrize("mu0", [-3.0, -8.0, -40.0, 30.0])
def test_hier_kernel_is_exact_in_the_gaussian_tails(mu0):
    # |mu / sigma| beyond 5 and 36 takes log_ndtr's and erfcx's asymptotic branches
    model = HierGaussPrior(mu0=mu0, sigma0_sq=0.01)
    keys = np.random.default_rng(1).integers(0, 2 ** 63, size=(50, 8), dtype=np.uint64)
    model.observe(keys[:10], np.zeros(10, dtype=np.int8), np.arange(10) % 2 == 0)
    got = model.kernel().logodds(keys)
    assert np.isfinite(got).all()
    assert got.tolist() == python_logodds(model, keys).tolist()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_searches_through_the_kernel_and_through_python_are_identical(name):
    model = MODELS[name]()
    observed_stacks(model)
    b = board_from_ascii(LADDER)
    for params in (LOCAL, REGION):
        fast = tactics.solve(b, vertex(b, "D4"), params=params, prior=model)
        slow = tactics.solve(b, vertex(b, "D4"), params=params, prior=model, kernel=False)
        assert (fast.value, fast.move, fast.developed, fast.generated, fast.logodds) == \
               (slow.value, slow.move, slow.developed, slow.generated, slow.logodds)


def test_a_solver_reusing_the_last_ones_memos_prices_leaves_with_its_own_prior():
    # each search takes over the memos the last one freed: another prior's log-odds must not carry over
    models = [MODELS["hier"](), MODELS["hier_shifted"](), MODELS["beta_1"]()]
    for model in models:
        observed_stacks(model)
    b = board_from_ascii(NET)
    seen = set()
    for model in models + models:
        fast = tactics.solve(b, vertex(b, "E4"), params=REGION, prior=model)
        slow = tactics.solve(b, vertex(b, "E4"), params=REGION, prior=model, kernel=False)
        assert (fast.developed, fast.generated, fast.logodds) == (slow.developed, slow.generated, slow.logodds)
        seen.add(fast.logodds)
    assert len(seen) == len(models)              # the priors lead the searches apart

def test_learning_through_the_kernel_matches_learning_through_python():
    fast, slow = HierGaussPrior(), HierGaussPrior()
    for picture, goal in ((NET, "E4"), (LADDER, "D4"), (BREAKER, "D4"), (NET, "E4")):
        b = board_from_ascii(picture)
        r1 = tactics.solve(b, vertex(b, goal), params=LOCAL, prior=fast, learn=True)
        r2 = tactics.solve(b, vertex(b, goal), params=LOCAL, prior=slow, learn=True, kernel=False)
        assert (r1.value, r1.developed, r1.move) == (r2.value, r2.developed, r2.move)
    assert fast.b_ == slow.b_


def test_the_kernel_is_rebuilt_only_after_learning():
    model = BetaPrior()
    k1 = model.kernel()
    assert model.kernel() is k1 and len(k1) == 0
    keys = observed_stacks()
    model.observe(keys[:5], np.zeros(5, dtype=np.int8), np.ones(5, dtype=bool))
    k2 = model.kernel()
    assert k2 is not k1 and len(k2) == len(set(keys[:5].ravel().tolist()))
    assert k2.logodds(keys[:5]).tolist() == [np.log(2.0 / 1.0)] * 5


def test_constant_kernels():
    keys = np.zeros((3, 8), dtype=np.uint64)
    assert UniformLeafPrior(0.2).kernel().logodds(keys).tolist() == UniformLeafPrior(0.2).logodds(keys, 0).tolist()
    assert LeafPrior().kernel().logodds(keys).tolist() == [0.0] * 3
    assert PriorKernel.constant(1.5).kind == "constant"


def test_calibration_is_an_affine_map_of_the_clipped_log_odds():
    keys = observed_stacks()
    plain, tuned = BetaPrior(clip=1.0), BetaPrior(clip=1.0, scale=0.5, shift=-2.0)
    for model in (plain, tuned):
        model.observe(keys[:40], np.zeros(40, dtype=np.int8), np.arange(40) % 3 == 0)
    x, y = plain.kernel().logodds(keys), tuned.kernel().logodds(keys)
    assert np.abs(x).max() <= 1.0 and len(np.unique(x)) > 1
    assert np.allclose(y, 0.5 * x - 2.0, rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="scale"):
        HierGaussPrior(scale=-1.0)


def test_bad_kernel_input_is_an_error():
    with pytest.raises(ValueError, match="uint64"):
        PriorKernel.constant(0.0).logodds(np.zeros((2, 7), dtype=np.uint64))
    with pytest.raises(ValueError, match="match"):
        PriorKernel.beta(np.zeros(3, dtype=np.uint64), np.zeros((2, 2)), 1.0, 1.0)
    with pytest.raises(ValueError, match="positive"):
        PriorKernel.beta(np.zeros(0, dtype=np.uint64), np.zeros((0, 2)), 0.0, 1.0)
    with pytest.raises(ValueError, match="levels"):
        PriorKernel.hier(np.ones(1, dtype=np.uint64), np.ones((1, 2)), [9], 0.0, 1.0, [0.25] * 7)
    with pytest.raises(ValueError, match="finite"):
        PriorKernel.constant(float("inf"))

    class Wrong(UniformLeafPrior):
        def kernel(self):
            return "not a kernel"

    b = board_from_ascii(LADDER)
    with pytest.raises(TypeError, match="PriorKernel"):
        tactics.solve(b, vertex(b, "D4"), params=LOCAL, prior=Wrong())
    assert tactics.solve(b, vertex(b, "D4"), params=LOCAL, prior=Wrong(), kernel=False).value == "T"


def test_the_key_zero_is_a_key_like_any_other():
    keys = np.array([0, 5, 2 ** 64 - 1], dtype=np.uint64)
    k = PriorKernel.beta(keys, [[3, 0], [0, 3], [1, 1]], 1.0, 1.0)
    assert len(k) == 3
    stacks = np.array([[7] * 7 + [0], [7] * 7 + [5], [2 ** 64 - 1] + [7] * 7, [7] * 8], dtype=np.uint64)
    assert k.logodds(stacks).tolist() == [np.log(4.0), np.log(1.0 / 4.0), 0.0, 0.0]


def test_a_solver_reused_after_learning_prices_leaves_with_the_new_model():
    # the solver memoises leaf log-odds by the largest pattern; a model that learned in between must
    # not be answered from the memo of its previous table
    model = HierGaussPrior()
    b = board_from_ascii(NET)
    goal = vertex(b, "E4")
    reused = Solver("pp", prior=model)
    reused.set_capture(b, goal, move_gen="region", margin=9)
    before = reused.run(400)
    keys = observed_stacks()
    model.observe(keys, np.zeros(len(keys), dtype=np.int8), np.zeros(len(keys), dtype=bool))  # all FALSE
    reused.set_capture(b, goal, move_gen="region", margin=9)
    reused.run(400)
    fresh = Solver("pp", prior=model)
    fresh.set_capture(b, goal, move_gen="region", margin=9)
    fresh.run(400)
    slow = Solver("pp", prior=model, kernel=False)
    slow.set_capture(b, goal, move_gen="region", margin=9)
    slow.run(400)
    assert before == "U"
    child = [reused.node(i)["logodds"] for i in range(1, 40)]
    assert child == [fresh.node(i)["logodds"] for i in range(1, 40)] == [slow.node(i)["logodds"] for i in range(1, 40)]
    assert reused.root_logodds == fresh.root_logodds == slow.root_logodds


def test_the_stacks_a_search_stores_are_the_pattern_keys_of_their_positions():
    # the solver memoises stacks by the unrotated template states; every stored stack must still be
    # the stack `pattern_keys` computes from the node's own position
    b = board_from_ascii(NET)
    goal = vertex(b, "E4")
    attacker = 3 - b.color_at(goal)
    s = Solver("pp", keep_keys=True)
    s.set_capture(b, goal, move_gen="region", margin=9)
    s.run(300)
    keys, roles, _ = s.observations()
    solved = [i for i in range(1, s.n_nodes) if s.node(i)["value"] != "U"]
    assert len(solved) == len(keys) > 50
    deep = 0
    for i, stack, role in zip(solved, keys, roles):
        path = []
        j = i
        while j != 0:
            path.append(s.node(j)["move"])
            j = s.node(j)["parent"]
        path.reverse()
        pos = b.copy()
        for ply, move in enumerate(path[:-1]):
            pos.play(move, attacker if ply % 2 == 0 else 3 - attacker)
        deep += len(path) > 1
        assert tactics.pattern_keys(pos, path[-1], goal, role=int(role)).tolist() == stack.tolist()
    assert deep > 20
