"""Local reading of enclosed blocks at the end of the game: can the block be captured?

The playouts behind the count misjudge shapes whose killing move is one the policy refuses or never
finds: the vital point of a nakade (a self-atari of several stones), a throw-in that makes an eye
false, a bent four; and they leave a seki or a capturing race to chance. A block whose every
neighbouring empty region is small (at most `MAX_REGION` points) is read here instead, exactly, by a
minimax over the points of those regions (and of the regions of the opposing blocks next to it, so that a
capturing race is read on both sides' liberties), plus the stones that a capture there may remove.

The local game: the attacker moves on those points and may not pass, except to leave a ko it may not
retake (it has no threat); the defender may pass. The attacker wins when the block is captured; the
defender wins when the attacker has no move left, when the block gains a liberty outside the local
points (it has connected out or the race is won), or when both sides pass. A position that repeats
on the line read, or a reading past `MAX_NODES`, is unknown. A block is **dead** if the attacker
captures it with the defender moving first, **alive** if the attacker cannot with itself moving first;
a seki is alive (neither side can approach), a ko with no threats is read as played out. Anything else
(an open block, a critical one, unknown) is left to the playouts.
"""
from __future__ import annotations

from engine.board import BLACK, EMPTY, PASS, WHITE, Board

MAX_EMPTY = 20          # empty points a reading may play on at most; a block with more around it is not read
ANCHORED_LIBS = 4       # a block with more liberties than this (or in open space) is not captured in a reading
MAX_NODES = 3_000       # positions read per question; past it the answer is unknown
KILL, LIVE, UNKNOWN = 1, 0, -1


class _Budget(Exception):
    pass


def neighbour_table(board: Board) -> dict[int, list[int]]:
    """The on-board 4-neighbours of every point."""
    n = board.size
    table = {}
    for r in range(n):
        for c in range(n):
            table[board.point(r, c)] = [board.point(r2, c2) for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                                        if 0 <= r2 < n and 0 <= c2 < n]
    return table


def adjacent(board: Board, nbrs: dict[int, list[int]], points, color: int) -> set[int]:
    """The points of `color` next to any of `points` (EMPTY: their liberties)."""
    return {q for p in points for q in nbrs[p] if board.color_at(q) == color}


class Reader:
    """Reads the blocks of one position; `nbrs` is its neighbour table, shared by every question."""

    def __init__(self, board: Board, max_nodes: int = MAX_NODES) -> None:
        self.board = board
        self.max_nodes = max_nodes
        self.nbrs = neighbour_table(board)
        self.open: dict[int, bool] = {}

    def _region(self, start: int) -> set[int]:
        board, seen, stack = self.board, {start}, [start]
        while stack:
            for q in self.nbrs[stack.pop()]:
                if q not in seen and board.color_at(q) == EMPTY:
                    seen.add(q)
                    stack.append(q)
        return seen

    def is_open(self, point: int) -> bool:
        """Whether the empty point lies in a region of more than MAX_EMPTY points (open space)."""
        if point not in self.open:
            region = self._region(point)
            big = len(region) > MAX_EMPTY
            self.open.update(dict.fromkeys(region, big))
        return self.open[point]

    def _anchored(self, block: int, libs: set[int], goal_libs: int) -> bool:
        """Whether a block is taken as safe by a reading: it touches open space, has two one-point
        eyes, or more than ANCHORED_LIBS liberties and two more than the block read (`goal_libs`):
        a race it wins whoever starts."""
        colour = self.board.color_at(block)
        return (len(libs) > max(ANCHORED_LIBS, goal_libs + 1) or any(self.is_open(q) for q in libs)
                or sum(self.board.is_eye(q, colour) for q in libs) >= 2)

    def local_points(self, block: int) -> set[int] | None:
        """The points the reading of the block at `block` plays on, closed over the blocks involved:
        the stones of those blocks, and the empty regions next to the block and next to every block that
        touches those regions or an involved block of the other colour, unless that block is anchored
        (`_anchored`). None when the block itself touches open space or more than MAX_EMPTY empty
        points would be read."""
        board = self.board
        empty: set[int] = set()
        done: set[int] = set()
        todo = [block]
        goal_libs = 0
        while todo:
            p = todo.pop()
            if p in done:
                continue
            stones = board.group_stones(p)
            done.update(stones)
            libs = adjacent(board, self.nbrs, stones, EMPTY)
            if p == block:
                goal_libs = len(libs)
            elif self._anchored(p, libs, goal_libs):
                continue
            for lib in libs - empty:
                if self.is_open(lib):
                    return None
                empty |= self._region(lib)
                if len(empty) > MAX_EMPTY:
                    return None
            todo += [q for q in adjacent(board, self.nbrs, empty, BLACK) | adjacent(board, self.nbrs, empty, WHITE)
                     | adjacent(board, self.nbrs, stones, 3 - board.color_at(p)) if q not in done]
        return empty | done

    def read(self, block: int, attacker_first: bool, points: set[int] | None = None) -> int:
        """KILL if the attacker captures the block at `block` in the local game (the module's text)
        with the given side moving first, LIVE if it cannot, UNKNOWN on a repetition or past max_nodes.
        `points`: the block's `local_points` where the caller has them."""
        points = self.local_points(block) if points is None else points
        if points is None:
            return LIVE
        order = sorted(points)
        defender = self.board.color_at(block)
        nbrs = self.nbrs
        start = self.board.copy()
        start.to_play = 3 - defender if attacker_first else defender
        memo: dict[tuple, int] = {}
        path: set[tuple] = set()
        count = [0]

        def search(b: Board, passed: bool) -> int:
            if b.color_at(block) != defender:
                return KILL
            if not passed and (b.hash, b.to_play) in path:
                return KILL if b.to_play != defender else LIVE    # superko: the move just made is illegal
            libs = adjacent(b, nbrs, b.group_stones(block), EMPTY)
            if not libs <= points:      # connected out (to open space, or past what is read): not read here
                return UNKNOWN
            key = (b.hash, b.to_play, b.ko_point, passed)
            value = memo.get(key)
            if value is not None:
                return value
            if (b.hash, b.to_play) in path:
                return UNKNOWN          # a pass that repeats the position
            count[0] += 1
            if count[0] > self.max_nodes:
                raise _Budget
            path.add((b.hash, b.to_play))
            value = best(b, passed, libs)
            path.discard((b.hash, b.to_play))
            if value != UNKNOWN:
                memo[key] = value
            return value

        def relevant(b: Board, libs: set[int]) -> set[int]:
            """The block's eye space (the empty regions next to it), the liberties of the opposing blocks
            next to it that are not anchored and of the defender's blocks next to those: the points of a
            nakade, a capturing race, a connection."""
            stones = b.group_stones(block)
            near: set[int] = set()
            seen: set[int] = set(stones)
            for q in adjacent(b, nbrs, stones, 3 - defender):
                if q in seen:
                    continue
                opposing = b.group_stones(q)
                seen.update(opposing)
                theirs = adjacent(b, nbrs, opposing, EMPTY)
                if len(theirs) > max(ANCHORED_LIBS, len(libs) + 1):
                    continue
                near |= theirs
                for r in adjacent(b, nbrs, opposing, defender) - seen:
                    if r not in seen:
                        friend = b.group_stones(r)
                        seen.update(friend)
                        near |= adjacent(b, nbrs, friend, EMPTY)
            stack = list(libs)
            while stack:                # the empty regions next to the block: its eye space
                for q in nbrs[stack.pop()]:
                    if q not in near and q in points and b.color_at(q) == EMPTY:
                        near.add(q)
                        stack.append(q)
            return near & points

        def best(b: Board, passed: bool, libs: set[int]) -> int:
            mover = b.to_play
            attacking = mover != defender
            win, lose = (KILL, LIVE) if attacking else (LIVE, KILL)
            near = relevant(b, libs)
            moves = [p for p in order if p in libs and b.is_legal(p, mover) and not b.is_eye(p, mover)]
            moves += [p for p in order if p in near and p not in libs and b.is_legal(p, mover)
                      and not b.is_eye(p, mover)]     # filling one's own eye is never the move
            if not attacking or b.ko_point > 0:
                moves.append(PASS)      # the defender may pass; the attacker only to leave a ko
            if not moves:
                return LIVE             # the attacker has nothing left to play
            unknown = False
            for move in moves:
                if move == PASS and passed:
                    value = LIVE        # both sides passed
                else:
                    child = b.copy()
                    child.play(move, mover)
                    value = search(child, move == PASS)
                if value == win:
                    return win
                unknown |= value == UNKNOWN
            return UNKNOWN if unknown else lose

        try:
            return search(start, False)
        except _Budget:
            return UNKNOWN

    def status(self, block: int, dead_now: bool) -> str | None:
        """The block's status if the reading settles it against `dead_now` (the count's present
        judgement): "alive" for a block judged dead that survives the attacker moving first, "dead" for
        one judged alive that is captured with its side moving first; None otherwise (not enclosed)."""
        points = self.local_points(block)
        if points is None:
            return None
        if dead_now:
            return "alive" if self.read(block, True, points) == LIVE else None
        return "dead" if self.read(block, False, points) == KILL else None
