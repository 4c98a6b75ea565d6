"""One match run: its folder's settings and the resume check, its games so far, the games still to
play and the SPRT that stops a variant's games.

A folder whose games were played with another board, komi, seed, opening suite or engine command is
refused (`check_resume`). The games to play are the config's `games` per variant, the void games
replayed up to `replay_void`, less those already recorded and those of a variant whose test has
decided; a variant's test reads its games in the order they finished (games.jsonl's).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Iterable, Sequence

from bench import programs as external
from bench import report
from bench.game import GameTask
from bench.gamerecords import compact_game, expand_game, game_common, read_games
from bench.matchconfig import MatchConfig
from bench.probe import EngineInfo, probe
from bench.records import RunError, append_jsonl, read_run, start_run

# Keys whose change makes earlier games of a run folder incomparable with new ones.
RESUME_KEYS = ("board_size", "komi", "handicap", "alternate", "move_limit", "seed", "fault_result")


def settings(cfg: MatchConfig) -> dict:
    """What identifies the games of a run, for the resume check."""
    return {
        **{key: getattr(cfg, key) for key in RESUME_KEYS},
        "opponent": [cfg.opponent.command, list(cfg.opponent.setup)],
        "referee": [cfg.referee.command, list(cfg.referee.setup)] if cfg.referee else None,
        "variants": {v.name: [v.player.command, list(v.player.setup)] for v in cfg.variants},
        "time": dataclasses.asdict(cfg.time) if cfg.time else None,
        **({"disputes": cfg.disputes} if cfg.disputes != "referee" else {}),   # runs from before it resume
        **({"openings": cfg.openings_file} if cfg.openings_file else {}),
    }


def check_resume(old: dict, new: dict, run_dir: Path) -> None:
    for key, value in new.items():
        if key == "variants":
            for name, player in value.items():
                if name in old.get("variants", {}) and old["variants"][name] != player:
                    raise RunError(f"{run_dir} holds games of variant {name!r} played with another "
                                   f"command or setup ({old['variants'][name]}); use another --out")
        elif old.get(key) != value:
            raise RunError(f"{run_dir} holds games played with {key} = {old.get(key)!r}, "
                           f"the config says {value!r}; use another --out")


def planned_games(cfg: MatchConfig, records: Iterable[dict]) -> int:
    """The game indices one variant plays, given its records: `games`, and its void games replayed
    (see replay_void); records at higher indices do not count."""
    return cfg.planned_games(r["game"] for r in records if report.player_score(r) is None)


class Run:
    """One match run: its folder, its engines as probed, its records and the games still to play."""

    def __init__(self, cfg: MatchConfig, run_dir: Path, variants: Sequence[str] | None = None):
        names = [v.name for v in cfg.variants]
        unknown = sorted(set(variants or ()) - set(names))
        if unknown:
            raise RunError(f"--variants: no variant named {', '.join(unknown)} in {cfg.source} "
                           f"(it has: {', '.join(names)})")
        self.cfg = cfg
        self.playing = tuple(variants) if variants else tuple(names)
        self.dir = run_dir
        self.records_path = run_dir / "games.jsonl"
        self.records: dict[tuple[str, int], dict] = {}
        self.info: dict[str, EngineInfo] = {}
        self.common: dict[str, Any] = {}     # run.json's game_common
        self.started = ""                   # the first invocation's date: the .dat files' Date

    def prepare(self, argv: list[str]) -> None:
        old = read_run(self.dir)
        if old:
            check_resume(old.get("settings", {}), settings(self.cfg), self.dir)
        self.records = read_games(self.dir, repair=True)
        self._probe_engines()
        common = old.get("game_common") or game_common(self.cfg)
        played = {v for v, _ in self.records}
        for v in self.cfg.variants:         # a variant new to the folder: its command joins the rest
            if v.name not in played:
                common["player_command"][v.name] = v.player.command
        run = start_run(self.dir, "match", self.cfg.raw, command=" ".join(argv),
                        invocation={"games_already_played": len(self.records)}, settings=settings(self.cfg),
                        engines={k: vars(v) for k, v in self.info.items()}, game_common=common)
        self.common = common
        self.started = run["invocations"][0]["date"]

    def _probe_engines(self) -> None:
        try:
            external.check(self.cfg.programs)
        except external.ProgramError as e:
            raise RunError(str(e)) from None
        for v in self.cfg.variants:
            self.info[f"player:{v.name}"] = probe(v.player, f"player ({v.name})", self.cfg)
        self.info["opponent"] = probe(self.cfg.opponent, "opponent", self.cfg)
        if self.cfg.referee:
            self.info["referee"] = probe(self.cfg.referee, "referee", self.cfg)

    def planned_games(self, variant: str) -> int:
        return planned_games(self.cfg, (r for (v, _), r in self.records.items() if v == variant))

    def task(self, variant: str, index: int) -> GameTask:
        cfg = self.cfg
        player = next(v.player for v in cfg.variants if v.name == variant)
        opening = cfg.opening(index)
        return GameTask(run=cfg.name, variant=variant, index=index, seed=cfg.seed + index,
                        board_size=cfg.board_size, komi=cfg.komi, handicap=cfg.handicap,
                        move_limit=cfg.move_limit, swapped=cfg.swapped(index), player=player,
                        opponent=cfg.opponent, referee=cfg.referee, fault_result=cfg.fault_result,
                        time=cfg.time, disputes=cfg.disputes,
                        opening=cfg.openings[opening] if opening is not None else (),
                        opening_index=opening, opening_file=cfg.openings_file)

    def pending(self) -> list[GameTask]:
        """The games still to play, in index order, the variants interleaved; none of a variant whose
        SPRT has decided."""
        planned = {v.name: self.planned_games(v.name) for v in self.cfg.variants
                   if v.name in self.playing and not self.decided(v.name)}
        return [self.task(v, i) for i in range(max(planned.values(), default=0)) for v in planned
                if i < planned[v] and (v, i) not in self.records]

    def decided(self, variant: str) -> bool:
        return self.cfg.sprt is not None and self.sequential(variant).result in ("H0", "H1")

    def sequential(self, variant: str) -> report.Sequential:
        """The variant's sequential summary, its games in the order they finished (games.jsonl's)."""
        planned = self.planned_games(variant)
        ordered = [r for (v, i), r in self.records.items() if v == variant and i < planned]
        return report.sequential(variant, ordered, self.cfg.sprt, self.cfg.paired,
                                 finished=len(ordered) == planned)

    def add(self, record: dict) -> None:
        """Keep a finished game: its line in games.jsonl (what resume trusts)."""
        line = compact_game(record, self.common)
        append_jsonl(self.records_path, line)
        self.records[(record["variant"], record["game"])] = expand_game(line, self.common)

    def variant_records(self, name: str) -> list[dict]:
        planned = self.planned_games(name)
        return [r for (v, i), r in sorted(self.records.items()) if v == name and i < planned]

    def summaries(self) -> list[report.VariantSummary]:
        return [report.summarize(v.name, self.variant_records(v.name), v.playouts)
                for v in self.cfg.variants]

    def sequentials(self) -> list[report.Sequential]:
        """Every variant's sequential summary, with an SPRT or an opening suite; none without."""
        if self.cfg.sprt is None and not self.cfg.paired:
            return []
        return [self.sequential(v.name) for v in self.cfg.variants]


def has_pending(cfg: MatchConfig, run_dir: Path) -> bool:
    """Whether the run folder still lacks games of `cfg`; nothing is locked, probed or written."""
    run = Run(cfg, run_dir)
    run.records = read_games(run_dir)
    return bool(run.pending())
