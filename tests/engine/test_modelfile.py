"""The model file format: arrays plus a JSON header, never a pickle, every error naming the file."""
import numpy as np
import pytest

from engine.modelfile import ModelError, load_model, read_model, save_model


def test_damaged_file_is_rejected(tmp_path):
    path = tmp_path / "model.npz"
    save_model(path, "none", {"w": np.arange(100.0)}, {})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match=f"{path}: damaged"):
        load_model(path, "none")
    path.write_bytes(b"not a model at all")
    with pytest.raises(ModelError, match=f"{path}: not a model file$"):
        load_model(path, "none")


def test_wrong_kind_and_missing_file_are_rejected(tmp_path):
    path = tmp_path / "model.npz"
    save_model(path, "mm", {"w": np.ones(3)}, {"note": "x"})
    with pytest.raises(ModelError, match="holds a 'mm' model"):
        load_model(path, "fbt")
    arrays, meta = load_model(path, "mm")
    assert meta == {"kind": "mm", "format_version": 1, "note": "x"} and arrays["w"].tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "absent.npz", "mm")


@pytest.mark.parametrize("header, message", [
    ('{"kind": "mm", "format_version": 2}', "format version 2"),
    ('[1, 2]', "no valid metadata header"),
    ('not json', "no valid metadata header"),
])
def test_a_bad_header_is_rejected(tmp_path, header, message):
    path = tmp_path / "model.npz"
    np.savez(path, metadata=np.array(header))
    with pytest.raises(ModelError, match=message):
        read_model(path)


def test_pickled_arrays_are_never_loaded(tmp_path):
    path = tmp_path / "model.npz"
    np.savez(path, metadata=np.array('{"kind": "none", "format_version": 1}'),
             evil=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ModelError, match="damaged"):
        load_model(path, "none")


def test_the_header_name_is_reserved(tmp_path):
    with pytest.raises(ValueError, match="reserved"):
        save_model(tmp_path / "model.npz", "mm", {"metadata": np.ones(1)}, {})


@pytest.mark.parametrize("text", [b"root:x:0:0:root:/root:/bin/bash\n", b"", b"\x93NUMPY"])
def test_a_file_that_is_no_archive_is_not_a_model_file(tmp_path, text):
    """Regression: numpy took such a file for a pickle and advised loading it "unsafely"."""
    path = tmp_path / "model.npz"
    path.write_bytes(text)
    with pytest.raises(ModelError, match=f"^{path}: not a model file$"):
        read_model(path)

