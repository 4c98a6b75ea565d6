"""Batch move-prediction scores of SPT forests on a fixed sample of test positions, for the parameter
study: the positions are turned into cell codes and legal-move masks once, and every forest is scored on
them with the batch kernel (the same table `SPTPrior.evaluate` computes, then its legal mask and floor).

Ranks are counted two ways (spec §4 item 9): pessimistic, as `bench.predict` does (every candidate
with probability >= the expert move's counts against it), and with ties broken at random (seeded), since
many points can share one value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from priors.spt import _kernels
from priors.spt.model import SPTPrior, mask
from priors.training.dataset import GameDataset

TOP_K = (1, 5, 10, 20)


@dataclass
class Sample:
    """Test positions: codes (P, N*N) uint8 for the side to move, legal (P, N*N) bool, moves, games."""
    codes: np.ndarray
    legal: np.ndarray
    moves: np.ndarray
    games: np.ndarray
    size: int

    def __len__(self) -> int:
        return len(self.moves)


def read_sample(dataset: GameDataset) -> Sample:
    """Every sampled non-pass position of the dataset's games."""
    codes, legal, moves, games = [], [], [], []
    for g, (gid, raw) in enumerate(dataset.games()):
        for pos in dataset.positions_of(gid, raw):
            if pos.move_index == pos.board.size ** 2:
                continue
            codes.append(_kernels.cell_codes(pos.board, pos.to_play))
            legal.append(pos.board.legal_points(pos.to_play))
            moves.append(pos.move_index)
            games.append(g)
    return Sample(np.array(codes, np.uint8), np.array(legal, bool), np.array(moves, np.int32),
                  np.array(games, np.int32), dataset.size)


def tables(prior: SPTPrior, sample: Sample) -> np.ndarray:
    """The forest's table of every sample position (float64 (P, N*N), before the legal mask)."""
    out = np.empty(sample.codes.shape, dtype=np.float64)
    _kernels.forest_on_codes(sample.codes, sample.size, prior.packed(sample.size), prior.hyper.w_p,
                             prior.coverage(sample.size), out)
    return out


def ranks(prior: SPTPrior, sample: Sample, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(pessimistic rank, random-tie rank) of the expert move in every sample position."""
    rng = np.random.default_rng(seed)
    t = tables(prior, sample)
    pess = np.empty(len(sample), dtype=np.int32)
    rand = np.empty(len(sample), dtype=np.int32)
    for i in range(len(sample)):
        p = mask(t[i], sample.legal[i], prior.hyper.floor)[:-1]
        expert = p[sample.moves[i]]
        above = int(np.count_nonzero(p > expert))
        tied = int(np.count_nonzero(p == expert))
        pess[i] = above + tied
        rand[i] = above + 1 + int(rng.integers(tied))
    return pess, rand


def top_k(rank: np.ndarray) -> dict[str, float]:
    return {f"top{k}": float(np.mean(rank <= k)) for k in TOP_K}
