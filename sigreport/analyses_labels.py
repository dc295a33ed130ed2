"""Classification and agreement analyses (predictions and annotations). Filled in by the labels work."""

from __future__ import annotations

from sigreport.data import Dataset
from sigreport.spec import Spec


def label_nodes(spec: Spec, dataset: Dataset) -> list:
    return []
