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


@pytest.mark.parametrize("text", [b"root:x:0:0:root:/root:/bin/bash\n", b"", b"\x93NUMPY"])
def test_a_file_that_is_no_archive_is_not_a_model_file(tmp_path, text):
    """Regression: numpy took such a file for a pickle and advised loading it "unsafely"."""
    path = tmp_path / "model.npz"
    path.write_bytes(text)
    with pytest.raises(ModelError, match=f"^{path}: not a model file$"):
        read_model(path)

