"""Inspect AI eval logs (``.eval`` and ``.json``) as the long score table, read as they are written.

An Inspect log is one model's run of one task (``inspect eval TASK --model M``): a ``.eval`` file is a zip
holding ``header.json`` (``eval``: task, model, config; ``results``: the aggregated metrics; ``status``) and
one ``samples/<id>_epoch_<k>.json`` per question and epoch (an ``EvalSample``: ``id``, ``epoch``,
``scores`` {scorer: {value, answer, ...}}, ``metadata``, ``error``); a ``.json`` log is the same as one
object with a ``samples`` list (inspect_ai/log/_log.py ``EvalLog``; _recorders/eval.py and json.py). Here
the model is the system, the task the corpus, the sample id the item, each score a metric (a dict-valued
score gives one metric per key, named by the key as Inspect's results name it) and the epoch the
``sample`` column: the k-th answer of a system to a question. Score values are read as Inspect's
``value_to_float`` reads them (C/I/P/N 1/0/0.5/0, yes/no and true/false 1/0, numeric text, numbers); a
value it cannot read (it would warn and count 0) is an error naming the log, the sample and the score.

The zip members are read with :mod:`zipfile` (deflate) or, for the zstd members Inspect writes since
0.3.1xx (compression method 93, which Python reads natively only from 3.14), with ``zstandard``
(``pip install 'sigreport[inspect]'``); inspect_ai itself is not imported. Errored samples (``error``
set, no scores) and samples without a score are left out, named and counted in ``data.source`` of
results.json and in a note beside every metric's descriptives; so is a log that did not finish (status
cancelled or error: the sample records it holds are read). Two logs of one model and task are refused.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import math
import re
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.sources.long import add_columns, coded, long_table, numbered, numbers, sample_means
from sigreport.data.sources.tables import GLOB_CHARS
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import DataError, Problem
from sigreport.spec import InspectSource, SpecFile

SAMPLE_COLUMN = "sample"  # the epoch: the column data.columns.sample names (its default name)
ZSTD = 93  # the zip compression method of Zstandard (APPNOTE 4.4.5)
SAMPLE_MEMBER = re.compile(r"^samples/.+_epoch_\d+\.json$")
LOG_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}")  # a .json log's name: its start time
CORRECT, INCORRECT, PARTIAL, NOANSWER = "C", "I", "P", "N"  # inspect_ai.scorer._metric's default value letters


def value_to_float(value: object) -> float | None:
    """A score value as Inspect's ``value_to_float()`` maps it (inspect_ai/scorer/_metric.py), or None where
    Inspect would warn and return 0 (a list, a dict, text that is not a number or a yes/no word)."""
    if value == CORRECT:
        return 1.0
    if value == PARTIAL:
        return 0.5
    if value == INCORRECT or value == NOANSWER:
        return 0.0
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, str):
        word = value.lower()
        if word in ("yes", "true"):
            return 1.0
        if word in ("no", "false"):
            return 0.0
        try:
            number = float(word)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def log_files(sf: SpecFile, pattern: str) -> list[Path]:
    """The logs ``path`` names: a file, every .eval/.json under a folder, or a glob's matches."""
    if GLOB_CHARS.search(pattern):
        found = sorted(Path(p).resolve() for p in glob.glob(str(sf.folder / pattern), recursive=True)
                       if Path(p).is_file())
    else:
        target = sf.resolve(pattern)
        if target.is_dir():  # Inspect's own rule (log/_file.py is_log_file): its manifests are not logs
            found = sorted(p for p in target.rglob("*") if p.is_file() and (
                p.suffix == ".eval" or p.suffix == ".json" and LOG_NAME.match(p.name)))
        elif target.is_file():
            found = [target]
        else:
            raise DataError(str(sf.path), [sf.problem(f"{target} does not exist (a log, a folder of logs or a glob)",
                                                      "data", "scores", "path")])
    if not found:
        raise DataError(str(sf.path), [sf.problem(f"no Inspect log (.eval, .json) at {pattern!r} (in {sf.folder})",
                                                  "data", "scores", "path")])
    return found


def _member(archive: zipfile.ZipFile, raw: io.BufferedReader, info: zipfile.ZipInfo) -> bytes:
    """A zip member's bytes; a zstd member that zipfile cannot read (Python < 3.14) decompressed by ``zstandard``
    from its raw data."""
    try:
        return archive.read(info)
    except NotImplementedError:
        if info.compress_type != ZSTD:
            raise ValueError(f"{info.filename}: zip compression method {info.compress_type} is not readable") from None
    try:
        import zstandard
    except ImportError:
        raise ImportError("this .eval log is zstd-compressed (Inspect 0.3.1xx on): pip install 'sigreport[inspect]' "
                          "(zstandard) to read it") from None
    raw.seek(info.header_offset)
    head = raw.read(30)
    if head[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {info.filename}")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    raw.seek(info.header_offset + 30 + name_len + extra_len)
    data = raw.read(info.compress_size)
    with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as reader:
        return reader.read()


def read_log(path: Path) -> tuple[dict[str, Any], Iterator[dict[str, Any]], int]:
    """A log's header (eval, results, status) and its samples (each EvalSample as a dict), and the sample count.
    Raises ValueError with what is wrong in the file."""
    if path.suffix == ".eval":
        try:
            with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
                names = archive.namelist()
                if "header.json" not in names:
                    raise ValueError("no header.json in the log: the eval did not finish (it was interrupted or is "
                                     "still running); run `inspect log` on it, or rerun the task")
                header = _json(_member(archive, raw, archive.getinfo("header.json")), "header.json")
        except zipfile.BadZipFile:
            raise ValueError("not a zip file: a .eval log is a zip of JSON records (inspect eval --log-format eval)"
                             ) from None
        members = sorted(n for n in names if SAMPLE_MEMBER.match(n))

        def samples() -> Iterator[dict[str, Any]]:  # opens the log when the first sample is asked for
            with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
                for name in members:
                    yield _json(_member(archive, raw, archive.getinfo(name)), name)

        return header, samples(), len(members)
    try:
        log = json.loads(path.read_bytes())
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise ValueError("not an Inspect log: a .json log is an object with eval, results and samples "
                         "(inspect eval --log-format json)")
    listed = log.get("samples") or []
    if not isinstance(listed, list):
        raise ValueError("samples is not a list")
    return log, iter(listed), len(listed)


def _json(data: bytes, member: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"{member}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{member}: not a JSON object")
    return value


def inspect_source(sf: SpecFile, source: InspectSource) -> tuple[Table, dict[str, object]]:
    """The long table of every log's per-sample scores (the epoch in the ``sample`` column)."""
    cols = sf.spec.data.columns
    taken = {cols.system, cols.corpus, cols.item, cols.metric, cols.value} | (
        {SAMPLE_COLUMN} if source.epochs == "sample" else set())
    clash = {k: None for k in source.metadata if k in taken}  # before any log is read: the names are the spec's
    add_columns(dict.fromkeys(taken), clash, sf, ("data", "scores", "metadata"))
    files = log_files(sf, source.path)
    wanted = set(source.metrics)
    problems: list[Problem] = []
    seen: dict[tuple[str, str], Path] = {}
    rows: dict[str, list[Any]] = {k: [] for k in ("system", "corpus", "item", "metric", "value", "sample", "file",
                                                   "line")}
    meta: dict[str, list[str]] = {k: [] for k in source.metadata}
    codes: dict[str, dict[str, int]] = {k: {} for k in ("system", "corpus", "item", "metric")}
    left: dict[str, dict[str, Any]] = {}
    digest = hashlib.sha256()
    used: list[str] = []
    found_metrics: set[str] = set()
    total_records = 0
    unfinished: list[str] = []
    for path in files:
        shown = str(path)
        try:
            header, samples, _ = read_log(path)
            ev = header["eval"]
            model, task = str(ev["model"]), str(ev["task"])
        except KeyError as exc:
            problems.append(Problem(shown, None, "", f"{path.name}: not an Inspect log: its header has no {exc}"))
            continue
        except (ValueError, TypeError, zipfile.BadZipFile, OSError) as exc:
            problems.append(Problem(shown, None, "", f"{path.name}: cannot read the Inspect log: {exc}"))
            continue
        if source.tasks is not None and task not in source.tasks:
            continue
        status = header.get("status")
        if status != "success":  # cancelled or failed: its finished samples are read, and the report says so
            error = header.get("error")
            message = str(error.get("message") or "") if isinstance(error, dict) else ""
            unfinished.append(f"{path.name} ({model} on {task}): the log's status is {status!r}, not 'success'"
                              f"{' (' + message[:120] + ')' if message else ''}: the eval did not finish; the sample "
                              "records it holds are read")
        if (model, task) in seen:
            problems.append(Problem(shown, None, "", f"{path.name}: a second log of task {task!r} by model "
                                    f"{model!r} (the first: {seen[(model, task)].name}): keep one, or name the one "
                                    "to read in path"))
            continue
        seen[(model, task)] = path
        digest.update(path.read_bytes())
        file_index = len(used)
        used.append(shown)
        errored, unscored = [], []
        bad = records = 0
        expected = _logged_scores(header) & wanted or wanted  # what a sample of this task should hold
        try:
            for ordinal, sample in enumerate(samples, start=1):
                records = ordinal
                if not _sample_shape(sample):
                    if bad < MAX_ROWS_SHOWN:
                        problems.append(Problem(shown, None, "", f"{path.name}: sample record {ordinal}: not an "
                                                "EvalSample (an id, a whole-number epoch, scores and metadata "
                                                "mappings)"))
                    bad += 1
                    continue
                sid, epoch = sample["id"], sample.get("epoch", 1)
                where = f"sample {sid!r} epoch {epoch}"
                if sample.get("error"):
                    error = sample["error"]
                    errored.append((sid, epoch, str(error.get("message", error) if isinstance(error, dict) else error)))
                    continue
                tags = {}
                for key in source.metadata:
                    held = (sample.get("metadata") or {}).get(key)
                    if not isinstance(held, (str, int, float)) or isinstance(held, bool):
                        if bad < MAX_ROWS_SHOWN:
                            problems.append(Problem(shown, None, "", f"{path.name}: {where}: metadata {key!r} is "
                                                    f"{json.dumps(held)[:60]}, not a text or number "
                                                    "(data.scores.metadata)"))
                        bad += 1
                    tags[key] = str(held)
                values = _scores(sample.get("scores") or {})
                found_metrics.update(values)
                missing = sorted(expected - set(values))
                if missing:
                    unscored.append((sid, epoch, missing))
                for name, value in values.items():
                    if name not in wanted:
                        continue
                    number = value_to_float(value)
                    if number is None:
                        if bad < MAX_ROWS_SHOWN:
                            problems.append(Problem(shown, None, "", f"{path.name}: {where}: score {name!r} is "
                                                    f"{json.dumps(value)[:60]}, not a number, C/I/P/N or yes/no "
                                                    "(Inspect would count it 0 with a warning)"))
                        bad += 1
                        continue
                    rows["system"].append(_code(codes["system"], model))
                    rows["corpus"].append(_code(codes["corpus"], task))
                    rows["item"].append(_code(codes["item"], str(sid)))
                    rows["metric"].append(_code(codes["metric"], name))
                    rows["value"].append(number)
                    rows["sample"].append(int(epoch))
                    rows["file"].append(file_index)
                    rows["line"].append(ordinal)
                    for key in source.metadata:
                        meta[key].append(tags[key])
        except (ValueError, zipfile.BadZipFile, OSError) as exc:
            problems.append(Problem(shown, None, "", f"{path.name}: cannot read the Inspect log: {exc}"))
            continue
        results = header.get("results")
        counted = results.get("total_samples") if isinstance(results, dict) else None
        if isinstance(counted, int) and records < counted:  # samples not logged (--no-log-samples, a trimmed log)
            unfinished.append(f"{path.name} ({model} on {task}): the log holds {records} sample record(s) of the "
                              f"{counted} its results count (run without --no-log-samples to log every one)")
        total_records += records
        if errored or unscored:
            left.setdefault(model, {})[task] = {
                "errored": len(errored), "unscored": len(unscored),
                "samples": [f"{s} (epoch {e})" for s, e, *_ in (errored + unscored)][:MAX_ROWS_SHOWN],
                "first_error": errored[0][2][:200] if errored else None}
    if problems:
        raise DataError(problems[0].file if len(files) == 1 else str(sf.resolve(source.path)), problems)
    if not rows["value"]:
        shown = str(sf.path)
        scores = ", ".join(sorted(found_metrics)) or "none"
        held = (f"their {total_records} sample record(s) hold the scores: {scores}" if total_records else
                "they hold no sample records (logged with --no-log-samples?): per-sample scores are needed")
        raise DataError(shown, [sf.problem(f"no score named {', '.join(map(repr, source.metrics))} in the logs at "
                                           f"{source.path!r}; {held}", "data", "scores", "metrics")])
    columns: dict[str, object] = {
        cols.system: coded(np.asarray(rows["system"]), list(codes["system"])),
        cols.corpus: coded(np.asarray(rows["corpus"]), list(codes["corpus"])),
        cols.item: coded(np.asarray(rows["item"]), list(codes["item"])),
        cols.metric: coded(np.asarray(rows["metric"]), list(codes["metric"])),
        cols.value: numbers(np.asarray(rows["value"], dtype=float))}
    epochs = np.asarray(rows["sample"], dtype=np.int64)
    several = int(epochs.max()) if len(np.unique(epochs)) > 1 else 0
    if source.epochs == "sample" and several and cols.sample != SAMPLE_COLUMN:
        raise DataError(str(sf.path), [sf.problem(
            f"the logs hold up to {several} epochs per question: keep each answer with data.columns.sample: "
            f"{SAMPLE_COLUMN} (the reader's column of epochs; the variance of a mean is then split between and "
            "within questions), or read each question's mean with epochs: mean", "data", "scores")])
    file_of, lines = np.asarray(rows["file"]), np.asarray(rows["line"])
    if source.epochs == "mean":
        columns, file_of, lines = sample_means(columns, cols, file_of, lines)
    else:
        add_columns(columns, {SAMPLE_COLUMN: numbered(epochs)}, sf, ("data", "columns"))
    for key, held in meta.items():
        if source.epochs == "mean":
            held = list(np.asarray(held, dtype=object)[_first_rows(rows)])
        names = sorted(set(held))
        index = {n: i for i, n in enumerate(names)}
        add_columns(columns, {key: coded(np.asarray([index[h] for h in held]), names)}, sf,
                    ("data", "scores", "metadata"))
    table = long_table(f"{source.path} (inspect)", digest.hexdigest(), columns, used, file_of, lines, unit="record")
    info: dict[str, object] = {"format": "inspect", "logs": [Path(f).name for f in used],
                               "answers_per_question": {"count": int(epochs.max()), "kind": "epochs",
                                                        "read_as": source.epochs}}
    warnings = list(unfinished)
    if unfinished:
        info["unfinished_logs"] = [u.split(" ", 1)[0] for u in unfinished]
    if left:
        info["left_out_samples"] = left
        warnings += [_left_note(model, task, n) for model, tasks in left.items() for task, n in tasks.items()]
    if warnings:
        info["warnings"] = warnings
    return table, info


def _logged_scores(header: dict[str, Any]) -> set[str]:
    """The score names the log's results aggregate (each task logs its own scorers), or none."""
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    return {str(s.get("name")) for s in scores if isinstance(s, dict)} if isinstance(scores, list) else set()


def _sample_shape(sample: object) -> bool:
    """Whether a sample record has the fields read here in their EvalSample types."""
    if not isinstance(sample, dict) or not isinstance(sample.get("id"), (str, int)) or isinstance(sample["id"], bool):
        return False
    epoch = sample.get("epoch", 1)
    return (isinstance(epoch, int) and not isinstance(epoch, bool) and 1 <= epoch < 2**31
            and isinstance(sample.get("scores") or {}, dict) and isinstance(sample.get("metadata") or {}, dict))


def _scores(scores: dict[str, Any]) -> dict[str, object]:
    """Metric name -> value of one sample: a scorer's value, or each key of a dict-valued one (named by the key,
    as Inspect's results name them)."""
    out: dict[str, object] = {}
    for scorer, score in scores.items():
        value = score.get("value") if isinstance(score, dict) else None
        if isinstance(value, dict):
            out.update(value)
        else:
            out[scorer] = value
    return out


def _left_note(model: str, task: str, n: dict[str, Any]) -> str:
    parts = []
    if n["errored"]:
        parts.append(f"{n['errored']} errored (first: {n['first_error']})")
    if n["unscored"]:
        parts.append(f"{n['unscored']} without a score the spec analyses")
    return (f"{model} on {task}: {' and '.join(parts)} sample record(s) left out ({', '.join(n['samples'])}"
            f"{', ...' if n['errored'] + n['unscored'] > len(n['samples']) else ''}); a question left out of one "
            "system's log is missing for it")


def _code(index: dict[str, int], name: str) -> int:
    if name not in index:
        index[name] = len(index)
    return index[name]


def _first_rows(rows: dict[str, list[Any]]) -> np.ndarray:
    key = np.stack([np.asarray(rows[k]) for k in ("system", "corpus", "item", "metric")], axis=1)
    _, first = np.unique(key, axis=0, return_index=True)
    return np.sort(first)
