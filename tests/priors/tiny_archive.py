"""A tiny 9x9 archive of random legal games, as a module-scoped fixture, and a training config that reads it."""
import io
import random
import tarfile

import pytest

LETTERS = "abcdefghi"


def random_game(seed, n_moves=40):
    """A legal 9x9 game record: random moves replayed on a Board so that none is illegal."""
    from engine.board import BLACK, Board
    rng = random.Random(seed)
    board = Board(9)
    nodes = []
    color = BLACK
    for _ in range(n_moves):
        legal = [i for i, ok in enumerate(board.legal_points(color)) if ok]
        if not legal:
            break
        i = rng.choice(legal)
        board.play(board.point(i // 9, i % 9), color)
        nodes.append(f";{'BW'[color - 1]}[{LETTERS[i % 9]}{LETTERS[8 - i // 9]}]")
        color = 3 - color
    return ("(;GM[1]SZ[9]KM[7]" + "".join(nodes) + ")").encode()


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """A folder holding tiny.tar.xz: 30 random games, written once per test module."""
    path = tmp_path_factory.mktemp("data")
    with tarfile.open(path / "tiny.tar.xz", "w:xz") as tar:
        for k in range(30):
            data = random_game(k)
            info = tarfile.TarInfo(f"g{k}.sgf")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def write_config(tmp_path, data_dir, model="mm", **extra):
    """train.yaml in tmp_path: a run of `model` (MM: a few iterations) on data_dir's archive, plus `extra`
    top-level keys."""
    text = f"""
model: {model}
data:
  data_dir: {data_dir}
  archives: [tiny.tar.xz]
  fractions: [0.6, 0.2, 0.2]
  max_games: 30
  sample: 0.5
  size: 9
patterns:
  min_count: 2
mm:
  n_iterations: 5
validation:
  max_games: 10
  sample: 1.0
output: {tmp_path / 'mm.npz'}
"""
    path = tmp_path / "train.yaml"
    path.write_text(text + "".join(f"{k}: {v}\n" for k, v in extra.items()))
    return path
