import subprocess
from pathlib import Path

import pytest

from bench.records import RESULTS, git_commit, results_folder
from bench.rules import archive_folder


def test_a_record_folder_is_results_bench_slug():
    assert results_folder("match", "baseline-9x9") == RESULTS / "match" / "baseline-9x9"
    assert str(archive_folder("../data/kgs6d_even.tar.xz")).endswith("bench/results/rules/kgs6d-even")


@pytest.mark.parametrize("bench, slug", [("match", ""), ("match", "../x"), ("a/b", "x"), ("speed", ".hidden")])
def test_a_slug_that_would_leave_its_folder_is_refused(bench, slug):
    with pytest.raises(ValueError):
        results_folder(bench, slug)


def test_the_commit_is_read_from_git():
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parent).stdout.strip()
    commit = git_commit()
    assert head.startswith(commit.removesuffix("+changes")) and len(commit.removesuffix("+changes")) == 12
