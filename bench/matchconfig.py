"""The match configuration: a YAML file read by engine.configfile (safe_load), validated into frozen dataclasses.

Every problem is a `ConfigError` naming the key (`player.timeout: expected a positive number`).
An example, with the defaults of the optional keys:

```yaml
name: quick                 # run name (its folder: bench/results/match/<name>/); default: the file name
board_size: 9               # required, 2..25
komi: 7.5
games: 4                    # required: games per variant
alternate: true             # swap colours every other game (gogui-twogtp -alternate)
handicap: 0                 # fixed handicap stones, 0 or 2..9
max_moves: 0                # move limit; 0 means 3 * board_size**2
seed: 1                     # game i gets seed + i, written wherever a command says {seed}
jobs: 1                     # games played at once (--jobs overrides)
fault_result: void          # a crash or hang: void (no result) or loss (the faulty engine loses)
replay_void: 0              # void games played again under the next indices, at most this many per
                            # variant, so that `games` games have a result
disputes: referee           # after two passes, when the referee's count and an engine's own name other
                            # winners: `referee` (its count stands) or `play` (KGS's rule: play resumes,
                            # kgs-genmove_cleanup, to two passes; then every stone left counts alive)
time: {system: absolute, main: 20}   # optional: a timed game (bench.gameclock); null or absent: none
                            # {system: byoyomi, main: 5, period: 1, periods: 3}  Japanese byo-yomi
                            # {system: canadian, main: 300, period: 10, stones: 5}
referee: /usr/games/gnugo --mode gtp --chinese-rules   # GnuGo's final_score cross-checks; null: none
sprt: {elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05, model: logistic}   # optional (bench.sprt): each
                            # variant stops when the test decides; `games` is then a cap
openings: bench/openings/9x9.txt   # optional suite (bench.openings): games 2k and 2k+1 play opening k
                            # (modulo the suite's length), colours swapped; `games` must be even
player:                     # the engine under test: the -black engine of the .dat files
  command: python -m gtp.cli gtp --set search.playouts=1000 --set search.seed={seed}
  label: Tesuji             # default: the engine's GTP name
  setup: []                 # GTP commands sent after boardsize/clear_board/komi, e.g. time_settings 0 5 1
  timeout: 60               # seconds any one command (genmove included) may take: more is a hang
opponent: /usr/games/gnugo --mode gtp --level 10 --chinese-rules   # a bare command is allowed too
variants:                   # optional sweep: each variant plays `games` games against the opponent
  - name: p1k               # letters, digits and . _ + - (it prefixes the .dat and SGF files)
    args: --set search.playouts=1000   # appended to the player's command (or to `command`)
    playouts: 1000          # x of the sweep plot; default: read from search.playouts=N
  - name: p3k
    command: ...            # replaces the player's command; setup, timeout, label may be replaced too
```

In commands and setup lines `{seed}` and `{game}` are replaced by the game's seed and index, so that
engines that are deterministic for a fixed seed (GnuGo, and ours at fixed playouts) play different games.
A program built outside the project is named by a placeholder, `{pachi}` (or `{base}`, the engine at an
earlier commit), replaced by its path when the config is read (bench.programs: a default path, `--program pachi=PATH` overrides it); the run checks the
program is there before its first game.
"""
from __future__ import annotations

import math
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from bench import programs as external
from bench.gameclock import SYSTEMS, TimeSettings
from bench.records import results_folder
from engine.configfile import ConfigError, read_yaml
from bench.sprt import SprtConfig

NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
PLAYOUTS_RE = re.compile(r"search\.playouts[= ](\d+)")


@dataclass(frozen=True)
class EngineSpec:
    command: str                 # command line; {seed} and {game} are filled in per game
    label: str = ""              # display name; empty means the engine's GTP name
    setup: tuple[str, ...] = ()  # GTP commands sent at the start of every game
    timeout: float = 60.0        # seconds allowed for any one command

    def command_for(self, seed: int, game: int) -> str:
        return fill(self.command, seed, game)

    def setup_for(self, seed: int, game: int) -> list[str]:
        return [fill(line, seed, game) for line in self.setup]


@dataclass(frozen=True)
class Variant:
    name: str                    # unique, file-name safe
    player: EngineSpec           # the player's engine as this variant runs it
    playouts: int | None = None  # x of the sweep plot


@dataclass(frozen=True)
class MatchConfig:
    name: str
    board_size: int
    games: int
    player: EngineSpec
    opponent: EngineSpec
    variants: tuple[Variant, ...]
    komi: float = 7.5
    alternate: bool = True
    handicap: int = 0
    max_moves: int = 0
    seed: int = 1
    jobs: int = 1
    fault_result: str = "void"
    replay_void: int = 0         # void games replaced by new ones, at most, per variant
    disputes: str = "referee"    # or "play": a disputed count is played out (bench.game)
    referee: EngineSpec | None = None
    time: TimeSettings | None = None   # the clock of both sides; None: untimed
    sprt: SprtConfig | None = None     # a sequential test per variant; `games` is its cap
    openings_file: str | None = None   # the opening suite, as the config names it
    openings: tuple[tuple[str, ...], ...] = ()   # its openings' moves
    programs: dict[str, str] = field(default_factory=dict)   # the external programs its commands use: paths
    source: str = ""             # the file it was read from
    raw: dict = field(default_factory=dict, compare=False)  # the YAML mapping, for the run record

    @property
    def run_dir(self) -> Path:
        """The run folder when none is given: bench/results/match/<name>/."""
        return results_folder("match", self.name)

    @property
    def move_limit(self) -> int:
        return self.max_moves or 3 * self.board_size * self.board_size

    @property
    def paired(self) -> bool:
        """Whether games come in pairs on an opening suite (pentanomial statistics)."""
        return bool(self.openings)

    def planned_games(self, void_games: Iterable[int]) -> int:
        """How many game indices a variant plays: `games`, and one more for each void game among
        them, at most `replay_void` more. A void game stays in the records; the game after the last
        planned one replaces it, with its own seed and colour. With openings a pair with a void game
        is replaced whole: two more games (the next pair, on the next opening), within `replay_void`."""
        if self.paired:
            n = self.games
            for pair in sorted({i // 2 for i in void_games}):
                if 2 * pair >= n or n + 2 > self.games + self.replay_void:
                    break
                n += 2
            return n
        n = self.games
        for i in sorted(void_games):
            if i >= n or n == self.games + self.replay_void:
                break
            n += 1
        return n

    def swapped(self, game: int) -> bool:
        """Whether the player takes White in this game (gogui-twogtp: odd games with -alternate; with
        openings the second game of each pair)."""
        return self.alternate and game % 2 == 1

    def opening(self, game: int) -> int | None:
        """The index of the opening game `game` starts from: pair k (games 2k, 2k+1) plays opening k,
        modulo the suite's length; None without a suite."""
        return (game // 2) % len(self.openings) if self.openings else None


GAME_PLACEHOLDERS = ("seed", "game")     # filled in per game; the programs' are filled in when read


def fill(text: str, seed: int, game: int) -> str:
    """A command or setup line with `{seed}` and `{game}` filled in."""
    return text.replace("{seed}", str(seed)).replace("{game}", str(game))


DISPUTES = ("referee", "play")
TOP_KEYS = {"name", "board_size", "komi", "games", "alternate", "handicap", "max_moves", "seed", "jobs",
            "fault_result", "replay_void", "disputes", "referee", "player", "opponent", "variants", "time",
            "sprt", "openings"}
ENGINE_KEYS = {"command", "label", "setup", "timeout"}
ENGINE_ROLES = ("player", "opponent", "referee", "variants")    # the keys that hold engines' commands
VARIANT_KEYS = {"name", "command", "args", "label", "setup", "timeout", "playouts"}


def load_config(path: str | os.PathLike, programs: dict[str, str] | None = None) -> MatchConfig:
    """Read and validate a match configuration file; `programs`: the external programs' paths
    (bench.programs.paths(), its defaults when None)."""
    return load_yaml_config(path, parse_config, programs)


def load_yaml_config(path: str | os.PathLike, parse: Any, programs: dict[str, str] | None = None) -> Any:
    """`parse(data, default_name=, source=, programs=)` of a YAML file (engine.configfile.read_yaml), every
    error a ConfigError that names the file (a match's or a league's configuration)."""
    path = str(path)
    data = read_yaml(path)
    try:
        return parse(data, default_name=Path(path).stem, source=path, programs=programs)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def parse_config(data: Any, default_name: str = "match", source: str = "",
                 programs: dict[str, str] | None = None) -> MatchConfig:
    """Validate a mapping (as read from YAML) into a MatchConfig, the external programs' placeholders in its
    engines' commands replaced by `programs`' paths (bench.programs.paths(), its defaults when None)."""
    if not isinstance(data, dict):
        raise ConfigError("the file must hold a mapping of keys (board_size, games, player, ...)")
    _check_keys(data, TOP_KEYS, "")
    raw = data
    data, used = _with_programs(data, external.paths() if programs is None else programs)
    for key in ("board_size", "games", "player", "opponent"):
        if key not in data:
            raise ConfigError(f"{key}: required key missing")
    name = _name(data.get("name", default_name), "name")
    board_size = _int(data["board_size"], "board_size", 2, 25)
    handicap = _int(data.get("handicap", 0), "handicap", 0, 9)
    if handicap == 1:
        raise ConfigError("handicap: must be 0 or 2..9, got 1")
    player = _engine(data["player"], "player")
    fault_result = data.get("fault_result", "void")
    if fault_result not in ("void", "loss"):
        raise ConfigError(f"fault_result: expected void or loss, got {fault_result!r}")
    disputes = data.get("disputes", "referee")
    if disputes not in DISPUTES:
        raise ConfigError(f"disputes: expected referee or play, got {disputes!r}")
    referee = data.get("referee")
    if disputes == "play" and referee is None:
        raise ConfigError("disputes: play needs a referee, whose count is the one disputed")
    games = _int(data["games"], "games", 1)
    alternate = _bool(data.get("alternate", True), "alternate")
    openings_file, openings = _openings(data.get("openings"), board_size)
    if openings:
        check_pairs(games, "games")
        if not alternate or handicap:
            raise ConfigError("openings: pairs swap colours, so they need alternate: true and no handicap")
    return MatchConfig(
        name=name, board_size=board_size,
        games=games,
        player=player,
        opponent=_engine(data["opponent"], "opponent"),
        variants=_variants(data.get("variants"), player),
        komi=_number(data.get("komi", 7.5), "komi"),
        alternate=alternate,
        handicap=handicap,
        max_moves=_int(data.get("max_moves", 0), "max_moves", 0),
        seed=_int(data.get("seed", 1), "seed", 0),
        jobs=_int(data.get("jobs", 1), "jobs", 1),
        fault_result=fault_result,
        replay_void=_int(data.get("replay_void", 0), "replay_void", 0),
        disputes=disputes,
        referee=None if referee is None else _engine(referee, "referee"),
        time=_time(data.get("time")),
        sprt=parse_sprt(data.get("sprt")),
        openings_file=openings_file, openings=openings, programs=used,
        source=source, raw=raw)


def _with_programs(data: dict, paths: dict[str, str]) -> tuple[dict, dict[str, str]]:
    """The mapping with the program placeholders in its engines' strings replaced, and the programs used."""
    used: dict[str, str] = {}

    def walk(value: Any, where: str) -> Any:
        if isinstance(value, str):
            for name in external.PLACEHOLDER_RE.findall(value):
                if name not in paths and name not in GAME_PLACEHOLDERS:
                    known = ", ".join(f"{{{n}}}" for n in (*GAME_PLACEHOLDERS, *paths))
                    raise ConfigError(f"{where}: unknown placeholder {{{name}}} (known: {known})")
            used.update((name, paths[name]) for name in external.used(value))
            return external.resolve(value, paths)
        if isinstance(value, list):
            return [walk(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: walk(v, f"{where}.{k}") for k, v in value.items()}
        return value

    resolved = {k: walk(v, k) if k in ENGINE_ROLES else v for k, v in data.items()}
    return resolved, used


def check_pairs(games: int, where: str) -> None:
    """With openings every opening is played twice: an odd number of games leaves a pair half played."""
    if games % 2:
        raise ConfigError(f"{where}: must be even with openings (two games per opening), got {games}")


def parse_sprt(value: Any) -> SprtConfig | None:
    """The `sprt:` mapping (bench.sprt.SprtConfig); null or absent: no test."""
    if value is None:
        return None
    try:
        return SprtConfig.from_mapping(value)
    except (TypeError, ValueError) as e:
        raise ConfigError(str(e)) from None


def _openings(value: Any, board_size: int) -> tuple[str | None, tuple[tuple[str, ...], ...]]:
    """The `openings:` suite file, read and every move checked on the board (bench.openings)."""
    if value is None:
        return None, ()
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"openings: expected the path of a suite file, got {value!r}")
    from bench.openings import OpeningError, load_openings     # the engine's modules: only when used
    try:
        return value, tuple(o.moves for o in load_openings(value, board_size))
    except OpeningError as e:
        raise ConfigError(f"openings: {e}") from None


def _variants(items: Any, player: EngineSpec) -> tuple[Variant, ...]:
    if items is None:
        return (Variant(name="main", player=player, playouts=_playouts_in(player.command)),)
    if not isinstance(items, list) or not items:
        raise ConfigError("variants: expected a non-empty list of mappings")
    seen = set()
    variants = []
    for i, item in enumerate(items):
        where = f"variants[{i}]"
        if not isinstance(item, dict):
            raise ConfigError(f"{where}: expected a mapping with a name")
        _check_keys(item, VARIANT_KEYS, where)
        if "name" not in item:
            raise ConfigError(f"{where}.name: required key missing")
        name = _name(item["name"], f"{where}.name")
        if name in seen:
            raise ConfigError(f"{where}.name: duplicate variant name {name!r}")
        seen.add(name)
        command = _text(item["command"], f"{where}.command") if "command" in item else player.command
        if "args" in item:
            args = item["args"]
            if isinstance(args, list):
                args = shlex.join(_text(a, f"{where}.args") for a in args)
            command = f"{command} {_text(args, f'{where}.args')}"
        _check_command(command, f"{where}.command")
        spec = EngineSpec(
            command=command,
            label=_text(item["label"], f"{where}.label") if "label" in item else player.label,
            setup=_setup(item["setup"], f"{where}.setup") if "setup" in item else player.setup,
            timeout=_positive(item["timeout"], f"{where}.timeout") if "timeout" in item else player.timeout)
        playouts = item.get("playouts")
        playouts = _int(playouts, f"{where}.playouts", 1) if playouts is not None else _playouts_in(command)
        variants.append(Variant(name=name, player=spec, playouts=playouts))
    return tuple(variants)


TIME_KEYS = {"absolute": ("main",), "byoyomi": ("main", "period", "periods"),
             "canadian": ("main", "period", "stones")}


def _time(value: Any) -> TimeSettings | None:
    """The `time:` mapping: `system` and the keys that system takes, every one required, in whole seconds."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError("time: expected a mapping with a system (absolute, byoyomi, canadian)")
    system = value.get("system")
    if system not in SYSTEMS:
        raise ConfigError(f"time.system: expected one of {', '.join(SYSTEMS)}, got {system!r}")
    keys = TIME_KEYS[system]
    _check_keys(value, {"system", *keys}, f"time ({system})")
    for key in keys:
        if key not in value:
            raise ConfigError(f"time.{key}: required key missing for {system} time")
    # GTP's time_settings and time_left take whole seconds (GnuGo refuses anything else).
    main = _int(value["main"], "time.main", 1 if system == "absolute" else 0)
    if system == "absolute":
        return TimeSettings(system, main)
    period = _int(value["period"], "time.period", 1)
    count_key = keys[2]
    return TimeSettings(system, main, period, **{count_key: _int(value[count_key], f"time.{count_key}", 1)})


def _engine(value: Any, where: str) -> EngineSpec:
    if isinstance(value, str):
        value = {"command": value}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a command line or a mapping with a command")
    _check_keys(value, ENGINE_KEYS, where)
    if "command" not in value:
        raise ConfigError(f"{where}.command: required key missing")
    command = _text(value["command"], f"{where}.command")
    _check_command(command, f"{where}.command")
    return EngineSpec(
        command=command,
        label=_text(value.get("label", ""), f"{where}.label"),
        setup=_setup(value.get("setup", []), f"{where}.setup"),
        timeout=_positive(value.get("timeout", 60.0), f"{where}.timeout"))


def _check_keys(mapping: dict, known: set[str], where: str) -> None:
    for key in mapping:
        if key not in known:
            place = f" in {where}" if where else ""
            raise ConfigError(f"unknown key {key!r}{place} (expected one of: {', '.join(sorted(known))})")


def _check_command(command: str, where: str) -> None:
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ConfigError(f"{where}: cannot split {command!r}: {e}") from None
    if not argv:
        raise ConfigError(f"{where}: empty command")


def _setup(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list of GTP commands")
    lines = tuple(_text(v, f"{where}[{i}]") for i, v in enumerate(value))
    for i, line in enumerate(lines):
        if not line.strip() or "\n" in line:
            raise ConfigError(f"{where}[{i}]: expected one non-empty GTP command line")
    return lines


def _playouts_in(command: str) -> int | None:
    found = PLAYOUTS_RE.findall(command)
    return int(found[-1]) if found else None


def _name(value: Any, where: str) -> str:
    if not isinstance(value, (str, int)) or isinstance(value, bool) or not NAME_RE.match(str(value)):
        raise ConfigError(f"{where}: expected letters, digits and . _ + - only, got {value!r}")
    return str(value)


def _text(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ConfigError(f"{where}: expected text, got {value!r}")
    return str(value)


def _int(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise ConfigError(f"{where}: must be {bounds}, got {value}")
    return value


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _positive(value: Any, where: str) -> float:
    number = _number(value, where)
    if number <= 0:
        raise ConfigError(f"{where}: expected a positive number of seconds, got {value!r}")
    return number


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: expected true or false, got {value!r}")
    return value
