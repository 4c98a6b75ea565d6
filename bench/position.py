"""The match's own record of the position: legality of each move and area scoring.

Built on sgfmill's board so that the harness shares no code with the engines it judges. Rules:
no suicide, positional superko (a move may not recreate any earlier position of the game), area
scoring after removing the stones the referee calls dead. Moves are sgfmill (row, col) pairs with
row 0 at the bottom, or None for a pass; colours are "b" and "w".
"""
from __future__ import annotations

from typing import Iterable

from sgfmill import boards, common

Point = tuple[int, int]


class Position:
    def __init__(self, size: int):
        self.size = size
        self.board = boards.Board(size)
        self.history: set[str] = {self._key(self.board)}

    def place_handicap(self, points: Iterable[Point]) -> None:
        """Put Black's handicap stones on the empty board."""
        self.board.apply_setup(list(points), [], [])
        self.history = {self._key(self.board)}

    def illegal_reason(self, move: Point | None, colour: str) -> str | None:
        """Why `colour` may not play `move` here ("occupied", "suicide", "ko", "superko"), or None."""
        if move is None:
            return None
        row, col = move
        if self.board.get(row, col) is not None:
            return "occupied"
        trial = self.board.copy()
        trial.play(row, col, colour)
        if trial.get(row, col) is None:
            return "suicide"
        key = self._key(trial)
        if key in self.history:
            return "ko" if self._is_simple_ko(move, colour) else "superko"
        return None

    def play(self, move: Point | None, colour: str) -> None:
        """Play a move already found legal by `illegal_reason`."""
        if move is not None:
            self.board.play(move[0], move[1], colour)
            self.history.add(self._key(self.board))

    def area_score(self, dead: Iterable[Point] = ()) -> int:
        """Black's area minus White's, with the `dead` stones removed first (no komi)."""
        board = self.board.copy()
        dead = [p for p in dead if board.get(*p) is not None]
        if dead:
            board.apply_setup([], [], dead)
        return board.area_score()

    def open_points(self, dead: Iterable[Point] = (), seki: Iterable[Point] = ()) -> int:
        """Empty points of the regions that reach both colours once the `dead` stones are removed,
        leaving out those next to a `seki` stone: what two passes left unplayed (dame, open borders)."""
        board = self.board.copy()
        dead = [p for p in dead if board.get(*p) is not None]
        if dead:
            board.apply_setup([], [], dead)
        beside_seki = {q for p in seki for q in self._neighbours(p)}
        seen: set[Point] = set()
        count = 0
        for row in range(self.size):
            for col in range(self.size):
                if (row, col) in seen or board.get(row, col) is not None:
                    continue
                region, stack, border = {(row, col)}, [(row, col)], set()
                while stack:
                    for q in self._neighbours(stack.pop()):
                        colour = board.get(*q)
                        if colour is None and q not in region:
                            region.add(q)
                            stack.append(q)
                        elif colour is not None:
                            border.add(colour)
                seen |= region
                if len(border) == 2:
                    count += len(region - beside_seki)
        return count

    def _neighbours(self, p: Point) -> list[Point]:
        row, col = p
        return [(r, c) for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                if 0 <= r < self.size and 0 <= c < self.size]

    def stones(self, colour: str) -> list[Point]:
        return [p for c, p in self.board.list_occupied_points() if c == colour]

    def _is_simple_ko(self, move: Point, colour: str) -> bool:
        before = {p for c, p in self.board.list_occupied_points() if c == common.opponent_of(colour)}
        trial = self.board.copy()
        trial.play(move[0], move[1], colour)
        after = {p for c, p in trial.list_occupied_points() if c == common.opponent_of(colour)}
        return len(before - after) == 1

    @staticmethod
    def _key(board: boards.Board) -> str:
        return "".join(c or "." for row in board.board for c in row)


def parse_vertex(vertex: str, size: int) -> Point | None:
    """A GTP vertex as (row, col), None for pass; ValueError if it is not a vertex of this board."""
    return common.move_from_vertex(vertex.strip(), size)


def format_vertex(move: Point | None) -> str:
    return common.format_vertex(move)
