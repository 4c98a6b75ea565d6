"""Rules of engine.board on hand-drawn positions, and its incremental state against a slow reference."""
from __future__ import annotations

import copy
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import BLACK, EDGE, EMPTY, MAX_SIZE, PASS, RESIGN, WHITE, Board, IllegalMove
from tests.boards import assert_position, board_from_ascii, play_moves, vertex
from tests.positions import KO


# --- captures ---

def test_single_capture_in_the_middle():
    b = board_from_ascii("""
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
    """)
    assert b.play(vertex(b, "D3")) == 1
    assert_position(b, """
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
    """, to_play=WHITE, ko=None, captures=(1, 0))
    assert b.last_move == vertex(b, "D3") and b.move_number == 1


def test_one_move_captures_three_groups():
    b = board_from_ascii("""
        X O X . .
        O . O X .
        X O X . .
        . . . . .
        . . . . .
    """)
    assert b.play(vertex(b, "B4"), BLACK) == 3
    assert_position(b, """
        X . X . .
        . X . X .
        X O X . .
        . . . . .
        . . . . .
    """, ko=None, captures=(3, 0))
    assert b.liberties(vertex(b, "B3")) == 1


def test_capture_on_the_edge_and_in_the_corner():
    b = board_from_ascii("""
        X O O . .
        . X X . .
        . . . . .
        . . . . .
        O X . . .
    """)
    assert b.play(vertex(b, "D5"), BLACK) == 2
    assert b.play(PASS, WHITE) == 0
    assert b.play(vertex(b, "A2"), BLACK) == 1
    assert_position(b, """
        X . . X .
        . X X . .
        . . . . .
        X . . . .
        . X . . .
    """, captures=(3, 0))


def test_capture_instead_of_suicide_is_legal():
    b = board_from_ascii("""
        . O X . .
        O O X . .
        X X X . .
        . . . . .
        . . . . .
    """)
    assert b.is_legal(vertex(b, "A5"), BLACK)
    assert b.play(vertex(b, "A5"), BLACK) == 3
    assert_position(b, """
        X . X . .
        . . X . .
        X X X . .
        . . . . .
        . . . . .
    """, captures=(3, 0), ko=None)


# --- suicide ---

@pytest.mark.parametrize("move", ["B2", "A1"])
def test_single_stone_suicide_is_illegal(move):
    b = board_from_ascii("""
        . X .
        X . X
        . X .
    """, to_play=WHITE)
    before = (b.stones().copy(), b.hash)
    assert not b.is_legal(vertex(b, move), WHITE)
    with pytest.raises(IllegalMove) as e:
        b.play(vertex(b, move), WHITE)
    assert e.value.reason == "suicide"
    assert (b.stones() == before[0]).all() and b.hash == before[1] and b.to_play == WHITE
    b.check()


def test_multi_stone_suicide_is_illegal():
    b = board_from_ascii("""
        . O X . .
        O O X . .
        X X X . .
        . . . . .
        . . . . .
    """, to_play=WHITE)
    assert not b.is_legal(vertex(b, "A5"))
    assert b.libs_after(vertex(b, "A5"), WHITE) == 0
    with pytest.raises(IllegalMove, match="suicide"):
        b.play(vertex(b, "A5"))
    assert b.move_number == 0
    b.check()


@pytest.mark.parametrize("point,reason", [(0, "off board"), (10_000, "off board"), (RESIGN, "resign")])
def test_bad_points_are_refused(point, reason):
    b = Board(5)
    with pytest.raises(IllegalMove, match=reason):
        b.play(point)
    assert not b.is_legal(point)
    b.play(b.point(0, 0))
    with pytest.raises(IllegalMove, match="occupied"):
        b.play(b.point(0, 0))


# --- ko ---

def test_ko_retake_is_illegal_at_once_and_legal_after_a_move_elsewhere():
    b = board_from_ascii(KO)
    assert b.play(vertex(b, "C3")) == 1
    assert_position(b, """
        . . . . .
        . X O . .
        X . X O .
        . X O . .
        . . . . .
    """, to_play=WHITE, ko="B3", captures=(1, 0))
    assert not b.is_legal(vertex(b, "B3"))
    assert not b.legal_points()[b.points().index(vertex(b, "B3"))]
    with pytest.raises(IllegalMove, match="ko"):
        b.play(vertex(b, "B3"))
    b.play(vertex(b, "E5"))           # a threat elsewhere
    assert b.ko_point == 0
    b.play(vertex(b, "E1"))           # ignored
    assert b.play(vertex(b, "B3")) == 1
    assert_position(b, """
        . . . . O
        . X O . .
        X O . O .
        . X O . .
        . . . . X
    """, ko="C3", captures=(1, 1), to_play=BLACK)


def test_ko_binds_the_captured_colour_even_if_to_play_is_changed():
    b = board_from_ascii(KO)
    b.play(vertex(b, "C3"))
    b.to_play = BLACK
    assert not b.is_legal(vertex(b, "B3"), WHITE)
    assert b.is_legal(vertex(b, "B3"), BLACK)           # Black may fill its own ko
    assert b.self_atari_size(vertex(b, "B3"), BLACK) == 0


def test_pass_clears_ko():
    b = board_from_ascii(KO)
    b.play(vertex(b, "C3"))
    b.play(PASS)
    assert b.ko_point == 0 and b.last_move == PASS and b.to_play == BLACK
    b.play(PASS)
    assert b.is_legal(vertex(b, "B3"), WHITE)


def test_snapback_is_not_ko():
    b = board_from_ascii("""
        . . . .
        X X X .
        O O X .
        . . X .
    """)
    assert b.self_atari_size(vertex(b, "A1"), BLACK) == 1   # the throw-in
    play_moves(b, "A1 B1")
    assert b.captures == (0, 1) and b.ko_point == 0
    assert b.play(vertex(b, "A1")) == 3
    assert_position(b, """
        . . . .
        X X X .
        . . X .
        X . X .
    """, captures=(3, 1), ko=None)


# --- liberties and groups ---

def test_liberties_of_a_long_group_down_to_capture():
    b = Board(9)
    b.setup(black=[b.point(4, c) for c in range(9)])
    assert b.liberties(b.point(4, 0)) == 18
    fills = [b.point(r, c) for c in range(9) for r in (3, 5)]
    for i, p in enumerate(fills[:-1]):
        b.play(p, WHITE)
        b.check()
        assert b.liberties(b.point(4, 4)) == 17 - i
        assert b.libs_after(b.point(8, 8), BLACK) == 2   # unrelated corner stone
    assert b.play(fills[-1], WHITE) == 9
    assert b.captures == (0, 9)
    b.check()


def test_liberty_list_refills_on_a_winding_group():
    b = board_from_ascii("""
        . . . . . . .
        . X X X X X .
        . . . . . X .
        . X X X X X .
        . X . . . . .
        . X X X X X .
        . . . . . . .
    """)
    g = vertex(b, "B6")
    want = b.liberties(g)
    assert want > 10
    rng = random.Random(3)
    libs = [p for p in b.points() if b.color_at(p) == EMPTY and any(
        b.color_at(p + d) == BLACK for d in (-1, 1, -9, 9))]
    rng.shuffle(libs)
    for p in libs:
        if b.is_legal(p, WHITE):
            b.play(p, WHITE)
            b.check()
            if b.color_at(g) == BLACK:
                assert b.liberties(g) == len({q for s in b.group_stones(g) for q in (s - 1, s + 1, s - 9, s + 9)
                                              if b.color_at(q) == EMPTY})


def test_one_stone_merges_four_groups():
    b = board_from_ascii("""
        . . . . .
        . . X . .
        . X . X .
        . . X . .
        . . . . .
    """)
    c3 = vertex(b, "C3")
    assert b.libs_after(c3, BLACK) == 8
    b.play(c3, BLACK)
    assert sorted(b.group_stones(c3)) == sorted(vertex(b, v) for v in ("C3", "C4", "B3", "D3", "C2"))
    assert b.liberties(vertex(b, "B3")) == 8
    assert b.group_stones(vertex(b, "A1")) == []
    b.check()


# --- eyes ---

def test_real_and_false_eyes():
    b = board_from_ascii("""
        X X X . . . .
        X . X O X O .
        X X X X . X .
        . . O X X . .
        . . . . . . .
        X . . . . . .
        . X . . . . .
    """)
    assert b.is_eye(vertex(b, "B6"), BLACK) and not b.is_eye(vertex(b, "B6"), WHITE)
    assert not b.is_eye(vertex(b, "E5"), BLACK)     # eye-like, but two white diagonals: false
    assert not b.is_eye(vertex(b, "F4"), BLACK)     # not even eye-like (G4 is empty)
    assert b.is_eye(vertex(b, "A1"), BLACK)         # corner: the edge counts once, no white diagonal
    legal = b.legal_points(BLACK, exclude_eyes=True)
    pts = b.points()
    assert not legal[pts.index(vertex(b, "B6"))] and legal[pts.index(vertex(b, "E5"))]
    assert b.legal_points(BLACK)[pts.index(vertex(b, "B6"))]


def test_edge_eye_turns_false_with_one_white_diagonal():
    b = board_from_ascii("""
        X . X . .
        . X . . .
        . . . . .
        . . . . .
        . . . . .
    """)
    assert b.is_eye(vertex(b, "B5"), BLACK)
    b.setup(white=[vertex(b, "A4")])
    assert not b.is_eye(vertex(b, "B5"), BLACK)


# --- queries without playing ---

def test_self_atari_size_counts_the_whole_group():
    b = board_from_ascii("""
        . . . . .
        . . . . .
        O O O . .
        X X . O .
        O . X O .
    """)
    assert b.libs_after(vertex(b, "C2"), BLACK) == 1      # A2 B2 C2 C1 keep only B1
    assert b.self_atari_size(vertex(b, "C2"), BLACK) == 4
    assert b.libs_after(vertex(b, "B1"), BLACK) == 2      # captures A1, and C2 is still free
    assert b.self_atari_size(vertex(b, "B1"), BLACK) == 0
    assert b.self_atari_size(vertex(b, "E5"), BLACK) == 0
    assert b.self_atari_size(vertex(b, "B1"), WHITE) == 0     # suicide is not counted as self-atari


def test_hash_is_positional():
    a = play_moves(Board(7), "C3 D4 E5 pass F6")
    b = play_moves(Board(7), "E5 D4 F6 pass C3", first=BLACK)
    assert a.hash == b.hash
    assert a.hash != Board(7).hash
    c = Board(7)
    c.setup(black=[vertex(c, v) for v in ("C3", "E5", "F6")], white=[vertex(c, v) for v in ("D4",)])
    assert c.hash == a.hash


def test_hash_after_a_capture_equals_the_set_up_position():
    b = board_from_ascii(KO)
    assert b.libs_after(vertex(b, "C3"), BLACK) == 1      # the ko capture leaves the stone in atari
    assert b.self_atari_size(vertex(b, "C3"), BLACK) == 1
    h = b.hash_after(vertex(b, "C3"))
    b.play(vertex(b, "C3"))
    assert b.hash == h
    assert b.hash == board_from_ascii("""
        . . . . .
        . X O . .
        X . X O .
        . X O . .
        . . . . .
    """).hash
    with pytest.raises(IllegalMove):
        b.hash_after(vertex(b, "B3"))


def test_pat3_codes():
    b = Board(5)
    a1 = b.point(0, 0)
    # reading order from the top left; EDGE is 3
    assert b.pat3(a1) == (3 << 0) | (3 << 6) | (3 << 10) | (3 << 12) | (3 << 14)
    b.play(b.point(1, 1), BLACK)
    b.play(b.point(0, 1), WHITE)
    assert b.pat3(a1) == (3 << 0) | (BLACK << 4) | (3 << 6) | (WHITE << 8) | (3 << 10) | (3 << 12) | (3 << 14)
    c3 = b.point(2, 2)
    assert b.pat3(c3) == BLACK << 10
    b.check()


def test_repetition_is_seen_through_the_ring():
    b = board_from_ascii(KO)
    assert not b.is_repetition()
    b.play(vertex(b, "C3"))
    b.play(PASS)
    assert not b.is_repetition()          # a pass repeats nothing
    b.play(PASS)
    b.play(vertex(b, "B3"))               # retaking recreates the set-up position
    assert b.is_repetition()
    b.play(vertex(b, "E5"))
    assert not b.is_repetition()


# --- scoring ---

def test_area_score_and_owner_map():
    b = board_from_ascii("""
        . X O .
        . X O .
        X X O O
        . X O .
    """)
    assert b.score() == 0
    b.komi = 7.5
    assert b.score() == -7.5
    assert b.playout_score() == -7.5     # A4/A3 and D4/D3 are not eye-like, A1 and D1 are
    assert b.owner_map().tolist() == [[1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]]


def test_dame_is_neutral():
    b = board_from_ascii("""
        X . O
        X . O
        X . O
    """, komi=0.5)
    assert b.score() == -0.5
    assert b.owner_map()[:, 1].tolist() == [0, 0, 0]


def test_territory_counts_for_the_only_colour_it_reaches():
    b = board_from_ascii("""
        . . X . .
        . . X . .
        X X X . .
        . . . . .
        . . . . .
    """)
    assert b.score() == 25
    b.setup(white=[vertex(b, "E1")])
    assert b.score() == 4 + 5 - 1   # the big region now touches both colours


# --- sizes, copies, Python API ---

def test_size_two():
    b = Board(2)
    play_moves(b, "A1 B2 B1")
    assert b.play(vertex(b, "A2"), WHITE) == 2
    assert_position(b, """
        O O
        . .
    """, captures=(0, 2))
    assert b.score() == -7.5 - 4


def test_size_twenty_five():
    b = Board(25)
    assert b.size == MAX_SIZE and len(b.points()) == 625
    for v in ("A1", "Z25", "A25", "Z1", "M13"):
        b.play(vertex(b, v), BLACK)
    assert b.coords(vertex(b, "Z25")) == (24, 24)
    assert "Z" in str(b) and str(b).splitlines()[1].startswith("25 X")
    b.check()
    assert b.score() == 625 - 7.5


@pytest.mark.parametrize("size", [0, 1, 26, 2.5, "9"])
def test_bad_sizes(size):
    with pytest.raises((ValueError, TypeError)):
        Board(size)


def test_python_api_properties():
    b = Board(9, komi=6.5)
    assert (b.size, b.komi, b.to_play, b.ko_point, b.last_move, b.move_number, b.captures) == (9, 6.5, BLACK, 0, 0, 0, (0, 0))
    b.to_play = WHITE
    b.play(b.point(4, 4))
    assert b.color_at(b.point(4, 4)) == WHITE and b.to_play == BLACK
    b.play(b.point(2, 2), WHITE)          # out of turn is allowed
    assert b.to_play == BLACK and b.move_number == 2
    b.play(PASS)
    assert b.last_move == PASS and b.to_play == WHITE
    assert sorted(b.owner_map().ravel().tolist()) == [2] * 81
    b.setup(black=[b.point(0, 0)], empty=[b.point(4, 4)])
    assert b.color_at(b.point(4, 4)) == EMPTY and b.color_at(b.point(0, 0)) == BLACK
    b.check()
    with pytest.raises(ValueError):
        b.setup(black=[0])
    with pytest.raises(TypeError):
        b.play("D4")
    with pytest.raises(ValueError):
        b.play(b.point(1, 1), 3)


def test_coordinates_and_constants():
    b = Board(9)
    assert (EMPTY, BLACK, WHITE, EDGE, PASS, RESIGN) == (0, 1, 2, 3, -1, -2)
    assert b.point(0, 0) == 12 and b.point(8, 8) == 10 * 11 - 2
    assert all(b.coords(p) == (i // 9, i % 9) for i, p in enumerate(b.points()))
    for bad in [(9, 0), (-1, 0)]:
        with pytest.raises(ValueError):
            b.point(*bad)
    with pytest.raises(ValueError):
        b.coords(0)
    with pytest.raises(ValueError):
        b.to_play = EMPTY
    assert b.color_at(0) == EDGE


def test_from_ascii_errors():
    with pytest.raises(ValueError, match="square"):
        Board.from_ascii("..\n...")
    with pytest.raises(ValueError, match="symbol"):
        Board.from_ascii("X?\n..")


def test_copy_is_independent_and_pickles():
    b = play_moves(Board(9), "E5 C3 D4")
    for c in (b.copy(), copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert c.hash == b.hash and (c.stones() == b.stones()).all() and c.to_play == b.to_play
        c.play(vertex(c, "G7"))
        c.check()
        assert c.hash != b.hash
    assert b.color_at(vertex(b, "G7")) == EMPTY


def test_str_diagram():
    b = board_from_ascii("""
        . O .
        . X .
        . . .
    """)
    assert str(b).splitlines() == ["   A B C", " 3 . O . 3", " 2 . X . 2", " 1 . . . 1", "   A B C"]


def test_check_notices_corruption():
    b = play_moves(Board(5), "C3 D3")
    b.setup()     # rebuild is consistent
    b.check()
    rebuild_from, (size, komi, raw) = b.__reduce__()[:2]
    state = bytearray(raw)
    at = 13 + vertex(b, "A1")     # color[] follows size, stride, komi (4 bytes each) and to_play (1)
    assert state[at] == EMPTY and state[at + vertex(b, "C3") - vertex(b, "A1")] == BLACK
    state[at] = BLACK             # a stone with no group, counts or hash
    broken = rebuild_from(size, komi, bytes(state))
    with pytest.raises(AssertionError):
        broken.check()


# --- a slow reference for property tests ---

class Reference:
    """Plain flood-fill rules on a dict, independent of the incremental board."""

    def __init__(self, board: Board):
        self.n = board.size
        self.pts = board.points()
        self.stride = self.n + 2
        self.color = {p: board.color_at(p) for p in self.pts}
        self.ko = 0

    def nbrs(self, p):
        return [q for q in (p - 1, p + 1, p - self.stride, p + self.stride) if q in self.color]

    def group(self, color, p):
        stones, libs, todo = {p}, set(), [p]
        while todo:
            s = todo.pop()
            for q in self.nbrs(s):
                if color[q] == EMPTY:
                    libs.add(q)
                elif color[q] == color[p] and q not in stones:
                    stones.add(q)
                    todo.append(q)
        return stones, libs

    def after(self, p, c):
        """(colors, captured points, own stones, own liberties) after c plays p, or None if occupied."""
        if self.color[p] != EMPTY:
            return None
        color = dict(self.color)
        color[p] = c
        dead = set()
        for q in self.nbrs(p):
            if color[q] == 3 - c:
                stones, libs = self.group(color, q)
                if not libs:
                    dead |= stones
        for s in dead:
            color[s] = EMPTY
        stones, libs = self.group(color, p)
        return color, dead, stones, libs

    def legal(self, p, c, to_play):
        r = self.after(p, c)
        return r is not None and bool(r[3]) and not (p == self.ko and c == to_play)

    def play(self, p, c):
        color, dead, stones, libs = self.after(p, c)
        self.color = color
        self.ko = next(iter(dead)) if len(dead) == 1 and len(stones) == 1 and len(libs) == 1 else 0


def compare_queries(b: Board, ref: Reference, c: int) -> None:
    legal = b.legal_points(c)
    for i, p in enumerate(b.points()):
        want = ref.legal(p, c, b.to_play)
        assert legal[i] == want == b.is_legal(p, c), f"legality of {b.coords(p)} for {c}\n{b}"
        r = ref.after(p, c)
        if r is None:
            continue
        _, dead, stones, libs = r
        assert b.libs_after(p, c) == len(libs), f"libs_after {b.coords(p)} for {c}\n{b}"
        assert b.libs_after(p, c, 2) == min(2, len(libs))
        atari = len(stones) if len(libs) == 1 else 0
        assert b.self_atari_size(p, c) == atari, f"self_atari_size {b.coords(p)} for {c}\n{b}"
        if want:
            after = b.copy()
            after.play(p, c)
            assert b.hash_after(p, c) == after.hash
            assert after.captures[c - 1] - b.captures[c - 1] == len(dead)


def random_game(size: int, seed: int, n_moves: int, pass_rate: float, queries_every: int = 0,
                check_every: int = 1) -> Board:
    """Random legal play (moves drawn from the reference's legal points), compared with the reference."""
    rng = random.Random(seed)
    b = Board(size)
    ref = Reference(b)
    for i in range(n_moves):
        c = b.to_play
        if queries_every and i % queries_every == 0:
            compare_queries(b, ref, c)
        legal = [p for p in b.points() if ref.legal(p, c, c)]
        mask = b.legal_points()
        assert [p for p, ok in zip(b.points(), mask) if ok] == legal == [p for p in b.points() if b.is_legal(p)]
        if not legal or rng.random() < pass_rate:
            b.play(PASS)
            ref.ko = 0
        else:
            p = rng.choice(legal)
            n_dead = len(ref.after(p, c)[1])
            assert b.play(p) == n_dead
            ref.play(p, c)
        if i % check_every == 0:
            b.check()
        assert b.ko_point == ref.ko, f"ko {b.ko_point} vs {ref.ko}\n{b}"
        assert all(b.color_at(p) == ref.color[p] for p in ref.pts), f"stones differ from reference\n{b}"
    b.check()
    return b


@settings(max_examples=25, deadline=None)
@given(size=st.integers(5, 9), seed=st.integers(0, 2**32 - 1), pass_rate=st.sampled_from([0.0, 0.05, 0.3]))
def test_random_play_keeps_every_invariant(size, seed, pass_rate):
    random_game(size, seed, n_moves=size * size * 2, pass_rate=pass_rate, queries_every=17)


@pytest.mark.parametrize("size,seed", [(5, 1), (7, 2), (9, 3)])
def test_queries_match_playing_on_a_copy(size, seed):
    random_game(size, seed, n_moves=size * size * 2, pass_rate=0.02, queries_every=5)


def test_long_random_game_on_19x19():
    b = random_game(19, 7, n_moves=400, pass_rate=0.0, check_every=20)
    assert b.move_number == 400
