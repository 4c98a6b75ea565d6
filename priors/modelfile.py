"""Model files of the move priors: the `.npz` + JSON header format of `engine.modelfile` (re-exported
here, one format for every kind of learned model), and the header fields that only trained move
priors carry.

A trained model's header says which data split chose its settings (`settings_chosen_on`, with a short
`settings_note`; `priors.training.train` copies both from its config): a figure measured on that split
is not a held-out one. A file without the field reads as "unknown".
"""
from __future__ import annotations

from typing import Any

from engine.modelfile import FORMAT_VERSION, ModelError, load_model, read_model, save_model

__all__ = ["FORMAT_VERSION", "SETTINGS_SPLITS", "ModelError", "load_model", "read_model", "save_model",
           "settings_chosen_on"]

# The split whose figures chose a model's settings; "defaults": taken from the paper or set beforehand.
SETTINGS_SPLITS = ("validation", "test", "defaults", "unknown")


def settings_chosen_on(header: dict[str, Any]) -> tuple[str, str]:
    """(split, note): the data split that chose the model's settings and what was chosen on it, as the
    trainer recorded them; ("unknown", "") for a file written before the field."""
    return header.get("settings_chosen_on", "unknown"), header.get("settings_note", "")
