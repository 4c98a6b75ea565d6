"""Training and evaluation commands end to end on a tiny 9x9 archive, and config validation."""
import io
import tarfile

import numpy as np
import pytest

from priors import features
from priors.dtree import DTreePrior
from priors.fbt import FBTHyperparameters, FBTPrior
from priors.mm import MMPrior
from priors.modelfile import read_model, settings_chosen_on
from priors.training import datacache, extraction, train
from priors.training.dataset import GameDataset, ids_digest
from tests.priors.tiny_archive import data_dir, random_game, write_config  # noqa: F401 (data_dir is a fixture)

def test_training_mm_records_its_curve_and_config(tmp_path, data_dir):
    config = write_config(tmp_path, data_dir)
    assert train.main([str(config), "--set", "mm.n_iterations=3"]) == 0
    prior = MMPrior.load(tmp_path / "mm.npz")
    assert prior.info_["train_games"]["games"] > 10 and len(prior.info_["curve"]) <= 3
    assert "val_top1" in prior.info_["validation"]
    assert prior.info_["config"]["mm"]["n_iterations"] == 3 and "hyper" not in prior.info_["config"]
    assert settings_chosen_on(read_model(tmp_path / "mm.npz")[1]) == ("unknown", "")   # the config says nothing


def test_the_split_that_chose_the_settings_goes_from_the_config_to_the_header_and_back(tmp_path, data_dir):
    config = write_config(tmp_path, data_dir)
    assert train.main([str(config), "--set", "mm.n_iterations=2", "--set", "settings_chosen_on=test",
                       "--set", "settings_note=n_iterations picked on test games"]) == 0
    header = read_model(tmp_path / "mm.npz")[1]
    assert settings_chosen_on(header) == ("test", "n_iterations picked on test games")
    MMPrior.load(tmp_path / "mm.npz").save(tmp_path / "again.npz")        # a prior keeps it when saved again
    assert settings_chosen_on(read_model(tmp_path / "again.npz")[1]) == ("test", "n_iterations picked on test games")


def test_fbt_and_lfr_train_on_competitions_cached_once(tmp_path, data_dir, capsys):
    config = write_config(tmp_path, data_dir)
    cache = tmp_path / "cache"
    common = ["--set", "model=fbt", "--set", f"cache_dir={cache}", "--set", "fbt.max_epochs=4",
              "--set", "fbt.k=3"]
    assert train.main([str(config), *common, "--output", str(tmp_path / "fbt.npz")]) == 0
    assert "competitions cached" in capsys.readouterr().out
    assert len(list(cache.iterdir())) == 1
    # The training levels were joined on disk and are read back mapped, never loaded whole.
    cached = datacache.load_cache(next(cache.iterdir()))
    assert isinstance(cached.comps.levels, np.memmap) and len(cached.comps) == FBTPrior.load(
        tmp_path / "fbt.npz").info_["n_competitions"]
    assert train.main([str(config), *common, "--set", "fbt.loss=binary",
                       "--output", str(tmp_path / "lfr.npz")]) == 0
    assert "read from the cache" in capsys.readouterr().out
    fbt_prior, lfr_prior = FBTPrior.load(tmp_path / "fbt.npz"), FBTPrior.load(tmp_path / "lfr.npz")
    assert fbt_prior.info_["train_games"] == lfr_prior.info_["train_games"]
    assert fbt_prior.info_["n_competitions"] == lfr_prior.info_["n_competitions"] > 0
    assert fbt_prior.v_.shape[1] == 3 and lfr_prior.hyper.loss == "binary"
    # The report's validation point is the epoch whose weights the file holds.
    best = fbt_prior.info_["validation"]
    assert best["val_top1"] == max(p["val_top1"] for p in fbt_prior.info_["curve"])
    # Another validation setting is other data: a new cache entry, not a stale one.
    assert train.main([str(config), *common, "--set", "validation.max_games=5",
                       "--output", str(tmp_path / "fbt2.npz")]) == 0
    assert len(list(cache.iterdir())) == 2


@pytest.fixture(scope="module")
def two_archives(tmp_path_factory):
    """p.tar.xz (20 random 9x9 games) and q.tar.xz (12 others)."""
    path = tmp_path_factory.mktemp("mixture")
    for name, seeds in (("p", range(100, 120)), ("q", range(200, 212))):
        with tarfile.open(path / f"{name}.tar.xz", "w:xz") as tar:
            for k in seeds:
                data = random_game(k)
                info = tarfile.TarInfo(f"g{k}.sgf")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def test_a_mixture_is_trained_on_and_recorded_in_the_model_file(tmp_path, two_archives):
    config = write_config(tmp_path, two_archives)
    mixture = ["--set", "data.archives=[p.tar.xz, q.tar.xz]", "--set", "data.games=[5, 3]"]
    assert train.main([str(config), *mixture, "--set", "mm.n_iterations=2"]) == 0
    _, header = read_model(tmp_path / "mm.npz")
    chosen = GameDataset(two_archives, ["p.tar.xz", "q.tar.xz"], fractions=(0.6, 0.2, 0.2), seed=1, size=9,
                         games_per_archive=[5, 3]).game_ids()
    recorded = header["training_data"]
    assert recorded["archives"] == ["p.tar.xz", "q.tar.xz"]
    assert recorded["games"] == {"p.tar.xz": 5, "q.tar.xz": 3}
    assert recorded["games_digest"] == ids_digest(chosen)
    assert header["train_games"]["games"] == 8
    at_least = list(recorded["patterns_at_least"].values())
    assert at_least == sorted(at_least, reverse=True) and at_least[0] > 0
    assert header["peak_rss_mb"] > 0
    # Another mixture of the same archives is other training data, with another digest.
    assert train.main([str(config), *mixture, "--set", "data.games=[3, 5]", "--set", "mm.n_iterations=2"]) == 0
    other = read_model(tmp_path / "mm.npz")[1]["training_data"]
    assert other["games"] == {"p.tar.xz": 3, "q.tar.xz": 5} and other["games_digest"] != recorded["games_digest"]


def test_an_interrupted_extraction_resumes_after_its_finished_chunks(tmp_path, data_dir, monkeypatch):
    cache = tmp_path / "cache"
    args = [str(write_config(tmp_path, data_dir)), "--set", f"cache_dir={cache}", "--set", "chunk_games=4",
            "--set", "mm.n_iterations=2"]
    real, calls = extraction.compete_chunk, []

    def stops_at_the_third_chunk(*args):
        calls.append(args[1])
        if len(calls) == 3:
            raise RuntimeError("stopped")
        return real(*args)

    monkeypatch.setattr(extraction, "compete_chunk", stops_at_the_third_chunk)
    with pytest.raises(RuntimeError, match="stopped"):
        train.main(args)
    calls.clear()
    monkeypatch.setattr(extraction, "compete_chunk", lambda *args: calls.append(args[1]) or real(*args))
    monkeypatch.setattr(extraction, "count_chunk", None)            # the harvest is read back, not redone
    assert train.main(args) == 0
    n_train = len(GameDataset(data_dir, ["tiny.tar.xz"], fractions=(0.6, 0.2, 0.2), size=9).game_ids())
    assert calls.count("train") == -(-n_train // 4) - 2 and calls.count("validation") >= 1
    assert [f.name for f in cache.iterdir()] == [datacache.cache_key(train.load_config(args[0], args[2::2]))]
    assert not (next(cache.iterdir()) / "chunks").exists()
    resumed = MMPrior.load(tmp_path / "mm.npz").info_
    monkeypatch.undo()
    assert train.main(args[:1] + ["--set", "mm.n_iterations=2", "--output", str(tmp_path / "whole.npz")]) == 0
    whole = MMPrior.load(tmp_path / "whole.npz").info_
    assert resumed["train_games"] == whole["train_games"] and resumed["n_competitions"] == whole["n_competitions"]
    assert resumed["training_data"] == whole["training_data"]


@pytest.mark.parametrize("override, message", [
    ("model=svm", "model: must be one of dtree, fbt, mm"),
    ("model=none", "model: must be one of dtree, fbt, mm"),           # registered, but nothing to train
    ("fbt.loss=hinge", "fbt.loss"),
    ("fbt.k=-1", "fbt.k"),
    ("mm.n_iterations=0", "mm.n_iterations"),
    ("data.sample=2", "data.sample"),
    ("data.colour=1", "data.colour: unknown key"),
    ("mm.groups=[capture, magic]", "mm.groups"),
    ("data.max_games=many", "data.max_games"),
    ("data.games=[5, 3]", "data.games"),                       # two counts for one archive
    ("data.games=[0]", "data.games"),
    ("settings_chosen_on=training", "settings_chosen_on: must be one of validation, test, defaults, unknown"),
])
def test_config_errors_name_the_key(tmp_path, data_dir, override, message):
    with pytest.raises(ValueError, match=message):
        train.load_config(write_config(tmp_path, data_dir), [override])


def test_command_line_errors_are_clear(tmp_path, capsys):
    assert train.main([str(tmp_path / "absent.yaml")]) == 2
    assert "cannot read config" in capsys.readouterr().err


def test_groups_accept_the_named_sets(tmp_path, data_dir):
    overrides = ["fbt.groups=legacy", "mm.groups=[legacy, corner_opening]"]
    config = train.load_config(write_config(tmp_path, data_dir), overrides)
    assert config.hyper.groups == features.LEGACY_GROUPS + ("corner_opening",)
    config = train.load_config(write_config(tmp_path, data_dir, model="fbt"), overrides)
    assert config.hyper.groups == features.LEGACY_GROUPS
    assert FBTHyperparameters().groups == features.GROUPS      # the default
    with pytest.raises(ValueError, match="fbt.groups"):
        train.load_config(write_config(tmp_path, data_dir), ["fbt.groups=[]"])


def test_dtree_trains_from_the_patterns_alone_and_resumes_from_its_stages(tmp_path, data_dir, capsys):
    config = write_config(tmp_path, data_dir, model="dtree", cache_dir=tmp_path / "cache")
    settings = ["--set", "dtree.n_trees=2", "--set", "dtree.growth_games=10", "--set", "dtree.split_descents=10",
                "--set", "dtree.n_iterations=3", "--set", "dtree.groups=[tactical, patterns, trees]"]
    assert train.main([str(config), *settings, "--output", str(tmp_path / "dtree.npz")]) == 0
    first = capsys.readouterr()
    assert "training competitions" not in first.out         # the shared competitions are never built
    prior = DTreePrior.load(tmp_path / "dtree.npz")
    assert prior.info_["training_data"]["games"] == {"tiny.tar.xz": prior.info_["train_games"]["games"]}
    assert prior.info_["train_games"]["positions"] > 0 and prior.info_["n_patterns"] > 0
    assert "val_top1" in prior.info_["validation"]
    # A second feature set reads every stage back.
    assert train.main([str(config), *settings[:-2], "--set", "dtree.groups=[tactical, trees]",
                       "--output", str(tmp_path / "t-dt.npz")]) == 0
    second = capsys.readouterr()
    logged = second.out + second.err
    assert all(line in logged for line in ("patterns: ", "read back from", "forest read from", "competitions read from"))
    assert "harvest" not in second.err                      # no progress bar of a second harvest
    assert DTreePrior.load(tmp_path / "t-dt.npz").info_["train_games"] == prior.info_["train_games"]
