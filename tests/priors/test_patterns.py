"""Large circular patterns: counting, the harvest threshold and the matched set."""
import numpy as np
import pytest

from engine.board import BLACK, PASS, WHITE, Board
from priors import features
from priors.patterns import PatternCounter, PatternSet, count_patterns, harvest
from priors.training.dataset import Position

BOARD = """
. . . . . . . . .
. . . . . . . . .
. . X O . . . . .
. . . . . . . . .
. . O . X . . . .
. . . X . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def positions():
    board = Board.from_ascii(BOARD)
    moves = [(3, 3), (3, 3), (3, 3), (6, 6), (6, 6), (0, 8)]
    out = [Position(board, BLACK, board.point(r, c), i + 1, "g") for i, (r, c) in enumerate(moves)]
    out.append(Position(board, WHITE, PASS, 9, "g"))         # passes have no pattern
    return out


def test_counts_and_threshold():
    counter = count_patterns(positions())
    assert counter.n_moves == 6
    assert counter.counts.sum() == 6 * 13
    kept = counter.patterns(min_count=2)
    board = Board.from_ascii(BOARD)
    at_d4 = features.pattern_keys_at(board, board.point(3, 3), BLACK)
    assert set(at_d4.tolist()) <= set(kept.keys.tolist())
    assert np.all(kept.counts >= 2)
    corner = features.pattern_keys_at(board, board.point(0, 8), BLACK)
    assert not set(corner.tolist()) & set(kept.keys.tolist())   # seen once
    assert np.all(np.diff(kept.sizes.astype(int)) >= 0)         # ordered by size


def test_kept_set_is_closed_under_shrinking():
    # A kept pattern's smaller sizes at the same move were counted at least as often.
    kept = harvest(positions(), min_count=2)
    board = Board.from_ascii(BOARD)
    keys = set(kept.keys.tolist())
    for r, c in ((3, 3), (6, 6), (0, 8), (4, 4)):
        present = [k in keys for k in features.pattern_keys_at(board, board.point(r, c), BLACK).tolist()]
        n = sum(present)
        assert present == [True] * n + [False] * (13 - n)


def test_chunked_and_merged_counting_agree():
    whole = count_patterns(positions())
    chunked = count_patterns(positions(), PatternCounter(chunk=2))
    merged = count_patterns(positions()[:3], PatternCounter(chunk=1))
    merged.merge(count_patterns(positions()[3:]))
    for other in (chunked, merged):
        other.flush()
        whole.flush()
        assert np.array_equal(other.keys, whole.keys) and np.array_equal(other.counts, whole.counts)
        assert np.array_equal(other.sizes, whole.sizes)


def test_pattern_set_validation():
    with pytest.raises(ValueError, match="distinct"):
        PatternSet(np.array([5, 5], dtype=np.uint64), np.array([2, 3]))
    with pytest.raises(ValueError, match="sizes"):
        PatternSet(np.array([5], dtype=np.uint64), np.array([15]))
    with pytest.raises(ValueError, match="pattern_min_count"):
        harvest(positions(), min_count=0)
    empty = PatternSet(np.zeros(0, dtype=np.uint64), np.zeros(0))
    assert len(empty) == 0 and empty.size_histogram()[2] == 0


def test_table_finds_every_key():
    rng = np.random.default_rng(5)
    keys = np.unique(rng.integers(0, 2 ** 63, 3000, dtype=np.int64).astype(np.uint64))
    ps = PatternSet(keys, np.full(len(keys), 7))
    cap = len(ps.table_keys)
    assert cap & (cap - 1) == 0 and cap >= 2 * len(keys)
    slots = ps.table_values >= 0
    assert sorted(ps.table_values[slots].tolist()) == list(range(len(keys)))
    assert np.array_equal(ps.table_keys[slots], keys[ps.table_values[slots]])
