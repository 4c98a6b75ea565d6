"""The game record: setup position, moves, undo, handicap, positional superko and SGF.

A game is a setup position (empty, handicap stones or SGF AB/AW/AE) plus the list of moves played
from it. `undo` replays the moves from the setup position, which restores the exact position,
simple-ko point and captures included. Positional superko is checked here, not in the board: the
engine's own moves use `play(..., superko=True)`; moves received from the opponent are accepted under
simple ko only, since the referee (GnuGo, a server) is the authority on them.

Area scoring gives White a point per handicap stone (Chinese rules, as GnuGo, KGS and Leela Zero
count: without it Black's extra stones would count twice), or one less under AGA rules
(`bonus_rule` "n-1"). The board's komi, which the search, the pass check and
`final_score` count with, is the game's komi plus that bonus; GTP `komi` and SGF KM stay the komi.
"""
from __future__ import annotations

import os
from typing import Iterable, Sequence

import numpy as np
from sgfmill import sgf

from engine.board import BLACK, EMPTY, PASS, RESIGN, WHITE, Board, IllegalMove

MIN_SIZE, MAX_SIZE = 2, 25
HANDICAP_BONUS = ("n", "n-1")   # White's points for n handicap stones: Chinese, AGA

# GTP v2 fixed handicap layout (spec section 4.1.1, as GnuGo places it): each pair is
# (row, col) in units of "low line, middle, high line", added in this order.
_LAYOUT = {
    2: ["00", "22"],
    3: ["00", "22", "20"],
    4: ["00", "22", "20", "02"],
    5: ["00", "22", "20", "02", "11"],
    6: ["00", "22", "20", "02", "10", "12"],
    7: ["00", "22", "20", "02", "10", "12", "11"],
    8: ["00", "22", "20", "02", "10", "12", "01", "21"],
    9: ["00", "22", "20", "02", "10", "12", "01", "21", "11"],
}


def max_fixed_handicap(size: int) -> int:
    """Most stones `fixed_handicap` accepts: 9 on odd boards from 9x9, 4 on 7x7 and even boards, else 0."""
    if size % 2 == 1 and size >= 9:
        return 9
    if size >= 7:
        return 4
    return 0


def fixed_handicap_coords(n: int, size: int) -> list[tuple[int, int]]:
    """(row, col) of the GTP fixed handicap stones; ValueError when the spec defines none."""
    top = max_fixed_handicap(size)
    if top == 0:
        raise ValueError(f"invalid number of stones: no fixed handicap on {size}x{size}")
    if not 2 <= n <= top:
        raise ValueError(f"invalid number of stones: fixed handicap on {size}x{size} is 2 to {top}")
    low = 2 if size < 13 else 3        # the 3-3 points below 13x13, the 4-4 points from 13x13
    line = {"0": low, "1": size // 2, "2": size - 1 - low}
    return [(line[rc[0]], line[rc[1]]) for rc in _LAYOUT[n]]


def handicap_bonus(stones: int, rule: str) -> int:
    """White's points for `stones` handicap stones under `rule` (one of HANDICAP_BONUS)."""
    if rule not in HANDICAP_BONUS:
        raise ValueError(f"handicap bonus must be one of {', '.join(HANDICAP_BONUS)}, got {rule!r}")
    if stones == 0:
        return 0
    return stones if rule == "n" else stones - 1


def _color_name(color: int) -> str:
    return "b" if color == BLACK else "w"


class Game:
    """The position, the moves that led to it and the handicap; the single owner of game state."""

    def __init__(self, size: int = 19, komi: float = 7.5) -> None:
        _check_size(size)
        self._size = size
        self._komi = float(komi)
        self._bonus_rule = "n"
        self.clear()

    # --- state ---
    def clear(self) -> None:
        """Empty board of the current size and komi, no moves, no handicap."""
        self.board: Board = Board(self._size, self._komi)
        self._setup: Board = self.board.copy()      # the position moves are replayed from
        self.moves: list[tuple[int, int]] = []
        self.handicap: list[int] = []
        self.result: str | None = None              # "B+R", "W+3.5" ... when known (SGF RE)
        self._hashes: list[int] = [self.board.hash]  # position after setup, then after each move

    def set_position(self, board: Board) -> None:
        """Start from a copy of `board` (size, komi, stones, side to move) with no moves behind it."""
        self._size, self._komi = board.size, float(board.komi)
        self.clear()
        self.board = board.copy()
        self._reset_setup()

    def set_size(self, size: int) -> None:
        _check_size(size)
        self._size = size
        self.clear()

    @property
    def size(self) -> int:
        return self._size

    @property
    def komi(self) -> float:
        return self._komi

    @komi.setter
    def komi(self, value: float) -> None:
        self._komi = float(value)
        self._apply_komi()

    @property
    def bonus_rule(self) -> str:
        return self._bonus_rule

    @bonus_rule.setter
    def bonus_rule(self, rule: str) -> None:
        handicap_bonus(0, rule)       # a ValueError for an unknown rule, nothing changed
        self._bonus_rule = rule
        self._apply_komi()

    @property
    def scoring_komi(self) -> float:
        """The komi counted: the game's komi plus White's handicap bonus."""
        return self._komi + handicap_bonus(len(self.handicap), self._bonus_rule)

    def _apply_komi(self) -> None:
        self.board.komi = self._setup.komi = self.scoring_komi

    # --- moves ---
    def play(self, color: int, point: int, superko: bool = False) -> None:
        """Play `point` (or PASS) for `color`; IllegalMove (board unchanged) if it is not legal.

        With superko=True a move that recreates an earlier position of this game is refused too.
        """
        if color not in (BLACK, WHITE):
            raise ValueError(f"bad color {color!r}")
        if point == RESIGN:
            raise IllegalMove("resign is not a move")
        if superko and point != PASS and self.board.is_legal(point, color):
            if self.board.hash_after(point, color) in self._hashes:
                raise IllegalMove("superko")
        self.board.play(point, color)
        self.moves.append((color, point))
        self._hashes.append(self.board.hash)
        self.result = None

    def undo(self) -> None:
        """Take back the last move by replaying the others from the setup position."""
        if not self.moves:
            raise ValueError("cannot undo")
        self._replay(self.moves[:-1])

    def _replay(self, moves: Sequence[tuple[int, int]]) -> None:
        board = self._setup.copy()
        hashes = [board.hash]
        for color, point in moves:
            board.play(point, color)
            hashes.append(board.hash)
        self.board, self.moves, self._hashes = board, list(moves), hashes
        self.result = None

    def is_superko(self, color: int, point: int) -> bool:
        """True if `color` playing the legal move `point` would repeat an earlier position."""
        return point != PASS and self.board.hash_after(point, color) in self._hashes

    def history_hashes(self) -> list[int]:
        """Hashes of the earlier positions of this game, oldest first, without repeats.

        The current position's hash is left out: no stone move can recreate it, and a pass (which
        keeps it) is never a superko violation.
        """
        current = self.board.hash
        seen: set[int] = set()
        out = []
        for h in self._hashes:
            if h != current and h not in seen:
                seen.add(h)
                out.append(h)
        return out

    def move_count(self) -> int:
        """How far into the game: the moves played, plus the setup stones other than handicap stones
        (a position loaded without its moves is as far on as its stones say)."""
        setup_stones = int(np.count_nonzero(self._setup.stones() != EMPTY))
        return len(self.moves) + max(0, setup_stones - len(self.handicap))

    def is_over(self) -> bool:
        """Two consecutive passes end the game."""
        return len(self.moves) >= 2 and self.moves[-1][1] == PASS and self.moves[-2][1] == PASS

    # --- handicap ---
    def fixed_handicap(self, n: int) -> list[int]:
        """Place the GTP fixed handicap of n stones; White plays next. Errors as the GTP spec."""
        self._check_empty()
        points = [self.board.point(r, c) for r, c in fixed_handicap_coords(n, self._size)]
        self._place_handicap(points)
        return points

    def free_handicap(self, n: int) -> list[int]:
        """Place n handicap stones where the engine likes them: the fixed points first, then the
        points farthest from the stones already placed and from the edge (star-like points)."""
        self._check_empty()
        total = self._size * self._size
        if not 2 <= n <= total - 1:
            raise ValueError(f"invalid number of stones: free handicap on {self._size}x{self._size} "
                             f"is 2 to {total - 1}")
        n_fixed = min(n, max_fixed_handicap(self._size))
        coords = fixed_handicap_coords(n_fixed, self._size) if n_fixed >= 2 else []
        coords += _spread_points(self._size, coords, n - len(coords))
        points = [self.board.point(r, c) for r, c in coords]
        self._place_handicap(points)
        return points

    def set_free_handicap(self, points: Iterable[int]) -> None:
        """Place handicap stones chosen by the controller, after validating the whole list."""
        self._check_empty()
        points = list(points)
        on_board = set(self.board.points())
        if len(points) < 2:
            raise ValueError("bad vertex list: at least 2 handicap stones")
        if len(points) > len(on_board) - 1:
            raise ValueError(f"bad vertex list: at most {len(on_board) - 1} handicap stones")
        for p in points:
            if p == PASS or p == RESIGN or p not in on_board:
                raise ValueError("bad vertex list: handicap stones must be points on the board")
            if self.board.color_at(p) != EMPTY:
                raise ValueError("bad vertex list: point occupied")
        if len(set(points)) != len(points):
            raise ValueError("bad vertex list: repeated point")
        self._place_handicap(points)

    def _check_empty(self) -> None:
        if self.moves or any(self.board.color_at(p) != EMPTY for p in self.board.points()):
            raise ValueError("board not empty")

    def _place_handicap(self, points: list[int]) -> None:
        self.board.setup(black=points)
        self.board.to_play = WHITE
        self.handicap = list(points)
        self._reset_setup()
        self._apply_komi()

    def _reset_setup(self) -> None:
        """The current position becomes the setup position (no moves behind it)."""
        self._setup = self.board.copy()
        self.moves = []
        self._hashes = [self.board.hash]

    # --- SGF ---
    def to_sgf(self, black_name: str | None = None, white_name: str | None = None,
               result: str | None = None) -> bytes:
        """The game as SGF: SZ, KM, PB/PW if given, HA and the setup stones, the moves, RE if known."""
        game = sgf.Sgf_game(self._size)
        root = game.get_root()
        root.set("KM", self._komi)
        if black_name:
            root.set("PB", black_name)
        if white_name:
            root.set("PW", white_name)
        result = result or self.result
        if result:
            root.set("RE", result)
        if self.handicap:
            root.set("HA", len(self.handicap))
        setup = {BLACK: set(), WHITE: set()}
        for p in self._setup.points():
            c = self._setup.color_at(p)
            if c in setup:
                setup[c].add(self._setup.coords(p))
        if setup[BLACK] or setup[WHITE]:
            root.set_setup_stones(setup[BLACK], setup[WHITE])
        if self._setup.to_play == WHITE and not self.moves:
            root.set("PL", "w")
        for color, point in self.moves:
            node = game.extend_main_sequence()
            node.set_move(_color_name(color), None if point == PASS else self.board.coords(point))
        return game.serialise()

    def load_sgf(self, source: str | os.PathLike | bytes, move_number: int | None = None) -> None:
        """Load a game record: size, komi, setup stones (AB/AW/AE, PL) from any node, and the moves.

        As GTP `loadsgf`, with move_number the position is the one before that move (moves are
        numbered from 1); None plays every move. A bad file is a ValueError and changes nothing.
        """
        if move_number is not None and move_number < 1:
            raise ValueError("move number must be at least 1")
        game = _read_sgf(source)
        try:
            size = game.get_size()
            komi = game.get_komi()
            nodes = game.get_main_sequence()
        except ValueError as e:
            raise ValueError(f"bad SGF: {str(e) or 'malformed property value'}") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"bad SGF: board size {size} not supported")
        new = Game(size, komi)
        new._bonus_rule = self._bonus_rule
        limit = None if move_number is None else move_number - 1
        try:
            handicap = game.get_handicap() or 0
            if handicap >= 2:                       # White moves first after handicap stones
                new.board.to_play = WHITE
                new._reset_setup()
            new._load_nodes(nodes, limit)
            if handicap >= 2:
                root_black, _, _ = nodes[0].get_setup_stones()
                new.handicap = sorted(new._sgf_point(rc) for rc in root_black)
                new._apply_komi()
        except (ValueError, KeyError) as e:
            raise ValueError(f"bad SGF: {str(e) or 'malformed property value'}") from None
        self.__dict__.update(new.__dict__)

    def _load_nodes(self, nodes, limit: int | None) -> None:
        n_moves = 0
        for node in nodes:
            if node.has_setup_stones() or node.has_property("PL"):
                self._apply_setup(node)
            color, move = node.get_move()
            if color is None:
                continue
            if limit is not None and n_moves >= limit:
                break
            point = PASS if move is None else self._sgf_point(move)
            try:
                self.play(BLACK if color == "b" else WHITE, point)
            except IllegalMove as e:
                raise ValueError(f"illegal move {n_moves + 1} ({e})") from None
            n_moves += 1

    def _sgf_point(self, move: tuple[int, int]) -> int:
        row, col = move
        if not (0 <= row < self._size and 0 <= col < self._size):
            raise ValueError(f"point {move} off the board")
        return self.board.point(row, col)

    def _apply_setup(self, node) -> None:
        """AB/AW/AE and PL of one node. Setup after moves folds those moves into a new setup
        position (undo then stops there), since a game record cannot replay through an edit."""
        black, white, empty = node.get_setup_stones()
        to_play = self.board.to_play
        if node.has_property("PL"):
            to_play = BLACK if node.get("PL") == "b" else WHITE
        if black or white or empty:
            pts = [[self._sgf_point(m) for m in sorted(s)] for s in (black, white, empty)]
            self.board.setup(black=pts[0], white=pts[1], empty=pts[2])
        self.board.to_play = to_play
        self._reset_setup()


def _check_size(size: int) -> None:
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"unacceptable size {size!r} (2 to {MAX_SIZE})")


def _read_sgf(source: str | os.PathLike | bytes) -> sgf.Sgf_game:
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ValueError(f"cannot read SGF file {os.fspath(source)!r}: {e.strerror}") from None
    try:
        return sgf.Sgf_game.from_bytes(data)
    except ValueError as e:
        raise ValueError(f"bad SGF: {str(e) or 'malformed property value'}") from None


def _spread_points(size: int, taken: list[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """n more points, each the one farthest from the stones placed so far and from the edge.

    A point on line k (0 = edge) counts as 2(k+1) away from the edge, so the 3-3 and 4-4 lines win
    over the first lines and the spread fills the board like a grid of star points. Ties go to the
    lowest row, then the lowest column.
    """
    rows, cols = np.mgrid[0:size, 0:size]
    room = 2.0 * (np.minimum(np.minimum(rows, cols), np.minimum(size - 1 - rows, size - 1 - cols)) + 1)
    out: list[tuple[int, int]] = []
    for r, c in taken:
        room = np.minimum(room, np.hypot(rows - r, cols - c))
        room[r, c] = -1.0
    for _ in range(n):
        r, c = divmod(int(np.argmax(room)), size)
        out.append((r, c))
        room = np.minimum(room, np.hypot(rows - r, cols - c))
        room[r, c] = -1.0
    return out
