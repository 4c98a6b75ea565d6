"""The game record: moves, undo, positional superko, handicap and SGF."""
import pytest
from sgfmill import sgf

from engine.board import BLACK, EMPTY, PASS, RESIGN, WHITE, Board, IllegalMove
from engine.game import Game, fixed_handicap_coords, max_fixed_handicap
from tests.positions import KO

COLUMNS = "ABCDEFGHJKLMNOPQRST"


def vertex(board: Board, text: str) -> int:
    """GTP vertex ("D4") to a point, for tables copied from the GTP spec."""
    return board.point(int(text[1:]) - 1, COLUMNS.index(text[0]))


def state(board: Board) -> tuple:
    """Everything that makes a position: stones, hash, ko, side to move, captures, last move."""
    return (board.stones().tobytes(), board.hash, board.ko_point, board.to_play, board.captures,
            board.last_move, board.move_number)


def game_at(text: str, to_play: int = BLACK, komi: float = 7.5) -> Game:
    game = Game()
    game.set_position(Board.from_ascii(text, komi=komi, to_play=to_play))
    return game


def test_play_records_moves_and_alternates():
    game = Game(9, komi=6.5)
    game.play(BLACK, vertex(game.board, "E5"))
    game.play(WHITE, PASS)
    assert game.moves == [(BLACK, vertex(game.board, "E5")), (WHITE, PASS)]
    assert game.board.to_play == BLACK
    assert game.board.color_at(vertex(game.board, "E5")) == BLACK
    assert not game.is_over()
    game.play(BLACK, PASS)
    assert game.is_over()


def test_illegal_move_changes_nothing():
    game = Game(9)
    p = vertex(game.board, "C3")
    game.play(BLACK, p)
    before = (state(game.board), list(game.moves), game.history_hashes())
    with pytest.raises(IllegalMove):
        game.play(WHITE, p)
    with pytest.raises(IllegalMove):
        game.play(WHITE, RESIGN)
    with pytest.raises(ValueError):
        game.play(3, vertex(game.board, "D4"))
    assert (state(game.board), list(game.moves), game.history_hashes()) == before


def test_undo_restores_exact_position_with_ko():
    game = game_at(KO, to_play=BLACK)
    b = game.board
    take = vertex(b, "C3")
    states = [state(b)]
    game.play(BLACK, take)
    assert b.captures == (1, 0) and b.ko_point == vertex(b, "B3")
    states.append(state(game.board))
    retake = game.board.ko_point
    with pytest.raises(IllegalMove, match="ko"):
        game.play(WHITE, retake)
    game.play(WHITE, vertex(b, "E1"))  # a ko threat elsewhere ...
    states.append(state(game.board))
    game.play(BLACK, vertex(b, "E2"))  # ... answered
    states.append(state(game.board))
    game.play(WHITE, retake)           # now White may take back
    assert game.board.captures == (1, 1)
    for expected in reversed(states):
        game.undo()
        assert state(game.board) == expected
    assert game.moves == []
    with pytest.raises(ValueError, match="cannot undo"):
        game.undo()


def test_undo_restores_ko_ban():
    game = game_at(KO, to_play=BLACK)
    game.play(BLACK, vertex(game.board, "C3"))
    retake = game.board.ko_point
    game.play(WHITE, vertex(game.board, "E1"))
    game.undo()
    assert game.board.ko_point == retake
    assert not game.board.is_legal(retake, WHITE)


def test_superko_refuses_our_repetition_only():
    # Black takes the ko, both pass (which lifts the simple-ko ban), and White's retake would
    # recreate the starting position: simple ko allows it, positional superko does not.
    game = game_at(KO, to_play=BLACK)
    start_hash = game.board.hash
    game.play(BLACK, vertex(game.board, "C3"))
    retake = game.board.ko_point
    game.play(WHITE, PASS)
    game.play(BLACK, PASS)
    assert game.board.is_legal(retake, WHITE)
    assert game.board.hash_after(retake, WHITE) == start_hash
    assert start_hash in game.history_hashes()
    assert game.is_superko(WHITE, retake)
    before = state(game.board)
    with pytest.raises(IllegalMove, match="superko"):
        game.play(WHITE, retake, superko=True)
    assert state(game.board) == before
    game.play(WHITE, retake)                    # the opponent's move: simple ko only
    assert game.board.hash == start_hash


def test_history_hashes_are_the_earlier_positions():
    game = Game(5)
    hashes = [game.board.hash]
    for color, v in ((BLACK, "C3"), (WHITE, "B2"), (BLACK, "D4")):
        game.play(color, vertex(game.board, v))
        hashes.append(game.board.hash)
    assert game.history_hashes() == hashes[:-1]
    game.play(WHITE, PASS)             # a pass keeps the position: it is not an "earlier" one
    assert game.history_hashes() == hashes[:-1]


GTP_FIXED = {   # GTP v2 section 4.1.1 (GnuGo 3.8 gives the same points)
    9: {2: "C3 G7", 3: "C3 G7 C7", 4: "C3 G7 C7 G3", 5: "C3 G7 C7 G3 E5",
        6: "C3 G7 C7 G3 C5 G5", 7: "C3 G7 C7 G3 C5 G5 E5", 8: "C3 G7 C7 G3 C5 G5 E3 E7",
        9: "C3 G7 C7 G3 C5 G5 E3 E7 E5"},
    13: {2: "D4 K10", 3: "D4 K10 D10", 4: "D4 K10 D10 K4", 5: "D4 K10 D10 K4 G7",
         6: "D4 K10 D10 K4 D7 K7", 7: "D4 K10 D10 K4 D7 K7 G7", 8: "D4 K10 D10 K4 D7 K7 G4 G10",
         9: "D4 K10 D10 K4 D7 K7 G4 G10 G7"},
    19: {2: "D4 Q16", 3: "D4 Q16 D16", 4: "D4 Q16 D16 Q4", 5: "D4 Q16 D16 Q4 K10",
         6: "D4 Q16 D16 Q4 D10 Q10", 7: "D4 Q16 D16 Q4 D10 Q10 K10",
         8: "D4 Q16 D16 Q4 D10 Q10 K4 K16", 9: "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"},
    7: {2: "C3 E5", 3: "C3 E5 C5", 4: "C3 E5 C5 E3"},
    8: {2: "C3 F6", 3: "C3 F6 C6", 4: "C3 F6 C6 F3"},
}


@pytest.mark.parametrize("size", sorted(GTP_FIXED))
def test_fixed_handicap_matches_gtp_spec(size):
    for n, text in GTP_FIXED[size].items():
        game = Game(size, komi=0.5)
        points = game.fixed_handicap(n)
        expected = [vertex(game.board, v) for v in text.split()]
        assert sorted(points) == sorted(expected)
        assert sorted(game.handicap) == sorted(expected)
        assert sorted(p for p in game.board.points() if game.board.color_at(p) == BLACK) == sorted(expected)
        assert game.board.to_play == WHITE and game.moves == []


def test_fixed_handicap_limits():
    sizes = (5, 6, 7, 8, 9, 10, 12, 13, 19, 25)
    assert [max_fixed_handicap(n) for n in sizes] == [0, 0, 4, 4, 9, 4, 4, 9, 9, 9]
    assert fixed_handicap_coords(9, 25)[-1] == (12, 12)
    for size, n in ((19, 1), (19, 10), (9, 0), (10, 5), (8, 5), (7, 5), (6, 2), (2, 2)):
        game = Game(size)
        with pytest.raises(ValueError, match="invalid number of stones"):
            game.fixed_handicap(n)
        assert game.board.stones().sum() == 0 and game.board.to_play == BLACK


def test_white_counts_a_point_per_handicap_stone_beyond_the_komi():
    game = Game(19, 0.5)
    game.fixed_handicap(4)
    assert game.komi == 0.5 and game.board.komi == 4.5            # Chinese rules, as GnuGo counts
    game.play(WHITE, game.board.point(2, 2))
    game.undo()
    assert game.board.komi == 4.5
    game.komi = 7.5
    assert game.board.komi == 11.5
    game.bonus_rule = "n-1"                                        # AGA
    assert game.board.komi == 10.5
    record = game.to_sgf()
    assert b"KM[7.5]" in record and b"HA[4]" in record
    reloaded = Game()
    reloaded.load_sgf(record)
    assert reloaded.komi == 7.5 and reloaded.board.komi == 11.5    # the reader's rule, "n"
    with pytest.raises(ValueError, match="handicap bonus"):
        game.bonus_rule = "n+1"
    assert game.bonus_rule == "n-1"
    game.clear()
    assert game.board.komi == 7.5


def test_handicap_needs_an_empty_board():
    game = Game(9)
    game.fixed_handicap(2)
    with pytest.raises(ValueError, match="board not empty"):
        game.fixed_handicap(2)
    game = Game(9)
    game.play(BLACK, PASS)
    for call in (lambda: game.fixed_handicap(2), lambda: game.free_handicap(2),
                 lambda: game.set_free_handicap([vertex(game.board, "C3"), vertex(game.board, "G7")])):
        with pytest.raises(ValueError, match="board not empty"):
            call()


def test_free_handicap_prefers_fixed_points_then_spreads():
    game = Game(19, komi=0.5)
    assert sorted(game.free_handicap(4)) == sorted(vertex(game.board, v) for v in GTP_FIXED[19][4].split())
    game = Game(19, komi=0.5)
    points = game.free_handicap(13)
    assert len(set(points)) == 13
    assert set(vertex(game.board, v) for v in GTP_FIXED[19][9].split()) <= set(points)
    for p in points:                     # nothing on the first two lines
        r, c = game.board.coords(p)
        assert min(r, c, 18 - r, 18 - c) >= 2
    assert game.board.to_play == WHITE
    game = Game(5)                       # no fixed layout below 7x7
    points = game.free_handicap(3)
    assert len(set(points)) == 3 and game.board.point(2, 2) in points
    game = Game(9)
    assert len(set(game.free_handicap(80))) == 80
    for n in (1, 81):
        with pytest.raises(ValueError, match="invalid number of stones"):
            Game(9).free_handicap(n)


def test_set_free_handicap_validates_the_whole_list():
    game = Game(9)
    a, b, c = (vertex(game.board, v) for v in ("C3", "G7", "E5"))
    bad = {
        "at least 2": [a],
        "repeated": [a, b, a],
        "points on the board": [a, PASS],
        "points on the board ": [a, 0],
        "at most 80": [game.board.point(r, col) for r in range(9) for col in range(9)],
    }
    for message, points in bad.items():
        with pytest.raises(ValueError, match=message.strip()):
            game.set_free_handicap(points)
        assert game.board.stones().sum() == 0 and game.handicap == []
    game.set_free_handicap([a, b, c])
    assert sorted(game.handicap) == sorted([a, b, c])
    assert all(game.board.color_at(p) == BLACK for p in (a, b, c))
    assert game.board.to_play == WHITE


def test_size_komi_and_clear():
    game = Game(9, komi=6.5)
    assert game.size == 9 and game.komi == 6.5 and game.board.komi == 6.5
    game.komi = 0.5
    assert game.board.komi == 0.5
    game.play(BLACK, vertex(game.board, "E5"))
    game.undo()
    assert game.board.komi == 0.5
    game.fixed_handicap(2)
    game.clear()
    assert game.board.stones().sum() == 0 and game.handicap == [] and game.moves == []
    assert game.size == 9 and game.komi == 0.5 and game.board.to_play == BLACK
    for bad in (1, 26, 0):
        with pytest.raises(ValueError):
            game.set_size(bad)
    assert game.size == 9
    game.set_size(13)
    assert game.board.size == 13


def play_line(game: Game, text: str) -> None:
    for i, v in enumerate(text.split()):
        color = (WHITE, BLACK)[i % 2] if game.handicap else (BLACK, WHITE)[i % 2]
        game.play(color, PASS if v == "pass" else vertex(game.board, v))


def test_sgf_round_trip():
    game = Game(9, komi=0.5)
    game.fixed_handicap(2)
    play_line(game, "A9 A8 E5 B9 pass D5 E6")      # Black B9 captures A9; White passes once
    assert game.board.captures == (1, 0)
    data = game.to_sgf(black_name="Tesuji", white_name="GnuGo", result="B+R")
    root = sgf.Sgf_game.from_bytes(data).get_root()
    assert root.get("SZ") == 9 and root.get("KM") == 0.5 and root.get("HA") == 2
    assert root.get("PB") == "Tesuji" and root.get("PW") == "GnuGo" and root.get("RE") == "B+R"
    loaded = Game(19)
    loaded.load_sgf(data)
    assert loaded.size == 9 and loaded.komi == 0.5
    assert sorted(loaded.handicap) == sorted(game.handicap)
    assert loaded.moves == game.moves
    assert state(loaded.board) == state(game.board)
    assert loaded.history_hashes() == game.history_hashes()
    loaded.undo()
    game.undo()
    assert state(loaded.board) == state(game.board)


def test_load_sgf_stops_before_move_number():
    game = Game(9)
    play_line(game, "E5 C3 G7 C7")
    data = game.to_sgf()
    loaded = Game()
    loaded.load_sgf(data, move_number=3)       # as GTP loadsgf: the position before move 3
    assert loaded.moves == game.moves[:2]
    assert loaded.board.to_play == BLACK
    loaded.load_sgf(data, move_number=1)
    assert loaded.moves == [] and loaded.board.stones().sum() == 0
    with pytest.raises(ValueError):
        loaded.load_sgf(data, move_number=0)


def test_load_sgf_setup_in_a_later_node():
    data = b"(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];AB[aa][ba]AW[ii]AE[cc]PL[w];W[gg])"
    game = Game()
    game.load_sgf(data)
    b = game.board
    assert game.komi == 7.0
    assert b.color_at(b.point(8, 0)) == BLACK and b.color_at(b.point(8, 1)) == BLACK   # aa, ba (top row)
    assert b.color_at(b.point(0, 8)) == WHITE                                          # ii
    assert b.color_at(b.point(6, 2)) == EMPTY                                          # cc removed
    assert b.color_at(b.point(4, 4)) == BLACK and b.color_at(b.point(2, 6)) == WHITE   # ee, gg
    assert b.to_play == BLACK
    # The setup node comes after move 2: before move 2 it is not applied, before move 3 it is.
    game.load_sgf(data, move_number=2)
    assert game.board.color_at(b.point(8, 0)) == EMPTY
    game.load_sgf(data, move_number=3)
    assert game.board.color_at(b.point(8, 0)) == BLACK and game.board.color_at(b.point(6, 2)) == EMPTY
    assert game.board.to_play == WHITE


def test_load_sgf_handicap_game_gives_white_the_move():
    game = Game()
    game.load_sgf(b"(;GM[1]FF[4]SZ[9]HA[2]KM[0.5]AB[cg][gc])")
    assert game.board.to_play == WHITE
    assert sorted(game.handicap) == sorted([game.board.point(2, 2), game.board.point(6, 6)])


def test_load_sgf_errors_are_clear_and_change_nothing(tmp_path):
    game = Game(9)
    game.play(BLACK, vertex(game.board, "E5"))
    before = (state(game.board), list(game.moves))
    cases = {
        b"not an sgf file": "bad SGF",
        b"(;GM[1]FF[4]SZ[30])": "bad SGF",
        b"(;GM[1]FF[4]SZ[9]KM[abc])": "bad SGF",
        b"(;GM[1]FF[4]SZ[9];B[ee];W[ee])": "illegal move 2",
    }
    for data, message in cases.items():
        with pytest.raises(ValueError, match=message):
            game.load_sgf(data)
        assert (state(game.board), list(game.moves)) == before
    with pytest.raises(ValueError, match="cannot read"):
        game.load_sgf(str(tmp_path / "missing.sgf"))
    path = tmp_path / "game.sgf"
    path.write_bytes(b"(;GM[1]FF[4]SZ[7]KM[5.5];B[dd])")
    game.load_sgf(path)
    assert game.size == 7 and game.komi == 5.5 and len(game.moves) == 1
