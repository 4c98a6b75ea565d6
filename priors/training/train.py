"""Train a prior from expert games: `python -m priors.training.train CONFIG.yaml [--set key=value ...]`.

Steps: harvest large patterns from the training games, turn sampled training and validation positions
into competitions, fit the model that `model:` names (any registered prior with a `train` module in
its subpackage; its hyperparameters come from the config's section of that name) with a progress bar
that shows the training and validation figures per sweep or epoch, and write the model file. Game
extraction runs in-process, or on a local process pool (`n_workers`), or on a Dask cluster
(`--scheduler ADDRESS`): games are independent, so each worker handles a chunk of them and returns
compact arrays.

With `cache_dir` set, the patterns and competitions are saved there under a key of the data, pattern
and validation settings, so that several models (MM, FBT and LFR with several k) fit the same data
without extracting it again, and an interrupted extraction resumes after its last finished chunk.

`data.games` trains on a mixture of archives (games per archive, each from its own split); the model
file records the training data (archives, games per archive, a digest of the game ids). The harvest alone,
without a fit, is a bench: `python -m bench.harvest CONFIG`.

The parts: `trainconfig` (the config and each prior's trainer module), `extraction` (games to patterns
and competitions, in chunks), `datacache` (the extracted data kept under `cache_dir`); this module runs
them and fits.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

from priors.base import Prior
from priors.training.datacache import training_data
from priors.training.extraction import peak_rss_mb
from priors.training.trainconfig import TrainConfig, config_record, load_config, trainer


def train(config: TrainConfig, scheduler: str = "", log=print) -> Prior:
    """Fit the configured model; returns the fitted prior with its report in info_."""
    started = time.time()
    steps = trainer(config.model)
    data = getattr(steps, "training_data", training_data)(config, scheduler, log)
    fit_start = time.time()
    prior, curve, final = steps.fit(config.hyper, data)
    patterns = getattr(data, "patterns", None)
    stats, n_patterns = data.stats, len(patterns) if patterns is not None else 0
    stats = dict(stats) if isinstance(stats, dict) else stats
    prior.info_.update(
        config=config_record(config),
        training_data=stats.pop("training_data", None) if isinstance(stats, dict) else None,
        train_games=stats,
        validation=final,
        curve=curve,
        n_patterns=n_patterns,
        fit_seconds=round(time.time() - fit_start, 1),
        total_seconds=round(time.time() - started, 1),
        peak_rss_mb=peak_rss_mb(),
        machine=platform.node() + " " + platform.processor(),
        date=time.strftime("%Y-%m-%d %H:%M:%S"),
        settings_chosen_on=config.settings_chosen_on,
        settings_note=config.settings_note,
    )
    log(f"{config.model}: {len(curve)} {steps.UNIT} in {prior.info_['fit_seconds']} s; kept {final}; "
        f"peak resident memory {prior.info_['peak_rss_mb']} MB")
    return prior


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m priors.training.train", description=__doc__.splitlines()[0])
    parser.add_argument("config", help="training config (YAML), e.g. bench/configs/train/mm.yaml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set data.max_games=500")
    parser.add_argument("--scheduler", default="", help="Dask scheduler address for game extraction")
    parser.add_argument("--output", default="", help="model file (overrides the config's output)")
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config, args.set)
        if args.output:
            config = replace(config, output=args.output)
        prior = train(config, args.scheduler)
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = Path(config.output).expanduser()
    out.parent.mkdir(parents=True, exist_ok=True)
    prior.save(out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB), digest {prior.digest()}")
    report = getattr(trainer(config.model), "report", None)
    if report is not None:
        report(prior)
    return 0


if __name__ == "__main__":
    sys.exit(main())
