"""Dead stones, seki and the final score of a finished position, from playout ownership.

`ownership` is an (N, N) array indexed [row, col] in [-1, 1], + for Black: the average final owner
of each point over the playouts, as `playout_ownership` gives it.

Ownership for scoring comes from the playout policy alone, never from the tree search: a search
of a decided position spends most of its simulations on lines that end in two passes inside the
tree (the winner's pass wins at once, the loser's moves all lose alike), and those are counted on
the board as it stands, dead stones included. How many such lines there are follows the prior,
the seed and the search size, so a judgement taken from the search changed with them (a finished
9x9 game scored W+17 instead of W+4). Playouts do not pass while a move remains, so dead stones are captured in
them; half of them start with each colour to move, so the side to move does not tip a group.
Known limitation: a local fight the playout policy cannot read (a capturing race it wins half the
time for either side) comes out near 0 and its stones count as alive, where the tree would have
read it (`python -m bench.scorecheck` lists the finished match games where we and GnuGo
disagree).

- A group is **dead** when the mean ownership over its stones is at least `DEAD_THRESHOLD` (0.5)
  for the opponent: the playouts capture it in most games (3 out of 4 or more).
- A group that is not dead is in **seki** when one of its liberties is shared with an opposing
  group that is not dead either, neither colour can play there without putting itself in atari
  (or committing suicide), and the playouts leave that point unresolved (|ownership| below
  `SEKI_THRESHOLD`). This is the mutual-life shape, with or without one eye on each side; a
  semeai that one side wins shows up as a dead group instead.
- Every other group is **alive**.

The final score is the area score (stones plus empty regions reaching one colour only, minus komi)
after the dead stones are removed; points shared by a seki stay neutral.
"""
from __future__ import annotations

import numpy as np

from engine import lifedeath
from engine.board import BLACK, EMPTY, WHITE, Board
from engine.params import PlayoutParams
from engine.playout import mean_ownership

DEAD_THRESHOLD = 0.5
FINAL_DEAD_THRESHOLD = 0.0  # the count at the end of the game: dead when captured in most playouts
READ_DOUBT = 0.9            # ... and a group whose mean ownership is below this either way is read out
SEKI_THRESHOLD = 0.5
SETTLED_THRESHOLD = 0.8     # |ownership| from which a point counts as surely one side's (pessimistic_margin)
STATUSES = ("alive", "dead", "seki")


def play_on(board: Board) -> Board:
    """The same stones, komi and side to move, with no passes (nor ko ban) behind them."""
    fresh = Board(board.size, board.komi)
    black = [p for p in board.points() if board.color_at(p) == BLACK]
    white = [p for p in board.points() if board.color_at(p) == WHITE]
    fresh.setup(black=black, white=white)
    fresh.to_play = board.to_play
    return fresh


def playout_ownership(board: Board, params: PlayoutParams, n_playouts: int, seed: int) -> np.ndarray:
    """Mean final owner of each point over n_playouts of the playout policy from the play-on position,
    the first half with Black to move (RNG seed `seed`) and the rest with White (seed + 1)."""
    start = play_on(board)
    half = n_playouts // 2
    start.to_play = BLACK
    total = mean_ownership(start, params, half, seed) * half
    start.to_play = WHITE
    total += mean_ownership(start, params, n_playouts - half, seed + 1) * (n_playouts - half)
    return total / max(1, n_playouts)


def groups(board: Board) -> list[list[int]]:
    """Every group on the board as its sorted points, ordered by their lowest point."""
    seen: set[int] = set()
    out = []
    for p in board.points():
        if board.color_at(p) != EMPTY and p not in seen:
            stones = sorted(board.group_stones(p))
            seen.update(stones)
            out.append(stones)
    return out


def _check(board: Board, ownership: np.ndarray) -> np.ndarray:
    own = np.asarray(ownership, dtype=np.float64)
    if own.shape != (board.size, board.size):
        raise ValueError(f"ownership shape {own.shape} does not match a {board.size}x{board.size} board")
    return own


def _own(board: Board, own: np.ndarray, p: int) -> float:
    r, c = board.coords(p)
    return float(own[r, c])


def neighbours(board: Board, p: int) -> list[int]:
    """The on-board 4-neighbours of p."""
    r, c = board.coords(p)
    n = board.size
    return [board.point(r2, c2) for r2, c2 in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= r2 < n and 0 <= c2 < n]


def is_dead(board: Board, ownership: np.ndarray, stones: list[int]) -> bool:
    """True if the group's mean ownership is strongly for the opponent (DEAD_THRESHOLD)."""
    return mean_for_owner(board, _check(board, ownership), stones) <= -DEAD_THRESHOLD


def classify(board: Board, ownership: np.ndarray) -> dict[str, list[list[int]]]:
    """Groups by status: {"alive": [...], "dead": [...], "seki": [...]}, each group sorted points."""
    own = _check(board, ownership)
    return _statuses(board, own, [g for g in groups(board) if is_dead(board, own, g)])


def final_classify(board: Board, ownership: np.ndarray) -> dict[str, list[list[int]]]:
    """The statuses of the count at the end of the game (GTP final_status_list and final_score): a
    group is dead when the playouts capture it more often than not (`FINAL_DEAD_THRESHOLD`), and a
    group the playouts are unsure of (mean ownership below `READ_DOUBT` either way) is read out by
    `engine.lifedeath` where it is enclosed: a nakade, a throw-in, a bent four or a capturing race the
    policy plays badly, a seki it breaks. The pass and cleanup decisions keep `classify`."""
    own = _check(board, ownership)
    reader = lifedeath.Reader(board)
    dead = []
    for g in groups(board):
        mean = mean_for_owner(board, own, g)
        dead_now = mean <= -FINAL_DEAD_THRESHOLD
        if abs(mean) < READ_DOUBT:
            read = reader.status(g[0], dead_now)
            if read is not None:
                dead_now = read == "dead"
        if dead_now:
            dead.append(g)
    return _statuses(board, own, dead)


def final_count(board: Board, ownership: np.ndarray) -> float:
    """The area score, black - white - komi, after removing the dead stones of `final_classify`."""
    return _area(board, [p for g in final_classify(board, ownership)["dead"] for p in g])


def mean_for_owner(board: Board, own: np.ndarray, stones: list[int]) -> float:
    """The group's mean ownership, + for its own colour."""
    sign = 1.0 if board.color_at(stones[0]) == BLACK else -1.0
    return sign * sum(_own(board, own, p) for p in stones) / len(stones)


def _statuses(board: Board, own: np.ndarray, dead: list[list[int]]) -> dict[str, list[list[int]]]:
    """Groups by status given the dead ones: seki (`_is_seki`) or alive for the rest."""
    all_groups = groups(board)
    dead_points = {p for g in dead for p in g}
    status: dict[str, list[list[int]]] = {s: [] for s in STATUSES}
    for g in all_groups:
        if g[0] in dead_points:
            status["dead"].append(g)
        elif _is_seki(board, own, g, dead_points):
            status["seki"].append(g)
        else:
            status["alive"].append(g)
    return status


def _is_seki(board: Board, own: np.ndarray, stones: list[int], dead_points: set[int]) -> bool:
    color = board.color_at(stones[0])
    liberties = {q for p in stones for q in neighbours(board, p) if board.color_at(q) == EMPTY}
    for lib in liberties:
        if abs(_own(board, own, lib)) >= SEKI_THRESHOLD:
            continue
        shared = any(board.color_at(q) == 3 - color and q not in dead_points
                     for q in neighbours(board, lib))
        if shared and _is_unplayable(board, lib, color) and _is_unplayable(board, lib, 3 - color):
            return True
    return False


def _is_unplayable(board: Board, point: int, color: int) -> bool:
    return not board.is_legal(point, color) or board.self_atari_size(point, color) > 0


def dead_stones(board: Board, ownership: np.ndarray) -> list[int]:
    """All stones of dead groups, sorted."""
    return sorted(p for g in classify(board, ownership)["dead"] for p in g)


def final_score(board: Board, ownership: np.ndarray) -> float:
    """Area score, black - white - komi, after removing the dead stones (of `classify`)."""
    return _area(board, dead_stones(board, ownership))


def _area(board: Board, dead: list[int]) -> float:
    cleared = board.copy()
    cleared.setup(empty=dead)
    return float(cleared.score())


def pessimistic_margin(board: Board, ownership: np.ndarray, color: int) -> float:
    """By how much `color` wins by area if every point not surely its own goes to the opponent:
    its living stones and the empty points and dead opposing stones it owns in at least
    SETTLED_THRESHOLD of the playouts are its own, everything else (dame, unsettled ground, seki
    points) the opponent's; komi counted. Above 0, passing cannot lose the game (Pachi's safe pass)."""
    own = _check(board, ownership)
    dead = set(dead_stones(board, own))
    sign = 1.0 if color == BLACK else -1.0
    mine = sum(1 for p in board.points()
               if (board.color_at(p) == color and p not in dead) or
               (board.color_at(p) != color and sign * _own(board, own, p) >= SETTLED_THRESHOLD))
    margin = 2 * mine - board.size * board.size
    return margin - board.komi if color == BLACK else margin + board.komi


def format_score(score: float) -> str:
    """GTP score text: "B+3.5", "W+0.5" or "0" (a jigo)."""
    score = round(float(score), 1)
    if score == 0:
        return "0"
    text = f"{abs(score):.1f}".rstrip("0").rstrip(".")
    return ("B+" if score > 0 else "W+") + text
