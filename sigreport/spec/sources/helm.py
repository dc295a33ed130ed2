"""HELM run folders: each run's model a system, its run entry a corpus, each instance an item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat, listed


class HelmSource(_Model):
    """HELM run folders: benchmark_output/runs/<suite>/<run>/ with per_instance_stats.json and run_spec.json."""

    format: Literal["helm"]
    path: str = Field(description="A suite folder (benchmark_output/runs/<suite>: every run folder in it), one run "
                      "folder, or a glob pattern of run folders. Each run's model (run_spec.json adapter_spec.model) "
                      "is a system, its run entry without the model (run_spec.json name: simple_mcqa, "
                      "mmlu:subject=anatomy) a corpus, each instance id an item.")
    metrics: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="Per-instance stat names (exact_match, quasi_exact_match, prefix_exact_match, "
        "f1_score, ...), each a mean metric, higher is better (override under metrics).")
    corpus: Literal["run", "group"] = Field(
        "run", description="What a corpus is: run (each run entry without its model: mmlu:subject=anatomy) or group "
        "(each run's first group in run_spec.json, mmlu, with its runs' instances as items, <run entry>/<instance>). "
        "Either way the table's scenario column names each instance's run entry, for data.columns.cluster or "
        "stratum.")
    split: str = Field("test", min_length=1, description="The instances' split whose stats are read (HELM's "
                       "stats.json reports each split apart).")
    trials: Literal["sample", "mean"] = Field(
        "sample", description="Several train trials (helm-run -t: each instance answered with another set of "
        "in-context examples): sample (each trial a row, numbered from 0 in the sample column) or mean (each "
        "instance's mean over its trials: one score per instance).")
    perturbations: Literal["refuse", "unperturbed"] = Field(
        "unperturbed", description="Instances HELM also scored under a perturbation (robustness, fairness runs): "
        "unperturbed (the stats of the original instance only, as HELM's headline numbers) or refuse.")


def helm_metrics(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each metric listed a mean metric, higher is better (the spec's metrics override its fields)."""
    return listed(raw, "metrics", [], higher_is_better=True, decimals=4)


FORMAT = SourceFormat(name="helm", model=HelmSource, reader="sigreport.data.sources.helm:helm_source",
                      path_fields=("path",), default_metrics=helm_metrics, per_task_metrics=True)
