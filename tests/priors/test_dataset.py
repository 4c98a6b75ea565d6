"""Positions streamed from .tar.xz archives: splits, sampling, symmetries, setup stones, bad games."""
import io
import tarfile
from collections import Counter

import numpy as np
import pytest

from engine.board import BLACK, PASS, WHITE
from priors.training.dataset import (DataError, GameDataset, ids_digest, replay, scale_mixture,
                            split_of, transform, unit_hash)

GAMES = {
    # 10 moves on 9x9, the last two passes ("" and "tt" both mean pass).
    "good1.sgf": b"(;GM[1]FF[4]SZ[9]KM[6.5];B[ee];W[cc];B[gc];W[cg];B[gg];W[eg];B[ec];W[ce];B[];W[tt])",
    # Setup in a later node: after two moves, AB adds C4 and AE removes Black's E5.
    "setup.sgf": b"(;GM[1]SZ[9];B[ee];W[cc];AB[cf]AE[ee];B[gg]PL[W];W[gc])",
    "corrupt.sgf": b"(;GM[1]SZ[9];B[ee];W[c",
    "illegal.sgf": b"(;GM[1]SZ[9];B[ee];W[ee])",                 # plays on an occupied point
    "big.sgf": b"(;GM[1]SZ[19];B[pd];W[dp])",
    "README.txt": b"not a game",
}


def make_archive(path, games):
    with tarfile.open(path, "w:xz") as tar:
        for name, data in games.items():
            info = tarfile.TarInfo(f"set/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


@pytest.fixture
def data_dir(tmp_path):
    make_archive(tmp_path / "games.tar.xz", GAMES)
    return tmp_path


def dataset(data_dir, **kw):
    kw.setdefault("fractions", (1.0, 0.0, 0.0))
    kw.setdefault("size", 9)
    return GameDataset(data_dir, archives=["games.tar.xz"], **kw)


def test_positions_of_a_game(data_dir):
    ds = dataset(data_dir)
    positions = [p for p in ds if p.game_id.endswith("good1.sgf")]
    assert [p.move_number for p in positions] == list(range(1, 11))
    assert [p.to_play for p in positions] == [BLACK, WHITE] * 5
    first, third = positions[0], positions[2]
    assert first.board.stones().sum() == 0 and first.move == first.board.point(4, 4)
    assert third.board.color_at(third.board.point(4, 4)) == BLACK      # E5 played before move 3
    assert third.board.color_at(third.board.point(6, 2)) == WHITE      # SGF "cc" is row 6 (C7)
    assert third.board.to_play == BLACK and third.move_index == 6 * 9 + 6
    assert positions[8].move == PASS and positions[9].move == PASS and positions[9].move_index == 81
    assert positions[0].board.komi == 6.5


def test_bad_games_are_skipped_and_counted(data_dir):
    ds = dataset(data_dir)
    games = Counter(p.game_id.split("/")[-1] for p in ds)
    assert games == {"good1.sgf": 10, "setup.sgf": 4}
    assert ds.stats.skipped == {"corrupt": 1, "illegal": 1, "size": 1}
    assert ds.stats.games == 2 and ds.stats.positions == 14
    assert "corrupt 1" in str(ds.stats)


def test_setup_stones_from_any_node(data_dir):
    positions = [p for p in dataset(data_dir) if p.game_id.endswith("setup.sgf")]
    third = positions[2]
    assert third.board.color_at(third.board.point(3, 2)) == BLACK       # AB[cf] = C4
    assert third.board.color_at(third.board.point(4, 4)) == 0           # AE[ee]
    assert positions[3].to_play == WHITE and positions[3].move == positions[3].board.point(6, 6)


def test_split_is_a_stable_function_of_the_game_id():
    ids = [f"archive.tar.xz/game{i}.sgf" for i in range(4000)]
    splits = Counter(split_of(g) for g in ids)
    assert abs(splits["train"] / 4000 - 0.90) < 0.02
    assert abs(splits["test"] / 4000 - 0.05) < 0.015
    # the same ids fall in the same splits on every machine and in every release: recorded runs name
    # their test games by these splits
    assert [g for g in range(90) if split_of(ids[g]) != "train"] == [16, 33, 45, 67, 69, 86]
    assert [split_of(ids[g]) for g in (33, 45)] == ["test", "validation"]
    assert unit_hash("x") == 0.29246922768054995 != unit_hash("y")
    assert split_of("a", (0.0, 0.0, 1.0)) == "test" and split_of("a", (1.0, 0.0, 0.0)) == "train"


def test_splits_partition_the_games(data_dir):
    parts = [set(dataset(data_dir, split=s, fractions=(0.4, 0.3, 0.3)).game_ids())
             for s in ("train", "validation", "test")]
    assert sum(len(p) for p in parts) == 5 and not (parts[0] & parts[1] or parts[1] & parts[2])


def test_sampling_is_seeded_per_game(data_dir):
    def picks(seed, sample):
        return [(p.game_id, p.move_number) for p in dataset(data_dir, sample=sample, seed=seed)]
    assert picks(1, 0.5) == picks(1, 0.5)
    assert picks(1, 0.5) != picks(2, 0.5)
    assert set(picks(1, 0.5)) <= set(picks(1, 1.0))


def test_symmetry_augmentation(data_dir):
    plain = [p for p in dataset(data_dir) if p.game_id.endswith("good1.sgf")]
    every = [p for p in dataset(data_dir, augment="all") if p.game_id.endswith("good1.sgf")]
    assert len(every) == 8 * len(plain)
    for t in range(8):
        moved = every[t * len(plain) + 6]
        ref = plain[6]
        for r in range(9):
            for c in range(9):
                assert moved.board.color_at(moved.board.point(*transform(r, c, 9, t))) == \
                    ref.board.color_at(ref.board.point(r, c))
        assert moved.move == moved.board.point(*transform(*ref.board.coords(ref.move), 9, t))
    one = [p for p in dataset(data_dir, augment="random", seed=4)]
    assert len(one) == 14
    assert [p.move for p in one] == [p.move for p in dataset(data_dir, augment="random", seed=4)]


def test_max_games_picks_a_seeded_subset(data_dir):
    a = dataset(data_dir, max_games=2, seed=1).game_ids()
    assert len(a) == 2 and a == dataset(data_dir, max_games=2, seed=1).game_ids()
    assert {tuple(dataset(data_dir, max_games=2, seed=s).game_ids()) for s in range(8)} != {tuple(a)}


def test_damaged_archive_is_not_fatal(tmp_path):
    make_archive(tmp_path / "games.tar.xz", {f"g{i}.sgf": GAMES["good1.sgf"] for i in range(40)})
    data = (tmp_path / "games.tar.xz").read_bytes()
    (tmp_path / "games.tar.xz").write_bytes(data[: len(data) * 2 // 3])
    ds = dataset(tmp_path)
    n = sum(1 for _ in ds)
    assert n % 10 == 0 and ds.stats.skipped["archive_error"] == 1 and ds.archive_errors


def test_configuration_errors_name_the_key(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        GameDataset(tmp_path / "nowhere").game_ids()
    with pytest.raises(DataError, match="not found"):
        GameDataset(tmp_path, archives=["absent.tar.xz"]).game_ids()
    for kw, key in (({"split": "dev"}, "split"), ({"sample": 0.0}, "sample"), ({"augment": "some"}, "augment"),
                    ({"fractions": (0.5, 0.5, 0.5)}, "fractions"), ({"max_games": 0}, "max_games")):
        with pytest.raises(ValueError, match=key):
            GameDataset(tmp_path, **kw)


def test_real_archive_replays_legally(archive):
    with tarfile.open(archive("kgs6d_even.tar.xz"), "r:xz") as tar:
        members = [m for _, m in zip(range(4), (m for m in tar if m.isfile()))]
        positions = [p for m in members for p in replay(tar.extractfile(m).read(), m.name)]
    assert len({p.game_id for p in positions}) == 4
    for p in positions[::7]:
        assert p.move == PASS or p.board.is_legal(p.move, p.to_play)
        assert p.board.to_play == p.to_play and p.board.size == 19
    assert np.mean([p.move == PASS for p in positions]) < 0.05


def test_max_games_takes_archives_in_the_order_listed(tmp_path):
    make_archive(tmp_path / "a.tar.xz", {f"a{i}.sgf": GAMES["good1.sgf"] for i in range(3)})
    make_archive(tmp_path / "b.tar.xz", {f"b{i}.sgf": GAMES["good1.sgf"] for i in range(3)})
    pick = GameDataset(tmp_path, ["b.tar.xz", "a.tar.xz"], fractions=(1, 0, 0), max_games=4, size=9).game_ids()
    assert sorted(g.split("/")[0] for g in pick) == ["a.tar.xz", "b.tar.xz", "b.tar.xz", "b.tar.xz"]


def mixture_dir(tmp_path):
    """a.tar.xz with 10 one-move games and b.tar.xz with 6, every game in the train split."""
    for name, n in (("a", 10), ("b", 6)):
        make_archive(tmp_path / f"{name}.tar.xz",
                     {f"{name}{k}.sgf": b"(;GM[1]SZ[9];B[" + bytes([97 + k % 9]) + b"e])" for k in range(n)})
    return tmp_path


def mixture(data_dir, **kw):
    return GameDataset(data_dir, ["a.tar.xz", "b.tar.xz"], fractions=(1.0, 0.0, 0.0), size=9, **kw)


def test_games_per_archive_sets_the_mixture(tmp_path):
    data_dir = mixture_dir(tmp_path)
    assert mixture(data_dir, games_per_archive=[3, 4]).mixture() == {"a.tar.xz": 3, "b.tar.xz": 4}
    assert mixture(data_dir, games_per_archive=[0, 99]).mixture() == {"a.tar.xz": 0, "b.tar.xz": 6}
    # A larger count keeps the smaller count's games; the seed changes the choice.
    small = set(mixture(data_dir, games_per_archive=[3, 2]).game_ids())
    large = set(mixture(data_dir, games_per_archive=[6, 2]).game_ids())
    assert small < large
    assert any(set(mixture(data_dir, games_per_archive=[3, 2], seed=s).game_ids()) != small for s in (1, 2, 3))
    ds = mixture(data_dir, games_per_archive=[2, 1])
    assert sorted(p.game_id.split("/")[0] for p in ds) == ["a.tar.xz", "a.tar.xz", "b.tar.xz"]


def test_max_games_fills_from_the_archives_in_order(tmp_path):
    data_dir = mixture_dir(tmp_path)
    assert mixture(data_dir, max_games=12).mixture() == {"a.tar.xz": 10, "b.tar.xz": 2}
    assert mixture(data_dir, max_games=4).mixture() == {"a.tar.xz": 4, "b.tar.xz": 0}


@pytest.mark.parametrize("kw", [{"games_per_archive": [1]}, {"games_per_archive": [1, -1]},
                                {"games_per_archive": [1, 1], "max_games": 2}])
def test_a_bad_mixture_is_refused(tmp_path, kw):
    with pytest.raises(ValueError, match="games_per_archive"):
        mixture(tmp_path, **kw)


def test_scale_mixture_keeps_the_proportions_and_the_total():
    assert scale_mixture([100, 300, 600], 10) == [1, 3, 6]
    assert sum(scale_mixture([1, 1, 1], 10)) == 10
    assert scale_mixture([5, 0], 3) == [3, 0]


def test_ids_digest_depends_on_the_set_only():
    assert ids_digest(["a/1", "b/2"]) == ids_digest(["b/2", "a/1"])
    assert ids_digest(["a/1", "b/2"]) != ids_digest(["a/1", "b/3"])
