"""bench.spt_study: every value of each sweep scored, resumed from items.jsonl, and its record."""
from __future__ import annotations

from bench import spt_study
from bench.records import read_jsonl, read_run, read_summary
from tests.bench.test_records import assert_invocation
from tests.priors.tiny_archive import data_dir, write_config  # noqa: F401 (data_dir is a fixture)


def test_the_study_scores_every_value_and_resumes(tmp_path, data_dir, capsys):
    config = write_config(tmp_path, data_dir, model="spt")
    study_path = tmp_path / "study.yaml"
    out = tmp_path / "study"
    study_path.write_text(f"train: {config}\ntest: {{max_games: 4}}\ntrees: 3\nforests: [1, 3]\ndraws: 2\n"
                          f"sweeps: {{d: [0, 4], w_p: [1, 3]}}\nout: {out}\n")
    settings = ["--set", "spt.m=5", "--set", "spt.s=20"]
    assert spt_study.main([str(study_path)] + settings) == 0
    records = read_jsonl(out / "items.jsonl")
    assert [(r["parameter"], r["value"]) for r in records] == [("d", 0), ("d", 4), ("w_p", 1), ("w_p", 3)]
    root = records[0]["forests"]
    assert root["1"]["top1"]["std"] == 0.0 and records[0]["leaves"] == [1, 1, 1]   # d = 0: one leaf each
    assert all(r["forests"]["3"]["top20"]["mean"] >= r["forests"]["3"]["top1"]["mean"] for r in records)
    assert (out / "d.png").is_file() and (out / "w_p.png").is_file()
    run, summary = read_run(out), read_summary(out)
    assert run["bench"] == "spt-study" and run["config"]["settings"]["trees"] == 3
    assert_invocation(run["invocations"][0], "python -m bench.spt_study")
    best = max(records[:2], key=lambda r: r["forests"]["3"]["top1"]["mean"])
    assert [f["key"] for f in summary["figures"]] == ["d/best-top1", "w_p/best-top1"]
    assert summary["figures"][0]["value"] == best["forests"]["3"]["top1"]["mean"]
    assert summary["figures"][0]["n"] == summary["test"]["positions"] > 0
    assert spt_study.main([str(study_path), "--only", "d"] + settings) == 0
    assert len(read_jsonl(out / "items.jsonl")) == 4       # nothing grown again
    assert "d = 4" in capsys.readouterr().out
    assert spt_study.main([str(study_path), "--only", "d", "--set", "spt.m=6", "--set", "spt.s=20"]) == 0
    assert len(read_jsonl(out / "items.jsonl")) == 6       # other settings: grown again
