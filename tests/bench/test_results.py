"""The generated results page: rendering from records, stale flags from git, and --check."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bench import results
from bench.records import write_json

QUESTIONS = """\
questions:
  - table: strength
    question: 9x9, the default engine, against GnuGo
    figures: match/default-9x9#main
    command: python -m bench.match bench/configs/match/default-9x9.yaml --jobs 2
    headline: true
  - table: strength
    question: 19x19 league
    figures:
      - {figure: "league/l19#fbt", label: fbt}
      - {figure: "league/l19#none", label: no prior}
    command: python -m bench.league bench/configs/league/19x19.yaml
    note: tuned on these seeds
  - table: strength
    question: 19x19, no prior
    figures: match/priors#none
    command: python -m bench.match bench/configs/match/priors-19x19.yaml --variants none
  - table: prediction
    question: fbt top-1
    figures: predict/kgs#fbt/top1
    command: python -m bench.predict priors/models/fbt.npz --name kgs
    depends: [priors/fbt/, priors/models/fbt.npz]
"""
PAGE = ("# Results\n\n<!-- results: strength -->\n<!-- /results -->\n\ntext\n\n"
        "<!-- results: prediction -->\n<!-- /results -->\n")
README = "# Readme\n\n<!-- results: headline -->\n<!-- /results -->\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, encoding="utf-8")


def save_model(path: Path, weights: np.ndarray, date: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, metadata=np.array(json.dumps({"kind": "fbt", "date": date})), w=weights)


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def record(root: Path, name: str, commits: list[str], figures: list[dict], config: dict | None = None,
           dirty: bool = False) -> None:
    folder = root / "bench" / "results" / name
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "run.json", {"bench": name.split("/")[0], "slug": name.split("/")[1],
                                     "config": config or {},
                                     "invocations": [{"commit": c[:12], "dirty": dirty, "command": "x"}
                                                     for c in commits]})
    write_json(folder / "summary.json", {"figures": figures})


def fig(key: str, value: float, text: str | None = None, low: float | None = None,
        high: float | None = None, unit: str = "win rate") -> dict:
    return {"key": key, "label": key, "value": value, "low": low, "high": high, "n": 40, "unit": unit,
            "text": text}


@pytest.fixture
def repo(tmp_path):
    """A tiny project: engine, gtp, docs, a prior and its model, the questions and the pages; the records
    measured at its first commit."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write(root, "engine/search.pyx", "playouts = 1\n")
    write(root, "gtp/cli.py", "cli = 1\n")
    write(root, "priors/fbt/model.py", "fbt = 1\n")
    write(root, "docs/notes.md", "notes\n")
    write(root, "configs/default.yaml", "prior:\n  name: fbt\n  model: priors/models/fbt.npz\n")
    write(root, "configs/none.yaml", "prior:\n  name: none\n")
    save_model(root / "priors/models/fbt.npz", np.arange(4.0), "one")
    first = commit(root, "the engine")
    write(root, "bench/results.yaml", QUESTIONS)
    write(root, "bench/RESULTS.md", PAGE)
    write(root, "README.md", README)
    record(root, "match/default-9x9", [first], [fig("main", 0.958, "189-6-5 of 200, 95.8% [92.0, 97.8]")],
           {"player": {"command": "python -m gtp.cli gtp --set search.n_threads=1"}})
    record(root, "league/l19", [first], [fig("fbt", 519.1, None, 350.7, 687.5, "Elo"),
                                        fig("none", -318.1, None, -503.4, -132.8, "Elo")],
           {"engines": {"none": "python -m gtp.cli gtp --config configs/none.yaml"}})
    record(root, "match/priors", [first], [fig("none", 0.1, "4-36"), fig("fbt", 0.9, "36-4")],
           {"player": {"command": "python -m gtp.cli gtp --set search.seed={seed}"},
            "variants": [{"name": "none", "args": "--config configs/none.yaml"},
                         {"name": "fbt", "args": "--preset fbt"}]})
    record(root, "predict/kgs", [first], [fig("fbt/top1", 0.41291, None, 0.41014, 0.41578, "top-1")])
    commit(root, "the records")
    return root


def generate(root: Path) -> int:
    return results.main([], root=root)


def check(root: Path) -> int:
    return results.main(["--check"], root=root)


def rows(root: Path, page: str = "bench/RESULTS.md") -> dict[str, list[str]]:
    """Each generated row's cells by question."""
    out = {}
    for line in (root / page).read_text().splitlines():
        if line.startswith("| ") and not line.startswith("| question"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            out[cells[0]] = cells
    return out


def test_the_tables_are_rendered_from_the_records(repo):
    assert generate(repo) == 0
    page = (repo / "bench/RESULTS.md").read_text()
    assert page.startswith("# Results\n\n<!-- results: strength -->\n| question |") and "\ntext\n" in page
    first = git(repo, "rev-list", "--max-parents=0", "HEAD")[:7]
    r = rows(repo)
    assert r["9x9, the default engine, against GnuGo"] == [
        "9x9, the default engine, against GnuGo", "189-6-5 of 200, 95.8% [92.0, 97.8]",
        "[match/default-9x9](results/match/default-9x9/)", first,
        "`python -m bench.match bench/configs/match/default-9x9.yaml --jobs 2`", "current"]
    assert r["19x19 league (tuned on these seeds)"][1] == \
        "fbt: 519.1 [350.7, 687.5] Elo; no prior: -318.1 [-503.4, -132.8] Elo"
    assert r["fbt top-1"][1] == "41.3% [41.0, 41.6%]"
    headline = rows(repo, "README.md")
    assert list(headline) == ["9x9, the default engine, against GnuGo"]
    assert headline["9x9, the default engine, against GnuGo"][2] == \
        "[match/default-9x9](bench/results/match/default-9x9/)"


def test_a_record_of_many_invocations_shows_its_first_and_last_commit(repo):
    record(repo, "match/default-9x9", [f"{i:x}" * 12 for i in range(1, 6)], [fig("main", 0.958, "189-6-5")])
    generate(repo)
    assert rows(repo)["9x9, the default engine, against GnuGo"][3] == "1111111 to 5555555 (5 commits)"


@pytest.mark.parametrize("command, depends", [
    ("python -m gtp.cli gtp --set search.n_threads=1", ["priors/fbt/", "priors/models/fbt.npz"]),
    ("python -m gtp --preset none", ["configs/none.yaml"]),
    ("tesuji gtp --config configs/none.yaml --set prior.name=mm --set prior.model=priors/models/mm.npz",
     ["configs/none.yaml", "priors/mm/", "priors/models/mm.npz"]),
])
def test_the_prior_of_an_engine_is_read_from_its_command_line(repo, command, depends):
    assert results.TESUJI_RE.search(command)
    assert results.engine_depends(repo, command) == depends


def test_a_figure_goes_stale_when_the_code_it_depends_on_changes(repo):
    write(repo, "engine/search.pyx", "playouts = 2\n")
    commit(repo, "faster search")
    generate(repo)
    r = rows(repo)
    first = git(repo, "rev-list", "--max-parents=0", "HEAD")[:7]
    assert r["9x9, the default engine, against GnuGo"][-1] == f"**stale**: engine/ changed since {first}"
    assert r["19x19 league (tuned on these seeds)"][-1].startswith("**stale**: engine/")
    assert r["fbt top-1"][-1] == "current"     # declared: the prior and its model only


def test_an_unrelated_change_leaves_the_figures_current(repo):
    write(repo, "docs/notes.md", "more notes\n")
    write(repo, "configs/mm.yaml", "prior:\n  name: mm\n")
    commit(repo, "docs")
    generate(repo)
    assert {r[-1] for r in rows(repo).values()} == {"current"}


def test_the_prior_of_the_default_engine_is_read_from_the_config(repo):
    write(repo, "priors/fbt/model.py", "fbt = 2\n")
    commit(repo, "the fbt model code")
    generate(repo)
    r = rows(repo)
    assert "priors/fbt/ changed" in r["9x9, the default engine, against GnuGo"][-1]
    assert r["fbt top-1"][-1].startswith("**stale**: priors/fbt/ changed")
    # the league's one Tesuji and the match's variant `none` play configs/none.yaml: no prior
    assert r["19x19 league (tuned on these seeds)"][-1] == "current"
    assert r["19x19, no prior"][-1] == "current"


def test_a_model_goes_stale_only_when_its_arrays_change(repo):
    save_model(repo / "priors/models/fbt.npz", np.arange(4.0), "a new header")
    commit(repo, "the model's metadata")
    generate(repo)
    assert rows(repo)["fbt top-1"][-1] == "current"
    save_model(repo / "priors/models/fbt.npz", np.arange(4.0) + 1, "retrained")
    commit(repo, "a new model")
    generate(repo)
    assert rows(repo)["fbt top-1"][-1].startswith("**stale**: priors/models/fbt.npz changed since ")


def test_a_model_measured_before_it_was_committed_is_compared_from_its_commit(repo):
    save_model(repo / "priors/models/fbt.npz", np.arange(4.0) + 1, "shipped after the record")
    shipped = commit(repo, "ship the measured model")
    generate(repo)
    assert rows(repo)["fbt top-1"][-1].startswith("**stale**: priors/models/fbt.npz changed since ")
    table = (repo / "bench/results.yaml").read_text()
    declared = table.replace("priors/models/fbt.npz]", f"priors/models/fbt.npz@{shipped[:7]}]")
    (repo / "bench/results.yaml").write_text(declared)
    generate(repo)
    assert rows(repo)["fbt top-1"][-1] == "current"
    save_model(repo / "priors/models/fbt.npz", np.arange(4.0) + 2, "retrained")
    commit(repo, "another model")
    generate(repo)
    assert rows(repo)["fbt top-1"][-1] == f"**stale**: priors/models/fbt.npz changed since {shipped[:7]}"


def test_a_preset_goes_stale_only_when_its_settings_change(repo):
    write(repo, "configs/none.yaml", "# Tesuji without a prior: plain UCT-RAVE.\nprior:\n  name: none\n")
    commit(repo, "the preset's description")
    generate(repo)
    assert rows(repo)["19x19, no prior"][-1] == "current"
    write(repo, "configs/none.yaml", "prior:\n  name: none\nsearch:\n  playouts: 20000\n")
    commit(repo, "more playouts")
    generate(repo)
    assert rows(repo)["19x19, no prior"][-1].startswith("**stale**: configs/none.yaml changed since ")


def test_uncommitted_changes_and_unknown_commits_are_stale(repo):
    head = git(repo, "rev-parse", "HEAD")
    record(repo, "match/default-9x9", [head], [fig("main", 0.5, "20-20")], dirty=True)
    record(repo, "predict/kgs", ["0123456789ab"], [fig("fbt/top1", 0.4, "40.0%")])
    generate(repo)
    r = rows(repo)
    assert r["9x9, the default engine, against GnuGo"][-1] == "**stale**: measured with uncommitted changes"
    assert r["fbt top-1"][-1] == "**stale**: unknown commit 0123456"


def test_check_passes_on_a_generated_page_and_fails_after_a_hand_edit(repo, capsys):
    generate(repo)
    commit(repo, "the page")
    assert check(repo) == 0
    page = repo / "bench/RESULTS.md"
    text = page.read_text()
    page.write_text(text.replace("95.8% [92.0, 97.8]", "96.8% [92.0, 97.8]"))
    assert check(repo) == 1
    assert "-| 9x9, the default engine" in capsys.readouterr().out
    page.write_text(text)
    assert check(repo) == 0


def test_check_fails_when_a_row_goes_stale_or_a_flag_is_removed(repo, capsys):
    write(repo, "gtp/cli.py", "cli = 2\n")
    commit(repo, "gtp")
    generate(repo)
    commit(repo, "the page")
    assert check(repo) == 0
    page = repo / "bench/RESULTS.md"
    text = page.read_text()
    page.write_text(text.replace("**stale**: gtp/ changed", "current", 1))
    assert check(repo) == 1
    page.write_text(text)
    write(repo, "priors/fbt/model.py", "fbt = 3\n")
    commit(repo, "fbt")
    assert check(repo) == 1        # the prediction row went stale since the page was written
    assert "+| fbt top-1" in capsys.readouterr().out


def test_a_shallow_clone_checks_everything_but_the_stale_flags(repo, tmp_path, capsys):
    write(repo, "engine/search.pyx", "playouts = 3\n")
    commit(repo, "search")
    generate(repo)
    commit(repo, "the page")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True)
    assert check(clone) == 0
    assert "shallow clone" in capsys.readouterr().err
    page = clone / "bench/RESULTS.md"
    page.write_text(page.read_text().replace("**stale**: engine/", "current: engine/"))
    assert check(clone) == 0        # the stale comparison is skipped, nothing else
    page.write_text(page.read_text().replace("189-6-5", "190-5-5"))
    assert check(clone) == 1
    assert generate(clone) == 2     # rewriting needs the history


def test_bad_input_is_an_error_naming_the_file_and_key(repo, capsys):
    record(repo, "predict/kgs", [git(repo, "rev-parse", "HEAD")], [fig("mm/top1", 0.4)])
    assert generate(repo) == 2
    err = capsys.readouterr().err
    assert "bench/results/predict/kgs/summary.json: no figure 'fbt/top1' (it has: mm/top1)" in err
    write(repo, "bench/results.yaml", QUESTIONS.replace("    headline: true", "    headlines: true"))
    assert generate(repo) == 2
    assert "question 1: unknown keys ['headlines']" in capsys.readouterr().err
    write(repo, "bench/results.yaml", QUESTIONS.replace("table: prediction", "table: predictions"))
    assert generate(repo) == 2
    assert "question 'fbt top-1': no page has a block for table 'predictions'" in capsys.readouterr().err


def test_a_preset_whose_keys_only_moved_is_the_same_preset(tmp_path):
    path = tmp_path / "fbt.yaml"
    path.write_text("# now\nprior:\n  name: fbt\nsearch:\n  additive_scale: 0.03\nreading:\n  prior: none\n")
    assert results._same_content(b"prior:\n  name: fbt\n  additive_scale: 0.03\nreading:\n  prior: uniform\n", path)
    assert not results._same_content(b"prior:\n  name: fbt\n  additive_scale: 0.06\n", path)
