"""lm-evaluation-harness per-sample logs (``--log_samples``) as the long score table.

lm-eval writes, for each model, ``<output_path>/<model name, '/' as '__'>/samples_<task>_<date>.jsonl``
(``EvaluationTracker.save_results_samples``), one JSON object per document and filter: ``doc_id``,
``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``, ``filter``, ``metrics`` (the metric
keys), hashes, and each metric's per-sample value under its own key (the ``example`` dict of
``evaluator.evaluate``). Here the model folder is the system, the task the corpus, ``doc_id`` the item
and each metric key a metric; when a task logged several filters its metrics are named
``metric,filter`` as lm-eval names them in its results. Of several runs of one task (several dates) the
latest is read. A metric lm-eval aggregates at corpus level from non-numbers (its bleu, mcc, f1 samples
hold pairs) cannot be analysed per sample and is refused naming its line.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np

from sigreport.data.sources.long import coded, long_table, numbers
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import DataError, Problem
from sigreport.spec import LmEvalSource, SpecFile

SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")


def sample_files(folder: Path, tasks: list[str] | None) -> dict[tuple[str, str], Path]:
    """(model, task) -> the latest samples file of that task in the model's folder."""
    found: dict[tuple[str, str], tuple[str, Path]] = {}
    for path in sorted(folder.glob("*/samples_*.jsonl")):
        match = SAMPLES.match(path.name)
        if match is None or (tasks is not None and match["task"] not in tasks):
            continue
        key = (path.parent.name, match["task"])
        if key not in found or match["date"] > found[key][0]:
            found[key] = (match["date"], path)
    return {k: p for k, (_, p) in found.items()}


def read_samples(path: Path) -> list[tuple[int, dict[str, object]]]:
    """(line, sample) of every non-blank line; a line that is not a JSON object with a doc_id is a problem."""
    shown = str(path)
    out, bad = [], []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(shown, [Problem(shown, None, "", f"cannot read: {exc}")]) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except ValueError as exc:
            bad.append(Problem(shown, number, "", f"not valid JSON: {exc}"))
            continue
        if not isinstance(sample, dict) or "doc_id" not in sample:
            bad.append(Problem(shown, number, "", "a sample is a JSON object with a doc_id (lm-eval --log_samples)"))
            continue
        out.append((number, sample))
        if len(bad) >= MAX_ROWS_SHOWN:
            break
    if bad:
        raise DataError(shown, bad)
    return out


def metric_keys(sample: dict[str, object]) -> list[str]:
    """The sample's metric keys: its ``metrics`` list (lm-eval 0.4.3 on), else every key that is not lm-eval's
    bookkeeping (older logs)."""
    listed = sample.get("metrics")
    if isinstance(listed, list):
        return [str(m) for m in listed]
    bookkeeping = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                   "doc_hash", "prompt_hash", "target_hash"}
    return [k for k in sample if k not in bookkeeping]


def lm_eval_source(sf: SpecFile, source: LmEvalSource) -> tuple[Table, dict[str, object]]:
    """The long table of every model's per-sample metric values, task by task."""
    folder = sf.resolve(source.path)
    where = str(sf.path)
    if not folder.is_dir():
        raise DataError(where, [sf.problem(f"{folder} is not a folder (lm-eval's --output_path)", "data", "scores",
                                           "path")])
    files = sample_files(folder, source.tasks)
    if not files:
        shown = str(folder)
        raise DataError(shown, [Problem(shown, None, "", "no samples_<task>_<date>.jsonl in any model folder under "
                                        "it: run lm-eval with --log_samples (and --output_path this folder)")])
    models = sorted({m for m, _ in files})
    tasks = sorted({t for _, t in files})
    rows: dict[str, list[object]] = {k: [] for k in ("system", "corpus", "item", "metric", "value", "file", "line")}
    names: dict[str, list[str]] = {"item": [], "metric": []}
    index: dict[str, dict[str, int]] = {"item": {}, "metric": {}}
    digest = hashlib.sha256()
    file_list = []
    for (model, task), path in sorted(files.items()):
        digest.update(path.read_bytes())
        samples = read_samples(path)
        several = len({s.get("filter") for _, s in samples}) > 1
        for line, sample in samples:
            for key in metric_keys(sample):
                name = f"{key},{sample.get('filter')}" if several else key
                value = _number(sample.get(key), path, line, key, name in source.metrics)
                if value is None:
                    continue
                rows["system"].append(models.index(model))
                rows["corpus"].append(tasks.index(task))
                rows["item"].append(_code(index["item"], names["item"], str(sample["doc_id"])))
                rows["metric"].append(_code(index["metric"], names["metric"], name))
                rows["value"].append(value)
                rows["file"].append(len(file_list))
                rows["line"].append(line)
        file_list.append(str(path))
    cols = sf.spec.data.columns
    columns = {cols.system: coded(np.asarray(rows["system"]), models),
               cols.corpus: coded(np.asarray(rows["corpus"]), tasks),
               cols.item: coded(np.asarray(rows["item"]), names["item"]),
               cols.metric: coded(np.asarray(rows["metric"]), names["metric"]),
               cols.value: numbers(np.asarray(rows["value"], dtype=float))}
    table = long_table(f"{source.path} (lm_eval)", digest.hexdigest(), columns, file_list, np.asarray(rows["file"]),
                       np.asarray(rows["line"]))
    return table, {"format": "lm_eval", "files": [str(Path(f).relative_to(folder)) for f in file_list]}


def _code(index: dict[str, int], names: list[str], name: str) -> int:
    if name not in index:
        index[name] = len(names)
        names.append(name)
    return index[name]


def _number(value: object, path: Path, line: int, key: str, wanted: bool) -> float | None:
    """A per-sample value as a number (booleans 1/0); a metric the spec analyses must be one."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if wanted:
        shown = str(path)
        raise DataError(shown, [Problem(shown, line, "", f"metric {key!r} holds {json.dumps(value)[:60]} per sample, "
                                        "not a number: lm-eval aggregates it over the corpus, so it cannot be "
                                        "compared per sample")])
    return None
