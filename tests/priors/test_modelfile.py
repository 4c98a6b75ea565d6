"""The header fields that trained move priors add to the model file format (the format itself:
tests/engine/test_modelfile.py)."""
import numpy as np

from priors.modelfile import read_model, save_model, settings_chosen_on


def test_the_split_that_chose_the_settings_reads_back_and_is_unknown_when_absent(tmp_path):
    save_model(tmp_path / "old.npz", "mm", {"w": np.ones(2)}, {})
    assert settings_chosen_on(read_model(tmp_path / "old.npz")[1]) == ("unknown", "")
    save_model(tmp_path / "new.npz", "mm", {"w": np.ones(2)},
               {"settings_chosen_on": "validation", "settings_note": "k chosen on validation games"})
    assert settings_chosen_on(read_model(tmp_path / "new.npz")[1]) == ("validation", "k chosen on validation games")
