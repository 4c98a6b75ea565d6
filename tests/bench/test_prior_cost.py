"""bench.prior_cost on real test positions: every config searches the same boards, the ratio is to the first."""
import json

import pytest

from bench import prior_cost


def test_each_config_searches_the_same_positions_and_is_timed_against_the_first(archive, monkeypatch, tmp_path, capsys):
    data = archive("kgs6d_even.tar.xz").parent
    monkeypatch.setattr(prior_cost, "results_folder", lambda bench, slug: tmp_path / bench / slug)
    assert prior_cost.main(["configs/none.yaml", "configs/mm.yaml", "--playouts", "100", "--games", "1",
                            "--data", str(data), "--name", "t"]) == 0
    record = json.loads((tmp_path / "speed" / "t" / "prior-cost.json").read_text())
    assert 1 <= record["positions"] <= 4 and record["playouts"] == 100
    none, mm = record["rows"]
    assert (none["prior"], mm["prior"], none["cpu_ratio"]) == ("none", "mm", 1.0)
    assert mm["cpu_ratio"] == pytest.approx(mm["cpu_ms_per_move"] / none["cpu_ms_per_move"]) and mm["cpu_ratio"] > 0
    assert "configs/mm.yaml" in capsys.readouterr().out


def test_a_bad_config_is_a_clear_error(capsys):
    assert prior_cost.main(["configs/absent.yaml", "--games", "1"]) == 2
    assert "absent.yaml" in capsys.readouterr().err
