"""B2's learned leaf priors: a configuration (the model, how its training searches teach it, their
settings) and the training itself, the paper's §5.2: PP searches every training problem, the prior
learns from each search, and the problems still unsolved are retried for a number of passes.

The leaf-prior models are imported here and nowhere else in bench.tactics.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Optional, Union

from bench.tactics.problems import Problem
from engine import tactics
from engine.tactics.leafpriors import make_leaf_prior


@dataclasses.dataclass(frozen=True)
class PriorConfig:
    """One B2 configuration (bench/configs/tactics/b2.yaml)."""
    name: str
    prior: str                       # the leaf prior's kind: beta, hier
    params: dict = dataclasses.field(default_factory=dict)   # the prior's constructor parameters
    learn: Union[bool, str] = True   # tactics.solve's learn mode: True (the paper's), "consistent" (ours), ...
    passes: Optional[int] = None     # training passes over the unsolved problems (None: --passes)
    learn_unsolved: bool = False     # also learn from the training searches that spent their budget
    search: dict = dataclasses.field(default_factory=dict)   # TacticsParams settings of its searches

    @property
    def options(self) -> dict:
        """The settings beyond the prior and the learn mode, as the records list them."""
        return {**({"learn_unsolved": True} if self.learn_unsolved else {}),
                **({"passes": self.passes} if self.passes is not None else {}), **self.search}


def new_prior(config: PriorConfig):
    """The configuration's untrained prior; a ValueError names a bad kind or parameter."""
    return make_leaf_prior(config.prior, **config.params)


def train_prior(config: PriorConfig, train: list[Problem], params: dict, passes: int) -> tuple:
    """The configuration's prior learned from searches of the training problems: `passes` passes over
    the problems still unsolved (the configuration's own count if it sets one), fewer when a pass solves
    none; passes=0 repeats them until a pass solves none (the paper's "until as many problems as possible
    are solved"). Returns (prior, training problems solved, CPU seconds, passes run)."""
    passes = config.passes if config.passes is not None else passes
    if passes < 0:
        raise ValueError(f"passes must be >= 0 (0: until a pass solves none), got {passes}")
    prior = new_prior(config)
    p = tactics.TacticsParams(method="pp", **params, **config.search)
    todo, solved_train, t0, n_pass = list(train), 0, time.process_time(), 0
    while todo and (passes == 0 or n_pass < passes):
        failed = []
        for problem in todo:
            r = tactics.solve(problem.board, problem.goal, params=p, prior=prior, learn=config.learn,
                              learn_unsolved=config.learn_unsolved)
            if r.value == "T":
                solved_train += 1
            else:
                failed.append(problem)
        n_pass += 1
        if len(failed) == len(todo):
            break
        todo = failed
        if config.prior == "hier" and n_pass == 1:
            prior.beta_sq = prior.fit_beta_sq()
            prior._cache.clear()
    train_cpu = time.process_time() - t0
    prior.kernel()                       # the frozen model's table is built once, outside the timings
    return prior, solved_train, train_cpu, n_pass
