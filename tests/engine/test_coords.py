import pytest

from engine import coords
from engine.coords import COLUMNS, PASS, RESIGN, VertexError, point_to_vertex, vertex_to_point


def test_columns_skip_i_and_reach_25():
    assert "I" not in COLUMNS
    assert len(COLUMNS) == 25 == coords.MAX_SIZE
    assert COLUMNS[:9] == "ABCDEFGHJ"


@pytest.mark.parametrize("size", range(2, 26))
def test_round_trip_every_point(size):
    seen = set()
    for row in range(size):
        for col in range(size):
            pt = (row + 1) * (size + 2) + col + 1
            vertex = point_to_vertex(pt, size)
            assert vertex == f"{COLUMNS[col]}{row + 1}"
            assert vertex_to_point(vertex, size) == pt
            assert vertex_to_point(vertex.lower(), size) == pt
            assert coords.coords(pt, size) == (row, col)
            seen.add(vertex)
    assert len(seen) == size * size
    assert not any(v.startswith("I") for v in seen)


def test_docstring_example():
    assert vertex_to_point("Q16", 19) == 352 == coords.point(15, 15, 19)
    assert vertex_to_point("D4", 19) == 88
    assert point_to_vertex(88, 19) == "D4"
    assert vertex_to_point("J9", 9) == coords.point(8, 8, 9)   # J is the 9th column


@pytest.mark.parametrize("text", ["pass", "PASS", "Pass"])
def test_pass(text):
    assert vertex_to_point(text, 9) == PASS


def test_special_moves_to_text():
    assert point_to_vertex(PASS, 9) == "pass"
    assert point_to_vertex(RESIGN, 9) == "resign"


@pytest.mark.parametrize("text", ["I5", "i5", "A0", "A10", "K1", "A", "5", "", "AA1", "A-1", "A01",
                                  "resign", "A1.0", " A1", "Ä1", "A١"])
def test_bad_vertices_rejected_on_9x9(text):
    with pytest.raises(VertexError):
        vertex_to_point(text, 9)


def test_largest_board_edges():
    assert vertex_to_point("Z25", 25) == coords.point(24, 24, 25)
    with pytest.raises(VertexError):
        vertex_to_point("Z25", 19)
    with pytest.raises(VertexError):
        vertex_to_point("A26", 25)


@pytest.mark.parametrize("pt", [0, 1, 10, 11 * 11 - 1, 11 * 11 + 5])
def test_off_board_points_have_no_vertex(pt):
    with pytest.raises(VertexError):
        point_to_vertex(pt, 9)


def test_special_points_match_the_board_module():
    board = pytest.importorskip("engine.board", reason="engine.board is not built")
    assert (coords.PASS, coords.RESIGN) == (board.PASS, board.RESIGN)
    b = board.Board(13)
    assert vertex_to_point("N13", 13) == b.point(12, 12)
    assert all(vertex_to_point(point_to_vertex(p, 13), 13) == p for p in b.points())
