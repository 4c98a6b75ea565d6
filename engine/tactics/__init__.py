"""Capture reading: Bayesian proof search and proof-number search on one node store.

Owns the tactical solver: the proof tree, its searchers, the capture goal, GnuGo's reading results and
the leaf priors learned from finished searches. Sees the board only; the solver takes a leaf prior as
an object with `logodds` (and `kernel()`, a `PriorKernel`), so it never knows which model it runs.
Modules, in dependency order:

- `types.pxd`   the C types every module shares: node values and kinds, ProofNode, Store, CaptureGoal,
                the leaf table and the memos' entries
- `logodds`     log-odds arithmetic of PP (the paper's eqs. 1 and 2), the branching leaf log-odds
- `leafkernel`  PriorKernel: a learned leaf prior's pattern table in C, priced without the GIL
- `patterns`    the nested pattern templates and the keys of a move's neighbourhood
- `goal`        the capture goal: its value, the move generators, ko and the komaster
- `store`       the node store, a solver's memos of pattern stacks and leaf log-odds, their spares
- `andortree`   an explicit AND/OR tree, the domain tests and synthetic benchmarks search
- `solver`      Solver: Develop, selection and backup of PP and PNS, without the GIL
- `reading`     the Python API: solve (the liberty loop), solve_ko, attack, defend, Result, GnuGo's codes
- `leafprior`   the leaf prior interface (log-odds, learning, its PriorKernel, files) and the uniform prior
- `betaprior`   the paper's Beta model: counts per pattern
- `gaussprior`  the paper's hierarchical Gaussian model: exact belief propagation along the pattern stack
- `leafpriors`  the leaf priors by name (`reading.prior`), their calibrated settings, a model file's prior

`TacticsParams` lives in `engine.params` with the other parameter objects and is re-exported here.
"""
from engine.params import TacticsParams
from engine.tactics.leafkernel import PriorKernel
from engine.tactics.logodds import and_logodds, branching_logodds, or_logodds
from engine.tactics.patterns import TEMPLATE_RINGS, pattern_keys
from engine.tactics.reading import KO_A, KO_B, LOSE, WIN, Result, attack, defend, last_search, solve, solve_ko
from engine.tactics.solver import KO_MODES, Solver

__all__ = ["KO_A", "KO_B", "KO_MODES", "LOSE", "TEMPLATE_RINGS", "WIN", "PriorKernel", "Result", "Solver",
           "TacticsParams", "and_logodds", "attack", "branching_logodds", "defend", "last_search", "or_logodds",
           "pattern_keys", "solve", "solve_ko"]
