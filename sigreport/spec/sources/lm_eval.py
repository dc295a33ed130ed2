"""lm-evaluation-harness samples (--log_samples): each model a system, each task a corpus."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat, listed


class LmEvalSource(_Model):
    """lm-evaluation-harness output with --log_samples: <path>/<model>/samples_<task>_<date>.jsonl (or .parquet)."""

    format: Literal["lm_eval"]
    path: str = Field(description="The --output_path folder: one folder per model (the system), each with "
                      "samples_<task>_<date>.jsonl or .parquet files (the task is the corpus, doc_id the item; the "
                      "latest date of a task is read).")
    metrics: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="The per-sample metric keys to analyse (acc, acc_norm, exact_match, ...), each a "
        "mean metric, higher is better (override under metrics). When a task logs several filters, its metrics "
        "are named 'metric,filter' as in lm-eval's results (exact_match,strict-match).")
    tasks: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Tasks to read (default: every task found).")
    corpus: Literal["task", "group"] = Field(
        "task", description="What a corpus is: task (each task, MMLU's subjects apart) or group (each top-level "
        "group of lm-eval's results_<date>.json group_subtasks, mmlu, with its subtasks' samples as items, "
        "task/doc_id). Either way the table's task and group columns name each sample's task and the group "
        "listing it, for data.columns.cluster or stratum.")


def lm_eval_metrics(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each metric listed a mean metric, higher is better (the spec's metrics override its fields)."""
    return listed(raw, "metrics", [], higher_is_better=True, decimals=4)


FORMAT = SourceFormat(name="lm_eval", model=LmEvalSource, reader="sigreport.data.sources.lm_eval:lm_eval_source",
                      path_fields=("path",), default_metrics=lm_eval_metrics, per_task_metrics=True)
