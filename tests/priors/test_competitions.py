"""Merging identical candidate moves (teams) within a competition, for small and huge feature sets."""
from collections import Counter

import numpy as np
import pytest

from priors.training.competitions import (CompetitionBuilder, Joiner, NpyAppender, RowStore, load_competitions,
                                 radix_parts, save_competitions)

SMALL = [3, 4, 2]
HUGE = [60000, 60000, 60000, 60000, 3]          # the levels' product overflows int64


def test_one_run_of_groups_while_the_product_fits():
    assert len(radix_parts(np.array(SMALL))) == 1
    parts = radix_parts(np.array(HUGE))
    assert len(parts) == 2
    assert parts[0][0] == slice(0, 3) and parts[1][0] == slice(3, 5)


@pytest.mark.parametrize("counts", [SMALL, HUGE])
def test_identical_teams_merge_with_their_multiplicity(counts):
    rng = np.random.default_rng(7)
    levels = np.stack([rng.integers(0, min(n, 2), size=300) for n in counts], axis=1).astype(np.int32)
    levels[:, 0] += (counts[0] - 2) * (levels[:, 0] == 1)      # use the largest level too
    builder = CompetitionBuilder(counts)
    builder.add(levels, winner=17)
    comps = builder.build()
    want = Counter(map(tuple, levels.tolist()))
    got = {tuple(t): int(m) for t, m in zip(comps.levels.tolist(), comps.mult.tolist())}
    assert got == dict(want)
    assert tuple(comps.levels[comps.winners[0]].tolist()) == tuple(levels[17].tolist())


def test_teams_that_differ_only_in_the_second_run_stay_apart():
    levels = np.array([[5, 5, 5, 1, 0], [5, 5, 5, 1, 2], [5, 5, 5, 1, 0]], dtype=np.int32)
    builder = CompetitionBuilder(HUGE)
    builder.add(levels, winner=1)
    comps = builder.build()
    assert sorted(comps.mult.tolist()) == [1, 2]
    assert comps.levels[comps.winners[0]].tolist() == [5, 5, 5, 1, 2]


@pytest.mark.parametrize("block_bytes", [6, 36, 1 << 20])        # 1 and 6 rows per block, and one block
def test_rows_come_out_in_order_across_blocks(monkeypatch, block_bytes):
    monkeypatch.setattr(RowStore, "BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(3)
    chunks = [rng.integers(0, 1000, size=(n, 3)) for n in (0, 1, 5, 6, 7, 13, 2)]
    store = RowStore(3, np.uint16)
    for chunk in chunks:
        store.append(chunk)
    assert len(store) == 34
    rows = store.take()
    assert rows.dtype == np.uint16 and rows.flags.c_contiguous
    assert rows.tolist() == np.concatenate(chunks).tolist()
    assert len(store) == 0 and store.take().shape == (0, 3)


def test_competitions_spanning_blocks_keep_their_teams(monkeypatch):
    monkeypatch.setattr(RowStore, "BLOCK_BYTES", 4 * 3 * 2)       # 4 teams of 3 uint16 levels per block
    builder = CompetitionBuilder(SMALL)
    positions = [np.array([[1, 2, 0], [0, 3, 1], [2, 0, 1]]), np.array([[1, 1, 1], [1, 1, 1]]),
                 np.array([[0, 0, 0], [2, 3, 1], [1, 0, 0], [0, 1, 0]])]
    for levels in positions:
        builder.add(levels, winner=len(levels) - 1)
    comps = builder.build()
    assert comps.starts.tolist() == [0, 3, 4, 8] and comps.mult.tolist()[3] == 2
    for j, levels in enumerate(positions):
        teams = comps.levels[comps.starts[j]:comps.starts[j + 1]].tolist()
        assert sorted(map(tuple, teams)) == sorted(set(map(tuple, levels.tolist())))
        assert comps.levels[comps.winners[j]].tolist() == levels[-1].tolist()


def test_joined_sets_keep_every_competition_with_its_teams_and_winner(monkeypatch):
    monkeypatch.setattr(RowStore, "BLOCK_BYTES", 5 * 3 * 2)       # 5 teams per block: sets span blocks
    rng = np.random.default_rng(5)
    parts, positions = [], []
    for n_positions in (3, 1, 4):
        builder = CompetitionBuilder(SMALL)
        for _ in range(n_positions):
            levels = np.stack([rng.integers(0, n, size=4) for n in SMALL], axis=1)
            winner = int(rng.integers(0, 4))
            builder.add(levels, winner, move_number=len(positions))
            positions.append((levels, winner))
        parts.append(builder.build())
    joiner = Joiner()
    for part in parts:
        joiner.add(part)
    comps = joiner.build()
    assert len(comps) == 8 and comps.move_numbers.tolist() == list(range(8))
    assert comps.starts[-1] == len(comps.levels) == len(comps.mult)
    for j, (levels, winner) in enumerate(positions):
        teams = comps.levels[comps.starts[j]:comps.starts[j + 1]].tolist()
        assert sorted(map(tuple, teams)) == sorted(set(map(tuple, levels.tolist())))
        assert comps.mult[comps.starts[j]:comps.starts[j + 1]].sum() == 4
        assert comps.levels[comps.winners[j]].tolist() == levels[winner].tolist()


def test_sets_of_other_level_types_are_not_joined():
    small, wide = CompetitionBuilder(SMALL), CompetitionBuilder(SMALL, np.int32)
    for builder in (small, wide):
        builder.add(np.array([[1, 2, 0]]), 0)
    joiner = Joiner()
    joiner.add(small.build())
    with pytest.raises(ValueError, match="cannot join"):
        joiner.add(wide.build())


@pytest.mark.parametrize("dtype", [np.uint16, np.int32])
def test_rows_appended_on_disk_come_back_in_order_as_a_read_only_map(tmp_path, dtype):
    rng = np.random.default_rng(4)
    chunks = [rng.integers(0, 60000, size=(n, 3)) for n in (0, 1, 5, 13)]
    store = NpyAppender(tmp_path / "rows.npy", 3, dtype)
    for chunk in chunks:
        store.append(chunk)
    assert len(store) == 19
    rows = store.take()
    assert isinstance(rows, np.memmap) and not rows.flags.writeable and rows.dtype == dtype
    assert rows.tolist() == np.concatenate(chunks).tolist()
    assert np.load(tmp_path / "rows.npy").shape == (19, 3)          # a plain .npy to any reader
    empty = NpyAppender(tmp_path / "empty.npy", 3, dtype)
    assert empty.take().shape == (0, 3)


def test_a_join_spilled_to_disk_is_the_join_in_memory_and_is_not_written_twice(tmp_path):
    rng = np.random.default_rng(6)
    parts = []
    for n_positions in (2, 3):
        builder = CompetitionBuilder(SMALL)
        for _ in range(n_positions):
            builder.add(np.stack([rng.integers(0, n, size=5) for n in SMALL], axis=1), int(rng.integers(0, 5)))
        parts.append(builder.build())
    in_memory, on_disk = Joiner(), Joiner(tmp_path / "train_levels.npy")
    for part in parts:
        in_memory.add(part)
        on_disk.add(part)
    a, b = in_memory.build(), on_disk.build()
    assert isinstance(b.levels, np.memmap)
    for name in ("levels", "mult", "starts", "winners", "move_numbers"):
        assert getattr(a, name).tolist() == getattr(b, name).tolist()
    written = (tmp_path / "train_levels.npy").stat().st_mtime_ns
    save_competitions(tmp_path, "train", b)
    assert (tmp_path / "train_levels.npy").stat().st_mtime_ns == written
    back = load_competitions(tmp_path, "train", mmap=True)
    assert isinstance(back.levels, np.memmap) and back.levels.tolist() == a.levels.tolist()
    assert back.winners.tolist() == a.winners.tolist()
