"""Inspect AI eval logs: each log's model a system, its task a corpus, each sample an item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat, listed


class InspectSource(_Model):
    """Inspect AI eval logs (.eval, a zip of JSON records, or .json), one log per model and task."""

    format: Literal["inspect"]
    path: str = Field(description="A log file, a folder of logs (Inspect's --log-dir: every .eval under it, and "
                      "every .json named by its start time) or a glob pattern (logs/*.eval). Each log's model is a system, its task a corpus, "
                      "each sample id an item and each epoch a sample (the sample column).")
    metrics: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="The scores to analyse, named as the log's results name them: a scorer's name "
        "(match, choice, model_graded_qa, ...), or a key of a scorer whose value is a dict. Each is a mean metric, "
        "higher is better (override under metrics). Values are read as Inspect's value_to_float reads them: C, I, "
        "P, N as 1, 0, 0.5, 0; yes/no and true/false as 1/0; numbers as they are.")
    tasks: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Tasks to read (default: every task of the logs).")
    epochs: Literal["sample", "mean"] = Field(
        "sample", description="Several epochs (answers per question): sample (each epoch a row, numbered in the "
        "sample column) or mean (each question's mean over its epochs, Inspect's default epoch reducer: one score "
        "per question).")
    metadata: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="Keys of each sample's metadata to carry as columns of the score table "
        "(a passage or subject id, for data.columns.cluster or stratum); every sample must hold a text or number "
        "under each.")


def inspect_metrics(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each metric listed a mean metric, higher is better (the spec's metrics override its fields)."""
    return listed(raw, "metrics", [], higher_is_better=True, decimals=4)


FORMAT = SourceFormat(name="inspect", model=InspectSource,
                      reader="sigreport.data.sources.inspect_logs:inspect_source", path_fields=("path",),
                      default_metrics=inspect_metrics, per_task_metrics=True, optional_library=True)
