"""bench.openings: the suite loader's checks, mirror-image keys, and the 9x9 self-play source."""
import re

import numpy as np
import pytest

from bench import openings
from bench.openings import OpeningError, canonical, load_openings, play_moves


def write(tmp_path, text, name="suite.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_load_reads_openings_and_skips_comments(tmp_path):
    path = write(tmp_path, "# a suite\n# size 9\nE5 C3\n# between\nc7 g3 E3 e7\n")
    suite = load_openings(path)
    assert [o.moves for o in suite] == [("E5", "C3"), ("c7", "g3", "E3", "e7")]
    assert [(o.index, o.line) for o in suite] == [(0, 3), (1, 5)]
    assert str(suite[0]) == "E5 C3"


@pytest.mark.parametrize("line, message", [
    ("E5 E5", "move 2 (E5) is illegal"),
    ("E5 I4", "'I4' is not a vertex of the 9x9 board"),
    ("E5 K4", "'K4' is not a vertex"),
    ("E5 E10", "'E10' is not a vertex"),
    ("E5 pass", "'pass' is not a vertex"),
    ("   ", "empty line"),
])
def test_load_names_the_line_of_a_bad_opening(tmp_path, line, message):
    path = write(tmp_path, f"# size 9\nE5 C3\n{line}\n")
    with pytest.raises(OpeningError, match=f"suite.txt:3: .*{re.escape(message)}"):
        load_openings(path)


def test_load_refuses_suicide_and_a_ko_retaken_at_once(tmp_path):
    # Black A2 B1; White B2 ... then White A1 is suicide
    with pytest.raises(OpeningError, match=":2: move 4 \\(A1\\) is illegal"):
        load_openings(write(tmp_path, "# size 9\nA2 B2 B1 A1\n"))
    # a ko: White D5 in atari, Black takes it at E5, White retaking at D5 at once is refused
    ko = "D4 E4 C5 F5 D6 E6 A1 D5 E5 D5"
    with pytest.raises(OpeningError, match="move 10 \\(D5\\) is illegal"):
        load_openings(write(tmp_path, f"# size 9\n{ko}\n"))
    assert load_openings(write(tmp_path, "# size 9\n" + " ".join(ko.split()[:-1]) + "\n"))


def test_load_needs_a_size_and_openings(tmp_path):
    with pytest.raises(OpeningError, match="no '# size N' line"):
        load_openings(write(tmp_path, "E5 C3\n"))
    assert len(load_openings(write(tmp_path, "E5 C3\n"), size=9)) == 1
    with pytest.raises(OpeningError, match="no openings"):
        load_openings(write(tmp_path, "# size 19\n"))
    with pytest.raises(OpeningError, match="cannot read"):
        load_openings(tmp_path / "missing.txt")
    with pytest.raises(OpeningError, match="size N' expects a number"):
        load_openings(write(tmp_path, "# size nine\nE5\n"))


def test_canonical_is_the_same_for_mirror_images():
    a = play_moves(["C3", "G7", "C7"], 9).board
    b = play_moves(["G3", "C7", "G7"], 9).board      # reflected left-right
    c = play_moves(["C3", "G7", "G3"], 9).board      # reflected on the diagonal
    d = play_moves(["C3", "G7", "D3"], 9).board      # another position
    assert canonical(a) == canonical(b) == canonical(c) != canonical(d)


class FlatPrior:
    """Every legal point alike: the edge rule and the top-5 draw are what shape the moves."""

    def evaluate(self, board, color):
        size = board.size
        out = np.zeros(size * size + 1, dtype=np.float32)
        for i in range(size * size):
            out[i] = 1.0 if board.is_legal(board.point(i // size, i % size), color) else 0.0
        return out / out.sum()


def test_self_play_openings_stay_off_the_edge_and_are_legal():
    source = openings.self_play_openings(FlatPrior(), 9, seed=3)
    for _ in range(20):
        _, moves = next(source)
        assert 4 <= len(moves) <= 8
        play_moves(moves, 9)
        assert all(m[0] not in "AJ" and m[1:] not in ("1", "9") for m in moves)


def test_build_keeps_distinct_openings_in_the_window():
    kept, judged = openings.build(9, 3, None, 100, (0.0, 1.0), seed=1)
    assert len(kept) == 3 and judged == 3
    assert len({canonical(play_moves(m, 9).board) for m, _ in kept}) == 3
    assert all(0 <= rate <= 1 for _, rate in kept)
