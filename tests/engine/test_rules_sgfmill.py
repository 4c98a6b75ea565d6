"""engine.board against sgfmill on real games: stones and ko after every move, setup stones, predictions.

The archives are read in place through the `archive` fixture (tests/conftest.py: the data setting).
"""
from __future__ import annotations

import tarfile

from bench.rules import replay, run
from engine.board import BLACK, Board

KGS = "kgs6d_even.tar.xz"
GNUGO = "gnugo_regression.tar.xz"


def test_kgs_games_match_sgfmill_after_every_move(archive):
    result = run(str(archive(KGS)), limit=300)
    assert result.mismatches == []
    assert result.skipped == {}
    assert result.games == 300 and result.moves > 300 * 100


def test_kgs_games_keep_every_invariant(archive):
    with tarfile.open(archive(KGS)) as tar:
        members = [m for m in tar if m.isfile()][:20]
        for m in members:
            result = replay(m.name, tar.extractfile(m).read(), check_every=25)
            assert result.mismatches == [] and result.games == 1


def test_setup_positions_of_gnugo_regressions_match_sgfmill(archive):
    """Handicap-like setup stones, also after the root node, on boards of many sizes."""
    n_setup = 0
    sizes = set()
    with tarfile.open(archive(GNUGO)) as tar:
        for m in tar:
            if not (m.isfile() and m.name.endswith(".sgf")):
                continue
            data = tar.extractfile(m).read()
            if b"AB[" not in data:
                continue
            result = replay(m.name, data, check_every=40)
            assert result.mismatches == []
            n_setup += result.games
            sizes.add(data.split(b"SZ[", 1)[-1][:2])
            if n_setup >= 300:
                break
    assert n_setup >= 300 and len(sizes) > 1


def test_setup_after_the_root_and_handicap():
    sgf = b"(;GM[1]FF[4]SZ[9]HA[2]AB[gc][cg];W[ee];B[ef];AW[dd]AE[cg];W[fe];B[de])"
    result = replay("inline", sgf, check_every=1)
    assert result.mismatches == [] and result.games == 1 and result.moves == 4


def test_a_move_sgfmill_allows_but_the_rules_forbid_is_reported():
    # White plays into the corner A3 of a 3x3 board surrounded by black: suicide, which sgfmill performs
    result = replay("suicide", b"(;GM[1]FF[4]SZ[3]AB[ba][ab];W[aa])")
    assert len(result.mismatches) == 1 and "suicide" in result.mismatches[0]


def test_unreadable_records_are_skipped_with_a_reason():
    assert "unreadable" in replay("broken", b"(;SZ[9];B[ee]").skipped["broken"]
    assert "size" in replay("big", b"(;SZ[31];B[aa])").skipped["big"]


def test_ascii_and_sgfmill_agree_on_orientation():
    # sgfmill's (row, col) has row 0 at the bottom, like our points
    from sgfmill import boards
    ref = boards.Board(5)
    ref.play(0, 1, "b")
    b = Board(5)
    b.play(b.point(0, 1), BLACK)
    assert b.stones()[0, 1] == BLACK and ref.get(0, 1) == "b"
    assert str(b).splitlines()[-2].startswith(" 1 . X")
