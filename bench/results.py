"""The results page: each question a user asks, answered by a record's figure, with its staleness from git.

`bench/results.yaml` lists the questions, each with the table it belongs to, the figures that answer it
(`RECORD#KEY`: a record folder under bench/results/ and a key of its summary.json "figures"), the command
that refreshes it and, where the record's config does not say, the code it depends on. This module
renders one markdown table per name between the markers

    <!-- results: NAME -->
    ...
    <!-- /results -->

in bench/RESULTS.md and README.md (the table `headline` holds the questions marked `headline: true`).
A row is **stale** where a path it depends on changed between the earliest commit its records were
measured at and HEAD (a model file only where its arrays changed, a preset only where its settings did, so
that a new header or comment does not count), where a record was measured with uncommitted changes, or
at a commit this history does not hold.

    python -m bench.results            rewrite the generated blocks
    python -m bench.results --check    exit 1, with a diff, where a committed block differs
"""
from __future__ import annotations

import argparse
import difflib
import functools
import io
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from bench.records import ROOT, run_git
from engine.config import current_keys
from engine.configfile import ConfigError, parse_yaml, read_yaml

TABLE = Path("bench/results.yaml")
PAGES = (Path("bench/RESULTS.md"), Path("README.md"))
RESULTS = Path("bench/results")
HEADLINE = "headline"
BLOCK_RE = re.compile(r"(<!-- results: ([\w-]+) -->\n)(.*?)(<!-- /results -->)", re.S)
HEADER = ("| question | figure (95% interval) | record | commit | command | status |\n"
          "|---|---|---|---|---|---|\n")
UNCHECKED = "(not checked: shallow clone)"

# The code each bench's figures depend on, before the priors a record's engines use.
BENCH_DEPENDS = {
    "match": ("engine/", "gtp/"), "league": ("engine/", "gtp/"), "regress": ("engine/", "gtp/"),
    "scorecheck": ("engine/", "gtp/"), "speed": ("engine/",),
    "tactics": ("engine/tactics/", "engine/board.pyx", "engine/board.pxd", "gtp/tactics_commands.py"),
    "rules": ("engine/board.pyx", "engine/board.pxd"), "predict": ("engine/board.pyx", "engine/board.pxd"),
}
QUESTION_KEYS = {"table", "question", "figures", "command", "depends", "note", "headline"}
TESUJI_RE = re.compile(r"(?:-m gtp(?:\.cli)?(?: gtp)?|\btesuji gtp)(?=\s|$)")     # a Tesuji engine's command


class ResultsError(Exception):
    """A question table, record or page that cannot be rendered; the message names the file and key."""


# -- the questions ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Figure:
    record: str        # bench/slug under bench/results/
    key: str           # a key of the record's summary.json "figures"
    label: str         # shown before the figure where a row has several


@dataclass(frozen=True)
class Question:
    table: str
    question: str
    figures: tuple[Figure, ...]
    command: str
    depends: tuple[str, ...] | None     # declared paths; None: derived from the records
    note: str
    headline: bool


def _figure(spec: Any, where: str) -> Figure:
    """`RECORD#KEY`, or {figure: RECORD#KEY, label: TEXT}."""
    label = ""
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"figure", "label"}
        if unknown or "figure" not in spec:
            raise ResultsError(f"{where}: a figure is RECORD#KEY or {{figure, label}}, got keys {sorted(spec)}")
        spec, label = spec["figure"], str(spec.get("label", ""))
    record, _, key = spec.partition("#") if isinstance(spec, str) else ("", "", "")
    if record.count("/") != 1 or not key:
        raise ResultsError(f"{where}: figure {spec!r}: expected BENCH/SLUG#KEY")
    return Figure(record, key, label)


def load_questions(root: Path) -> list[Question]:
    """The questions of `root`/bench/results.yaml, validated; a bad entry is an error naming it."""
    path = root / TABLE
    try:
        data = read_yaml(path)
    except ConfigError as e:
        raise ResultsError(str(e)) from None
    if not isinstance(data.get("questions"), list):
        raise ResultsError(f"{path}: expected a mapping with a list 'questions'")
    out = []
    for i, entry in enumerate(data["questions"], 1):
        where = f"{path}: question {i}"
        if not isinstance(entry, Mapping):
            raise ResultsError(f"{where}: expected a mapping")
        unknown = set(entry) - QUESTION_KEYS
        missing = {"table", "question", "figures", "command"} - set(entry)
        if unknown or missing:
            raise ResultsError(f"{where}: unknown keys {sorted(unknown)}, missing keys {sorted(missing)}")
        where += f" ({entry['question']!r})"
        figures = entry["figures"] if isinstance(entry["figures"], list) else [entry["figures"]]
        depends = entry.get("depends")
        if depends is not None and not (isinstance(depends, list) and all(isinstance(d, str) for d in depends)):
            raise ResultsError(f"{where}: depends: expected a list of paths")
        out.append(Question(str(entry["table"]), str(entry["question"]),
                            tuple(_figure(f, where) for f in figures), str(entry["command"]),
                            tuple(depends) if depends is not None else None, str(entry.get("note", "")),
                            bool(entry.get("headline", False))))
    return out


# -- records ------------------------------------------------------------------------------------------------

def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(f"{path}: missing") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not JSON ({e})") from None


@functools.lru_cache(maxsize=None)
def _record(root: Path, record: str) -> tuple[dict[str, Any], dict[str, Any]]:
    folder = root / RESULTS / record
    return _read_json(folder / "run.json"), _read_json(folder / "summary.json")


def figure_of(root: Path, fig: Figure) -> dict[str, Any]:
    """The entry `fig.key` of the record's summary.json "figures"."""
    _, summary = _record(root, fig.record)
    figures = summary.get("figures")
    if not isinstance(figures, list):
        raise ResultsError(f"{root / RESULTS / fig.record}/summary.json: no list 'figures'")
    for entry in figures:
        if entry.get("key") == fig.key:
            return entry
    keys = ", ".join(str(e.get("key")) for e in figures)
    raise ResultsError(f"{root / RESULTS / fig.record}/summary.json: no figure {fig.key!r} (it has: {keys})")


def invocations(root: Path, record: str) -> list[dict[str, Any]]:
    run, _ = _record(root, record)
    inv = run.get("invocations")
    if not isinstance(inv, list) or not inv or not all(isinstance(i, Mapping) and i.get("commit") for i in inv):
        raise ResultsError(f"{root / RESULTS / record}/run.json: 'invocations' needs a commit in every entry")
    return inv


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _preset_prior(root: Path, preset: str) -> tuple[str | None, str | None]:
    """The prior name and model a preset file sets (None where it keeps the default's)."""
    path = root / preset
    if not path.exists():
        return None, None
    try:
        prior = read_yaml(path).get("prior") or {}
    except (ConfigError, AttributeError) as e:
        raise ResultsError(f"{path}: not a preset ({e})") from None
    return prior.get("name"), prior.get("model")


def engine_depends(root: Path, command: str) -> list[str]:
    """The preset, prior subpackage and model file a Tesuji command line plays with."""
    name, model = _preset_prior(root, "configs/default.yaml")
    deps: list[str] = []
    try:
        args = shlex.split(command)
    except ValueError:           # an unbalanced quote: the words are still the flags
        args = command.split()
    for flag, value in zip(args, args[1:]):
        preset = {"--config": value, "--preset": f"configs/{value}.yaml"}.get(flag)
        if preset:
            deps.append(preset)
            p_name, p_model = _preset_prior(root, preset)
            name, model = p_name or name, p_model or model
        elif flag == "--set" and value.startswith("prior.name="):
            name = value.split("=", 1)[1]
        elif flag == "--set" and value.startswith("prior.model="):
            model = value.split("=", 1)[1]
    if name and name != "none":
        deps.append(f"priors/{name}/")
        if model:
            deps.append(model)
    return deps


def tesuji_commands(config: Mapping[str, Any], keys: set[str]) -> list[str]:
    """The command lines of the Tesuji engines behind the figures `keys`: a match's player with the
    variant a key names (and its opponent), a league's engines a key names (`A-vs-B` names both); where no
    key names one, every Tesuji command line in the config."""
    player = str((config.get("player") or {}).get("command", ""))
    variants = [v for v in config.get("variants") or [] if isinstance(v, Mapping)]
    engines = [e for e in config.get("engines") or [] if isinstance(e, Mapping)]
    if player:
        chosen = [v for v in variants if v.get("name") in keys] or variants or [{}]
        commands = [f"{player} {v.get('args', '')}" for v in chosen]
        commands.append(str((config.get("opponent") or {}).get("command", "")))
    elif engines:
        names = keys | {side for k in keys for side in k.split("-vs-")}
        chosen = [e for e in engines if e.get("name") in names] or engines
        commands = [str(e.get("command", "")) for e in chosen]
    else:
        commands = list(_strings(config))
    return [c for c in commands if TESUJI_RE.search(c)]


def derived_depends(root: Path, record: str, keys: set[str]) -> list[str]:
    """What a record's figures `keys` depend on: its bench's code, and the preset, prior and model of the
    Tesuji engines that played them (or of the model files in the repository its config names)."""
    run, _ = _record(root, record)
    config = run.get("config") or {}
    deps = list(BENCH_DEPENDS.get(record.split("/")[0], ("engine/",)))
    for command in tesuji_commands(config, keys):
        deps += engine_depends(root, command)
    for text in _strings(config):
        if text.startswith("priors/models/") and text.endswith(".npz") and not TESUJI_RE.search(text):
            deps.append(text)
            kind = _model_kind(root / text)
            if kind:
                deps.append(f"priors/{kind}/")
    return list(dict.fromkeys(deps))


def _model_kind(path: Path) -> str | None:
    try:
        with np.load(path, allow_pickle=False) as z:
            return json.loads(str(z["metadata"])).get("kind")
    except (OSError, KeyError, ValueError):
        return None


# -- git ----------------------------------------------------------------------------------------------------

class Git:
    """The few questions the page asks git, answered once each."""

    def __init__(self, root: Path):
        self.root = root
        self._cache: dict[tuple, Any] = {}

    def _run(self, *args: str, text: bool = True) -> subprocess.CompletedProcess:
        return run_git(*args, cwd=self.root, text=text, timeout=120)

    def _cached(self, key: tuple, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def is_shallow(self) -> bool:
        return self._run("rev-parse", "--is-shallow-repository").stdout.strip() == "true"

    def in_history(self, commit: str) -> bool:
        """Whether `commit` is HEAD or one of its ancestors."""
        return self._cached(("in", commit), lambda: self._run(
            "merge-base", "--is-ancestor", commit, "HEAD").returncode == 0)

    def behind(self, commit: str) -> int:
        return self._cached(("behind", commit), lambda: int(self._run(
            "rev-list", "--count", f"{commit}..HEAD").stdout.strip() or 0))

    def changed(self, commit: str, paths: Sequence[str]) -> list[str]:
        """Which of `paths` differ between `commit` and HEAD."""
        def compute():
            names = self._run("diff", "--name-only", commit, "HEAD", "--", *paths).stdout.split()
            return [p for p in paths if any(n == p or n.startswith(p.rstrip("/") + "/") for n in names)]
        return self._cached(("changed", commit, tuple(paths)), compute) if paths else []

    def data_changed(self, commit: str, path: str) -> str | None:
        """How the data file `path` differs from the one at `commit`, by content (a model's arrays, a
        preset's settings): `changed since`, `absent at` or `gone since`; None where the content is the same."""
        def compute():
            shown = self._run("show", f"{commit}:{path}", text=False)
            if shown.returncode:
                return "absent at"
            if not (self.root / path).exists():
                return "gone since"
            return None if _same_content(shown.stdout, self.root / path) else "changed since"
        return self._cached(("data", commit, path), compute)


def _settings(text: str, source: str) -> dict:
    """A preset's mapping with its keys as they are named now (engine.config.current_keys)."""
    return current_keys(parse_yaml(text, source))[0]


def _same_content(old: bytes, path: Path) -> bool:
    """Whether two model files hold the same arrays, whatever their metadata headers say, or two presets
    the same settings, whatever their comments say and under whichever of a moved key's names."""
    if path.suffix != ".npz":
        try:
            then, now = old.decode("utf-8"), path.read_text(encoding="utf-8")
            return _settings(then, f"{path} then") == _settings(now, str(path))
        except (UnicodeDecodeError, ConfigError):
            return False
    with np.load(io.BytesIO(old), allow_pickle=False) as a, np.load(path, allow_pickle=False) as b:
        keys = set(a.files) - {"metadata"}
        return keys == set(b.files) - {"metadata"} and all(np.array_equal(a[k], b[k]) for k in keys)


def _is_data(dep: str) -> bool:
    """A model file or a preset: compared by content, not by text."""
    return dep.partition("@")[0].endswith((".npz", ".yaml"))


def depends(root: Path, q: Question) -> list[str]:
    """The paths a question's figures depend on: declared in the table, else derived from the records.

    A model file may be declared as `PATH@COMMIT`: the file as committed at COMMIT is the one measured
    (a record made on a model file before it was committed)."""
    if q.depends is not None:
        return list(q.depends)
    keys: dict[str, set[str]] = {}
    for f in q.figures:
        keys.setdefault(f.record, set()).add(f.key)
    return list(dict.fromkeys(d for record, k in keys.items() for d in derived_depends(root, record, k)))


def status(root: Path, git: Git | None, q: Question) -> str:
    """`current`, or `**stale**: why`; None for git means the comparison is skipped."""
    if git is None:
        return UNCHECKED
    records = list(dict.fromkeys(f.record for f in q.figures))
    invs = [i for r in records for i in invocations(root, r)]
    reasons = []
    if any(i.get("dirty") for i in invs):
        reasons.append("measured with uncommitted changes")
    commits = list(dict.fromkeys(str(i["commit"]) for i in invs))
    unknown = [c for c in commits if not git.in_history(c)]
    if unknown:
        reasons.append("unknown commit " + ", ".join(c[:7] for c in unknown))
    known = [c for c in commits if c not in unknown]
    if known:
        earliest = max(known, key=git.behind)
        changed = git.changed(earliest, [d for d in depends(root, q) if not _is_data(d)])
        why = [", ".join(changed) + f" changed since {earliest[:7]}"] if changed else []
        for dep in filter(_is_data, depends(root, q)):
            path, _, since = dep.partition("@")
            how = git.data_changed(since or earliest, path)
            why += [f"{path} {how} {(since or earliest)[:7]}"] if how else []
        if why:
            reasons.append(", ".join(why))
    return "**stale**: " + "; ".join(reasons) if reasons else "current"


def figure_text(entry: Mapping[str, Any]) -> str:
    """The record's own text for a figure, else its value with the interval."""
    if entry.get("text"):
        return str(entry["text"])
    value, low, high = entry.get("value"), entry.get("low"), entry.get("high")
    unit = entry.get("unit", "")
    percent = unit in ("win rate", "share", "rate") or unit.startswith("top-")
    fmt = (lambda x: f"{100 * x:.1f}%") if percent else (lambda x: f"{x:,.4g}")
    text = fmt(value) if value is not None else "?"
    if low is not None and high is not None:
        text += f" [{fmt(low).rstrip('%')}, {fmt(high)}]" if percent else f" [{fmt(low)}, {fmt(high)}]"
    return text + ("" if percent or not unit else f" {unit}")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def row(root: Path, page: Path, git: Git | None, q: Question) -> str:
    many = len(q.figures) > 1
    figures = "; ".join((f"{f.label}: " if many and f.label else "") + figure_text(figure_of(root, f))
                        for f in q.figures)
    records = list(dict.fromkeys(f.record for f in q.figures))
    link = os.path.relpath(root / RESULTS, (root / page).parent)
    records_cell = ", ".join(f"[{r}]({link}/{r}/)" for r in records)
    commits = list(dict.fromkeys(str(i["commit"])[:7] for r in records for i in invocations(root, r)))
    commits_cell = (", ".join(commits) if len(commits) <= 3
                    else f"{commits[0]} to {commits[-1]} ({len(commits)} commits)")
    question = q.question + (f" ({q.note})" if q.note else "")
    cells = [question, figures, records_cell, commits_cell, f"`{q.command}`", status(root, git, q)]
    return "| " + " | ".join(_cell(c) for c in cells) + " |\n"


def table(root: Path, page: Path, git: Git | None, questions: Sequence[Question], name: str) -> str:
    chosen = [q for q in questions if q.table == name or (name == HEADLINE and q.headline)]
    if not chosen:
        raise ResultsError(f"{root / page}: block {name!r}: no question in {TABLE} has table {name!r}")
    return HEADER + "".join(row(root, page, git, q) for q in chosen)


def render(root: Path, page: Path, text: str, git: Git | None, questions: Sequence[Question]) -> str:
    """`text` with every generated block rebuilt."""
    return BLOCK_RE.sub(lambda m: m.group(1) + table(root, page, git, questions, m.group(2)) + m.group(4), text)


def _unchecked(text: str) -> str:
    """A page with every table row's status cell replaced, for comparing without git history."""
    def blocks(m: re.Match) -> str:
        rows = [re.sub(r"\| [^|]*(?:\\\|[^|]*)* \|$", f"| {UNCHECKED} |", line) if line.startswith("| ")
                and not line.startswith("| question") else line for line in m.group(3).split("\n")]
        return m.group(1) + "\n".join(rows) + m.group(4)
    return BLOCK_RE.sub(blocks, text)


# -- the command --------------------------------------------------------------------------------------------

def run(root: Path, check: bool) -> int:
    git: Git | None = Git(root)
    if git.is_shallow():
        if not check:
            raise ResultsError("a shallow clone has no history to date the records: "
                               "`git fetch --unshallow` first")
        print("warning: shallow clone: the stale flags are not compared (git fetch --unshallow to check them)",
              file=sys.stderr)
        git = None
    questions = load_questions(root)
    texts = {page: (root / page).read_text(encoding="utf-8") for page in PAGES if (root / page).exists()}
    blocks = {m.group(2) for text in texts.values() for m in BLOCK_RE.finditer(text)}
    for q in questions:
        if q.table not in blocks:
            raise ResultsError(f"{root / TABLE}: question {q.question!r}: no page has a block for table "
                               f"{q.table!r}")
    failed = False
    for page, text in texts.items():
        path = root / page
        new = render(root, page, text, git, questions)
        if not check:
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(f"{page}: rewritten")
            continue
        old = text if git is not None else _unchecked(text)
        if new != old:
            failed = True
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       f"{page} (committed)", f"{page} (from the records)"))
    if failed:
        print("the results pages differ from the records: run `python -m bench.results`", file=sys.stderr)
    return int(failed)


def main(argv: Sequence[str] | None = None, root: Path = ROOT) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.results", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="rewrite nothing; exit 1 with a diff where a generated block differs")
    args = parser.parse_args(argv)
    _record.cache_clear()
    try:
        return run(Path(root), args.check)
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
