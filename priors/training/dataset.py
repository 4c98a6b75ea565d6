"""Training positions streamed from expert game archives (`.tar.xz` of SGF files), read in place.

A game's identity is `"<archive>/<member>"`; its split (train / validation / test) is a pure function
of that name, so a game never changes role between runs or machines. Within a game, positions are
sampled with a probability per position from a generator seeded by (seed, game id), and symmetry
augmentation replays the whole game under one of the 8 symmetries of the board. Setup stones (AB, AW,
AE) are applied from any node. A game that cannot be parsed, has the wrong size or holds an illegal
move is skipped and counted in `stats`, never raised: the archives are data, not code.
"""
from __future__ import annotations

import hashlib
import lzma
import random
import tarfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from sgfmill import sgf

from engine.board import BLACK, PASS, WHITE, Board, IllegalMove

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[3] / "shared" / "data"
DEFAULT_ARCHIVES = ("kgs6d_even.tar.xz",)
SPLITS = ("train", "validation", "test")
DEFAULT_FRACTIONS = (0.90, 0.05, 0.05)
AUGMENT = ("none", "random", "all")


class DataError(ValueError):
    """The data location or an archive named by the configuration cannot be used."""


@dataclass
class Position:
    """One training case: the board before the expert move, with `board.to_play == to_play`."""

    board: Board
    to_play: int        # BLACK or WHITE: the colour of the expert move
    move: int           # the expert move: a point, or PASS
    move_number: int    # 1 for the first move of the game record
    game_id: str        # "<archive>/<member>"

    @property
    def move_index(self) -> int:
        """Row-major index of the move in an N*N + 1 array (pass last)."""
        n = self.board.size
        if self.move == PASS:
            return n * n
        row, col = self.board.coords(self.move)
        return row * n + col


@dataclass
class DatasetStats:
    """What a pass over the archives read, used and skipped (reason -> games)."""

    games: int = 0
    positions: int = 0
    skipped: Counter = field(default_factory=Counter)

    def __str__(self) -> str:
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items())) or "none"
        return f"{self.games} games, {self.positions} positions, skipped: {skipped}"


def unit_hash(text: str) -> float:
    """A stable uniform number in [0, 1) from a string (blake2b; the same on every machine)."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0 ** 64


def split_of(game_id: str, fractions: Sequence[float] = DEFAULT_FRACTIONS) -> str:
    """The split a game belongs to: train, validation or test, by the hash of its id."""
    u = unit_hash(game_id)
    edge = 0.0
    for name, fraction in zip(SPLITS, fractions):
        edge += fraction
        if u < edge:
            return name
    return SPLITS[-1]


def transform(row: int, col: int, size: int, symmetry: int) -> tuple[int, int]:
    """The symmetry-th (0..7) symmetry of the square board applied to (row, col); 0 is the identity."""
    if symmetry & 4:
        row, col = col, row
    if symmetry & 1:
        row = size - 1 - row
    if symmetry & 2:
        col = size - 1 - col
    return row, col


class GameError(ValueError):
    """A game record that is skipped; `reason` is the counter key."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def replay(data: bytes, game_id: str = "", size: int | None = 19, symmetry: int = 0,
           sample: float = 1.0, rng: random.Random | None = None) -> list[Position]:
    """Replay one SGF game and return its sampled positions (a board copy before each move).

    Raises GameError (reason "corrupt", "size" or "illegal") if the game cannot be used; then no
    position of it is returned.
    """
    rng = rng or random.Random(0)
    try:
        game = sgf.Sgf_game.from_bytes(data)
        n = game.get_size()
        try:
            komi = float(game.get_komi())
        except ValueError:
            komi = 7.5
        nodes = game.get_main_sequence()
    except (ValueError, KeyError, UnicodeError) as err:
        raise GameError("corrupt", f"{game_id}: cannot parse SGF ({err})") from None
    if size is not None and n != size:
        raise GameError("size", f"{game_id}: board size {n}, wanted {size}")
    if not 2 <= n <= 25:
        raise GameError("size", f"{game_id}: board size {n} not supported")
    board = Board(n, komi)

    def points(coords) -> list[int]:
        return [board.point(*transform(r, c, n, symmetry)) for r, c in coords]

    positions: list[Position] = []
    move_number = 0
    try:
        for node in nodes:
            if node.has_setup_stones():
                black, white, empty = node.get_setup_stones()
                board.setup(points(black), points(white), points(empty))
            if node.has_property("PL"):
                board.to_play = BLACK if node.get("PL") == "b" else WHITE
            colour, move = node.get_move()
            if colour is None:
                continue
            color = BLACK if colour == "b" else WHITE
            point = PASS if move is None else points([move])[0]
            move_number += 1
            if sample >= 1.0 or rng.random() < sample:
                before = board.copy()
                before.to_play = color
                positions.append(Position(before, color, point, move_number, game_id))
            board.play(point, color)
    except IllegalMove as err:
        raise GameError("illegal", f"{game_id}: move {move_number + 1} is illegal ({err})") from None
    except (ValueError, KeyError, IndexError) as err:
        raise GameError("corrupt", f"{game_id}: bad node near move {move_number + 1} ({err})") from None
    return positions


def archive_of(game_id: str) -> str:
    """The archive file name a game id starts with."""
    return game_id.split("/", 1)[0]


def pick(ids: Sequence[str], n: int, seed: int) -> list[str]:
    """A seeded choice of n of `ids` (by a hash of each id, so a larger n keeps the smaller n's games)."""
    return sorted(ids, key=lambda g: unit_hash(f"{seed}:pick:{g}"))[:n]


def ids_digest(ids: Iterable[str]) -> str:
    """A digest of a set of game ids (order does not matter): what a model was trained on."""
    text = "\n".join(sorted(ids))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def scale_mixture(games: Sequence[int], total: int) -> list[int]:
    """Per-archive game counts in the proportions of `games`, summing to `total` (largest remainders)."""
    whole = sum(games)
    if whole <= 0:
        return [0 for _ in games]
    exact = [total * g / whole for g in games]
    counts = [int(x) for x in exact]
    for i in sorted(range(len(games)), key=lambda i: counts[i] - exact[i])[: total - sum(counts)]:
        counts[i] += 1
    return counts


class GameDataset:
    """Positions of the games of one split, streamed from archives in a data directory.

    `sample` is the probability of keeping each position; `augment` is "none", "random" (one
    symmetry per game, drawn from its seeded generator) or "all" (every game replayed under all 8
    symmetries). `max_games` keeps that many games of the split, chosen by a seeded hash of their ids
    (not the first ones: archives are in date order), taking the archives in the order listed: a later
    archive contributes only the games the earlier ones lack to reach `max_games`. `games_per_archive`
    (one count per archive, in place of `max_games`) sets the mixture instead: each archive gives up to
    its count of games of its own split, chosen the same way.
    """

    def __init__(self, data_dir: str | Path | None = None, archives: Sequence[str] = DEFAULT_ARCHIVES,
                 split: str = "train", fractions: Sequence[float] = DEFAULT_FRACTIONS,
                 sample: float = 1.0, augment: str = "none", seed: int = 0,
                 max_games: int | None = None, size: int = 19,
                 games_per_archive: Sequence[int] | None = None):
        if split not in SPLITS:
            raise ValueError(f"split: unknown split {split!r}; known: {', '.join(SPLITS)}")
        if len(fractions) != 3 or min(fractions) < 0 or abs(sum(fractions) - 1.0) > 1e-9:
            raise ValueError(f"fractions: three non-negative numbers summing to 1, got {list(fractions)}")
        if not 0.0 < sample <= 1.0:
            raise ValueError(f"sample: a probability in (0, 1], got {sample}")
        if augment not in AUGMENT:
            raise ValueError(f"augment: one of {', '.join(AUGMENT)}, got {augment!r}")
        if max_games is not None and max_games < 1:
            raise ValueError(f"max_games: a positive number, got {max_games}")
        if games_per_archive is not None:
            if len(games_per_archive) != len(archives) or min(games_per_archive, default=0) < 0:
                raise ValueError(f"games_per_archive: one count (0 or more) per archive, got "
                                 f"{list(games_per_archive)} for {len(archives)} archive(s)")
            if max_games is not None:
                raise ValueError("games_per_archive replaces max_games: give one of them")
        self.data_dir = Path(data_dir) if data_dir is not None else DEFAULT_DATA_DIR
        self.archives = list(archives)
        self.split = split
        self.fractions = tuple(fractions)
        self.sample = sample
        self.augment = augment
        self.seed = seed
        self.max_games = max_games
        self.size = size
        self.games_per_archive = list(games_per_archive) if games_per_archive is not None else None
        self.stats = DatasetStats()
        self.archive_errors: list[str] = []   # archives that broke off part-way, with the error
        self._selected: set[str] | None = None
        self._order: list[str] = []

    def archive_paths(self) -> list[Path]:
        if not self.data_dir.is_dir():
            raise DataError(f"data directory {self.data_dir} does not exist (set data_dir)")
        paths = [self.data_dir / name for name in self.archives]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise DataError(f"archive(s) not found: {', '.join(missing)}")
        return paths

    def _members(self, path: Path, count: bool = True) -> Iterator[tuple[str, tarfile.TarFile, tarfile.TarInfo]]:
        try:
            with tarfile.open(path, "r:xz") as tar:
                for member in tar:
                    if member.isfile() and member.name.lower().endswith(".sgf"):
                        yield f"{path.name}/{member.name}", tar, member
        except (tarfile.TarError, lzma.LZMAError, EOFError, OSError, zlib.error) as err:
            # The rest of a damaged archive is unreadable; the games already read stay valid.
            if count:
                self.stats.skipped["archive_error"] += 1
                self.archive_errors.append(f"{path.name}: {err}")

    def game_ids(self) -> list[str]:
        """Ids of the games of this split (after `max_games`), in archive order."""
        if self._selected is None:
            ids = [gid for path in self.archive_paths() for gid, _, _ in self._members(path, count=False)
                   if split_of(gid, self.fractions) == self.split]
            if self.games_per_archive is not None:
                keep = {g for name, n in zip(self.archives, self.games_per_archive)
                        for g in pick([g for g in ids if archive_of(g) == name], n, self.seed)}
                ids = [g for g in ids if g in keep]
            elif self.max_games is not None and len(ids) > self.max_games:
                keep = set()
                for name in self.archives:
                    keep.update(pick([g for g in ids if archive_of(g) == name],
                                     max(0, self.max_games - len(keep)), self.seed))
                ids = [g for g in ids if g in keep]
            self._selected = set(ids)
            self._order = ids
        return list(self._order)

    def mixture(self) -> dict[str, int]:
        """Selected games per archive, in the order of `archives`."""
        counts = Counter(archive_of(g) for g in self.game_ids())
        return {name: counts[name] for name in self.archives}

    def games(self) -> Iterator[tuple[str, bytes]]:
        """(game id, SGF bytes) of every selected game of the split, in archive order."""
        selected = self._selected if self._selected is not None else set(self.game_ids())
        self.archive_errors = []
        for path in self.archive_paths():
            for gid, tar, member in self._members(path):
                if gid in selected:
                    handle = tar.extractfile(member)
                    if handle is not None:
                        yield gid, handle.read()

    def symmetries(self, game_id: str) -> list[int]:
        if self.augment == "all":
            return list(range(8))
        if self.augment == "random":
            return [int(unit_hash(f"{self.seed}:sym:{game_id}") * 8)]
        return [0]

    def positions_of(self, game_id: str, data: bytes) -> list[Position]:
        """The sampled positions of one game (all symmetries asked for); [] and counted if skipped."""
        out: list[Position] = []
        for symmetry in self.symmetries(game_id):
            rng = random.Random(f"{self.seed}:{symmetry}:{game_id}")
            try:
                out.extend(replay(data, game_id, self.size, symmetry, self.sample, rng))
            except GameError as err:
                self.stats.skipped[err.reason] += 1
                return []
        self.stats.games += 1
        self.stats.positions += len(out)
        return out

    def __iter__(self) -> Iterator[Position]:
        return self.positions()

    def positions(self) -> Iterator[Position]:
        """Stream the sampled positions of every selected game; resets `stats`."""
        self.stats = DatasetStats()
        for game_id, data in self.games():
            yield from self.positions_of(game_id, data)
