"""configs/ holds the engine presets only; every experiment config sits in bench/configs/<kind>/ and loads
with the loader of its kind."""
from pathlib import Path

import pytest
import yaml

from bench import engine_speed, league, matchconfig, programs
from bench.fbt_runs import load_bench_config
from bench.spt_study import load_study
from bench.tactics.b2config import b2_settings
from engine.config import load_config as engine_config
from priors.training import trainconfig

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = ROOT / "bench" / "configs"
PREDICT = {"fbt": load_bench_config, "spt": load_study}   # by the first word of the file's name
LOADERS = {
    "match": matchconfig.load_config,
    "league": lambda path: league.load_config(str(path)),
    "train": trainconfig.load_config,
    "tactics": b2_settings,
    "speed": lambda path: engine_speed.load_config(str(path), programs.paths()),
    "predict": lambda path: PREDICT[path.stem.split("-")[0]](str(path)),
}


def test_configs_holds_the_presets_only_and_each_is_an_engine_configuration():
    files = sorted(f.name for f in (ROOT / "configs").iterdir())
    assert files == ["default.yaml", "dtree.yaml", "fbt.yaml", "mm.yaml", "none.yaml", "pbn.yaml", "spt.yaml"]
    for name in files:
        engine_config(str(ROOT / "configs" / name))


def test_experiments_are_sorted_by_kind():
    assert sorted(p.name for p in EXPERIMENTS.iterdir()) == sorted(LOADERS)
    assert all(f.suffix == ".yaml" for f in EXPERIMENTS.rglob("*") if f.is_file())


@pytest.mark.parametrize("path", sorted(EXPERIMENTS.glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_experiment_config_loads_with_its_kinds_loader(path):
    assert LOADERS[path.parent.name](path) is not None


@pytest.mark.parametrize("path", sorted((EXPERIMENTS / "predict").glob("*.yaml")), ids=lambda p: p.name)
def test_the_predict_configs_name_a_train_config_that_loads(path):
    train = yaml.safe_load(path.read_text())["train"]
    assert train.startswith("bench/configs/train/")
    trainconfig.load_config(ROOT / train)
