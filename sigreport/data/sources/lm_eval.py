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

The samples may also be Parquet (``samples_<task>_<date>.parquet``, the same columns: the form the Open LLM
Leaderboard's details datasets are published in, one row per sample; their heavy columns, doc, arguments
and responses, are not read). Subtask groups come from the model folder's latest ``results_<date>.json``
(``group_subtasks``: each group's subtasks, MMLU's 57 subjects under mmlu_stem, ... under mmlu): the table
has a ``task`` column (the sample's task) and a ``group`` column (the group that lists the task, or the task
itself), to be named as clusters or strata; with ``corpus: group`` each top-level group is one corpus whose
items are its subtasks' samples (``task/doc_id``), the mean over them lm-eval's size-weighted group mean.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np

from sigreport.data.sources.long import add_columns, coded, long_table, numbers
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import DataError, Problem
from sigreport.spec import LmEvalSource, SpecFile
from sigreport.speed.collector import paused

SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.(?P<kind>jsonl|parquet)$")
RESULTS = re.compile(r"^results_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.json$")
TASK_COLUMN, GROUP_COLUMN = "task", "group"  # each sample's task and its group: for data.columns.cluster / stratum
HEAVY = ("doc", "arguments", "resps", "filtered_resps", "target")  # Parquet columns never read


def sample_files(folder: Path, tasks: list[str] | None) -> dict[tuple[str, str], Path]:
    """(model, task) -> the latest samples file of that task in the model's folder."""
    found: dict[tuple[str, str], tuple[str, Path]] = {}
    for path in sorted(folder.glob("*/samples_*")):
        match = SAMPLES.match(path.name)
        if match is None or (tasks is not None and match["task"] not in tasks):
            continue
        key = (path.parent.name, match["task"])
        if key in found and match["date"] == found[key][0]:
            shown = str(path)
            raise DataError(shown, [Problem(shown, None, "", f"task {match['task']} of {path.parent.name} is logged "
                                            f"twice at {match['date']} ({found[key][1].name} too): keep one")])
        if key not in found or match["date"] > found[key][0]:
            found[key] = (match["date"], path)
    return {k: p for k, (_, p) in found.items()}


def subtask_groups(model_folder: Path) -> dict[str, list[str]]:
    """``group_subtasks`` of the folder's latest results_<date>.json (group -> its subtasks); {} without one."""
    dated = sorted((m["date"], p) for p in model_folder.glob("results_*.json") if (m := RESULTS.match(p.name)))
    if not dated:
        return {}
    path = dated[-1][1]
    shown = str(path)
    try:
        groups = json.loads(path.read_text(encoding="utf-8")).get("group_subtasks") or {}
    except (OSError, UnicodeDecodeError, ValueError, AttributeError) as exc:
        raise DataError(shown, [Problem(shown, None, "", f"cannot read lm-eval's results: {exc}")]) from None
    if not isinstance(groups, dict) or not all(isinstance(v, list) for v in groups.values()):
        raise DataError(shown, [Problem(shown, None, "", "group_subtasks is not a mapping of group to its subtasks")])
    return {str(g): [str(t) for t in ts] for g, ts in groups.items()}


def task_groups(groups: dict[str, list[str]], task: str) -> tuple[str, str]:
    """(the group that lists ``task``, the top-level group above it); the task itself where none does."""
    parent = {t: g for g, ts in groups.items() for t in ts if t != g}
    group = parent.get(task, task)
    top, steps = task, 0
    while top in parent and steps < len(parent):  # a cycle in a hand-edited file ends here, not in a loop
        top, steps = parent[top], steps + 1
    return group, top


def read_samples(path: Path) -> list[tuple[int, dict[str, object]]]:
    """(line, sample) of every non-blank line; a line that is not a JSON object with a doc_id is a problem.
    A Parquet file: (row, sample) of every row, without its heavy columns."""
    shown = str(path)
    if path.suffix == ".parquet":
        return _parquet_samples(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(shown, [Problem(shown, None, "", f"cannot read: {exc}")]) from None
    numbered = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    whole = _parsed_at_once([line for _, line in numbered])
    if whole is not None:
        return [(number, sample) for (number, _), sample in zip(numbered, whole)]
    out, bad = [], []
    for number, line in numbered:
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


def _parsed_at_once(lines: list[str]) -> list[dict[str, object]] | None:
    """Every line's sample from one ``json.loads`` of the lines as one JSON array, or None when that is not the
    same as parsing each line (a line that is not one JSON value makes the array fail or hold another count;
    a value that is not an object with a doc_id): the caller then parses line by line and names the faulty
    lines. Why: one call instead of one per line (lm-eval writes a line per sample: 20,000 in a task)."""
    try:
        with paused():  # a tree of objects, no cycles: the collector's passes would only walk it
            samples = json.loads("[" + ",".join(lines) + "]")
    except ValueError:
        return None
    if len(samples) != len(lines) or not all(isinstance(s, dict) and "doc_id" in s for s in samples):
        return None
    return samples


def _parquet_samples(path: Path) -> list[tuple[int, dict[str, object]]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    shown = str(path)
    try:
        schema = pq.read_schema(path)
        table = pq.read_table(path, columns=[n for n in schema.names if n not in HEAVY])
    except (OSError, pa.ArrowException) as exc:
        raise DataError(shown, [Problem(shown, None, "", f"cannot read the Parquet file: {exc}")]) from None
    if "doc_id" not in table.column_names:
        raise DataError(shown, [Problem(shown, None, "", "no doc_id column: lm-eval samples (--log_samples) as "
                                        f"Parquet have doc_id, filter, metrics and a column per metric; present: "
                                        f"{', '.join(table.column_names)}")])
    return list(enumerate(table.to_pylist(), start=1))


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
        raise DataError(shown, [Problem(shown, None, "", "no samples_<task>_<date>.jsonl (or .parquet) in any model "
                                        "folder under it: run lm-eval with --log_samples (and --output_path this "
                                        "folder)")])
    models = sorted({m for m, _ in files})
    groups = {m: subtask_groups(folder / m) for m in models}
    if source.corpus == "group":
        lacking = [m for m in models if not groups[m]]
        if lacking:
            raise DataError(where, [sf.problem(f"corpus: group needs lm-eval's results_<date>.json with "
                                               f"group_subtasks in each model folder; none in "
                                               f"{', '.join(lacking)}", "data", "scores", "corpus")])
    placed = {(m, t): task_groups(groups[m], t) for m, t in files}
    corpus_of = {k: g[1] if source.corpus == "group" else k[1] for k, g in placed.items()}
    tasks = sorted(set(corpus_of.values()))
    task_names = sorted({t for _, t in files})
    group_names = sorted({g[0] for g in placed.values()})
    rows: dict[str, list[object]] = {k: [] for k in ("system", "corpus", "item", "metric", "value", "file", "line",
                                                      "task", "group")}
    names: dict[str, list[str]] = {"item": [], "metric": []}
    index: dict[str, dict[str, int]] = {"item": {}, "metric": {}}
    kinds = set()
    digest = hashlib.sha256()
    file_list = []
    for (model, task), path in sorted(files.items()):
        digest.update(path.read_bytes())
        kinds.add(path.suffix)
        samples = read_samples(path)
        several = len({s.get("filter") for _, s in samples}) > 1
        before = len(rows["value"])
        for line, sample in samples:
            for key in metric_keys(sample):
                name = f"{key},{sample.get('filter')}" if several else key
                value = _number(sample.get(key), path, line, key, name in source.metrics)
                if value is None:
                    continue
                item = f"{task}/{sample['doc_id']}" if source.corpus == "group" else str(sample["doc_id"])
                rows["item"].append(_code(index["item"], names["item"], item))
                rows["metric"].append(_code(index["metric"], names["metric"], name))
                rows["value"].append(value)
                rows["line"].append(line)
        added = len(rows["value"]) - before  # the same model, task, group and file on every row of this file
        for key, code in (("system", models.index(model)), ("corpus", tasks.index(corpus_of[(model, task)])),
                          ("task", task_names.index(task)), ("group", group_names.index(placed[(model, task)][0])),
                          ("file", len(file_list))):
            rows[key] += [code] * added
        file_list.append(str(path))
    cols = sf.spec.data.columns
    columns = {cols.system: coded(np.asarray(rows["system"]), models),
               cols.corpus: coded(np.asarray(rows["corpus"]), tasks),
               cols.item: coded(np.asarray(rows["item"]), names["item"]),
               cols.metric: coded(np.asarray(rows["metric"]), names["metric"]),
               cols.value: numbers(np.asarray(rows["value"], dtype=float))}
    add_columns(columns, {TASK_COLUMN: coded(np.asarray(rows["task"]), task_names),
                          GROUP_COLUMN: coded(np.asarray(rows["group"]), group_names)}, sf, ("data", "columns"))
    unit = "line" if kinds == {".jsonl"} else "row" if kinds == {".parquet"} else "line or row"
    table = long_table(f"{source.path} (lm_eval)", digest.hexdigest(), columns, file_list, np.asarray(rows["file"]),
                       np.asarray(rows["line"]), unit=unit)
    info: dict[str, object] = {"format": "lm_eval", "files": [str(Path(f).relative_to(folder)) for f in file_list]}
    if source.corpus == "group":
        info["corpus"] = "group"
    return table, info


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
