"""B2's known-TRUE labels: a candidate problem is kept when PNS or PP (leaf prior 0.5) proves it within a
large labelling budget (the paper's "known TRUE" set). Labelling is costly, so a label file keeps the
labels for later runs with the same labelling parameters."""
from __future__ import annotations

import concurrent.futures
import json
from pathlib import Path
from typing import Optional

from bench.tactics.problems import Problem
from engine import tactics


def label_problem(problem: Problem, params: dict) -> bool:
    """Known TRUE: proved by PNS or by PP (prior 0.5) within the labelling budget."""
    for method in ("pns", "pp"):
        r = tactics.solve(problem.board, problem.goal, params=tactics.TacticsParams(method=method, **params))
        if r.value == "T":
            return True
    return False


def load_labels(path: Optional[Path], params: dict) -> dict[str, bool]:
    """The known-TRUE labels (problem name -> label) saved by earlier runs with the same labelling
    parameters; empty when there are none (a larger --b2-pool with the same --seed extends the same
    candidate list, so only the new candidates need labelling)."""
    if path is None or not path.exists():
        return {}
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(saved, dict) or saved.get("params") != params or not isinstance(saved.get("labels"), dict):
        return {}
    return {str(k): bool(v) for k, v in saved["labels"].items()}


def save_labels(path: Optional[Path], params: dict, labels: dict[str, bool]) -> None:
    if path is not None:
        path.write_text(json.dumps({"params": params, "labels": labels}))


def known_true(pool: concurrent.futures.Executor, candidates: list[Problem], params: dict,
               path: Optional[Path]) -> list[bool]:
    """label_problem of every candidate, through the label file when one is given."""
    labels = load_labels(path, params)
    todo = [p for p in candidates if p.name not in labels]
    labels.update(zip((p.name for p in todo), pool.map(label_problem, todo, [params] * len(todo))))
    if todo:
        save_labels(path, params, labels)
    return [labels[p.name] for p in candidates]
