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

import dataclasses
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

from sigreport.data.sources.long import (add_columns, code_of, coded, first_rows, long_table, numbered, numbers,
                                         sample_means)
from sigreport.data.sources.tables import GLOB_CHARS, glob_matches
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
        found = glob_matches(sf, pattern)
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


ROW_KEYS = ("system", "corpus", "item", "metric", "value", "sample", "file", "line")


@dataclasses.dataclass
class _Read:
    """What the logs read so far hold: the long rows and their codes, the problems and what was left out."""

    meta: dict[str, list[str]]
    rows: dict[str, list[Any]] = dataclasses.field(default_factory=lambda: {k: [] for k in ROW_KEYS})
    codes: dict[str, dict[str, int]] = dataclasses.field(
        default_factory=lambda: {k: {} for k in ("system", "corpus", "item", "metric")})
    problems: list[Problem] = dataclasses.field(default_factory=list)
    seen: dict[tuple[str, str], Path] = dataclasses.field(default_factory=dict)
    left: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    digest: Any = dataclasses.field(default_factory=hashlib.sha256)
    used: list[str] = dataclasses.field(default_factory=list)
    found_metrics: set[str] = dataclasses.field(default_factory=set)
    total_records: int = 0
    unfinished: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class _Log:
    """One log being read: its file, model and task, its index among the files read and its bad records so far."""

    path: Path
    model: str
    task: str
    file_index: int
    bad: int = 0


def inspect_source(sf: SpecFile, source: InspectSource) -> tuple[Table, dict[str, object]]:
    """The long table of every log's per-sample scores (the epoch in the ``sample`` column)."""
    _check_metadata_names(sf, source)
    files = log_files(sf, source.path)
    read = _Read(meta={k: [] for k in source.metadata})
    for path in files:
        _read_log(read, path, source)
    if read.problems:
        raise DataError(read.problems[0].file if len(files) == 1 else str(sf.resolve(source.path)), read.problems)
    if not read.rows["value"]:
        raise _no_scores(sf, source, read)
    columns, epochs, file_of, lines = _columns(sf, source, read)
    table = long_table(f"{source.path} (inspect)", read.digest.hexdigest(), columns, read.used, file_of, lines,
                       unit="record")
    return table, _info(source, read, epochs)


def _check_metadata_names(sf: SpecFile, source: InspectSource) -> None:
    """Refuses a metadata key that is a role's column (or the sample column), before any log is read."""
    cols = sf.spec.data.columns
    taken = {cols.system, cols.corpus, cols.item, cols.metric, cols.value} | (
        {SAMPLE_COLUMN} if source.epochs == "sample" else set())
    clash = {k: None for k in source.metadata if k in taken}  # before any log is read: the names are the spec's
    add_columns(dict.fromkeys(taken), clash, sf, ("data", "scores", "metadata"))


def _open_log(read: _Read, path: Path) -> tuple[dict[str, Any], Iterator[dict[str, Any]], str, str] | None:
    """A log's header, samples, model and task, or None with the problem recorded when it cannot be read."""
    shown = str(path)
    try:
        header, samples, _ = read_log(path)
        ev = header["eval"]
        model, task = str(ev["model"]), str(ev["task"])
    except KeyError as exc:
        read.problems.append(Problem(shown, None, "", f"{path.name}: not an Inspect log: its header has no {exc}"))
        return None
    except (ValueError, TypeError, zipfile.BadZipFile, OSError) as exc:
        read.problems.append(Problem(shown, None, "", f"{path.name}: cannot read the Inspect log: {exc}"))
        return None
    return header, samples, model, task


def _read_log(read: _Read, path: Path, source: InspectSource) -> None:
    """Adds one log's rows to ``read``, or its problems; a log of a task not asked for is skipped."""
    shown = str(path)
    opened = _open_log(read, path)
    if opened is None:
        return
    header, samples, model, task = opened
    if source.tasks is not None and task not in source.tasks:
        return
    status = header.get("status")
    if status != "success":  # cancelled or failed: its finished samples are read, and the report says so
        error = header.get("error")
        message = str(error.get("message") or "") if isinstance(error, dict) else ""
        read.unfinished.append(f"{path.name} ({model} on {task}): the log's status is {status!r}, not 'success'"
                               f"{' (' + message[:120] + ')' if message else ''}: the eval did not finish; the "
                               "sample records it holds are read")
    if (model, task) in read.seen:
        read.problems.append(Problem(shown, None, "", f"{path.name}: a second log of task {task!r} by model "
                                     f"{model!r} (the first: {read.seen[(model, task)].name}): keep one, or name "
                                     "the one to read in path"))
        return
    read.seen[(model, task)] = path
    read.digest.update(path.read_bytes())
    log = _Log(path, model, task, len(read.used))
    read.used.append(shown)
    wanted = set(source.metrics)
    expected = _logged_scores(header) & wanted or wanted  # what a sample of this task should hold
    try:
        records, errored, unscored = _read_samples(read, log, samples, source, expected)
    except (ValueError, zipfile.BadZipFile, OSError) as exc:
        read.problems.append(Problem(shown, None, "", f"{path.name}: cannot read the Inspect log: {exc}"))
        return
    _count_records(read, log, header, records, errored, unscored)


def _read_samples(read: _Read, log: _Log, samples: Iterator[dict[str, Any]], source: InspectSource,
                  expected: set[str]) -> tuple[int, list[tuple[Any, Any, str]], list[tuple[Any, Any, list[str]]]]:
    """Adds a log's scored samples as rows: its sample record count, its errored and its unscored samples."""
    errored: list[tuple[Any, Any, str]] = []
    unscored: list[tuple[Any, Any, list[str]]] = []
    records = 0
    for ordinal, sample in enumerate(samples, start=1):
        records = ordinal
        if not _sample_shape(sample):
            if log.bad < MAX_ROWS_SHOWN:
                read.problems.append(Problem(str(log.path), None, "", f"{log.path.name}: sample record {ordinal}: "
                                             "not an EvalSample (an id, a whole-number epoch, scores and metadata "
                                             "mappings)"))
            log.bad += 1
            continue
        sid, epoch = sample["id"], sample.get("epoch", 1)
        where = f"sample {sid!r} epoch {epoch}"
        if sample.get("error"):
            error = sample["error"]
            errored.append((sid, epoch, str(error.get("message", error) if isinstance(error, dict) else error)))
            continue
        tags = _sample_tags(read, log, sample, source, where)
        values = _scores(sample.get("scores") or {})
        read.found_metrics.update(values)
        missing = sorted(expected - set(values))
        if missing:
            unscored.append((sid, epoch, missing))
        _add_scores(read, log, source, values, tags, (sid, epoch, ordinal), where)
    return records, errored, unscored


def _sample_tags(read: _Read, log: _Log, sample: dict[str, Any], source: InspectSource, where: str) -> dict[str, str]:
    """The sample's metadata under each key the spec carries, a problem for each that is not a text or number."""
    tags = {}
    for key in source.metadata:
        held = (sample.get("metadata") or {}).get(key)
        if not isinstance(held, (str, int, float)) or isinstance(held, bool):
            if log.bad < MAX_ROWS_SHOWN:
                read.problems.append(Problem(str(log.path), None, "", f"{log.path.name}: {where}: metadata {key!r} "
                                             f"is {json.dumps(held)[:60]}, not a text or number "
                                             "(data.scores.metadata)"))
            log.bad += 1
        tags[key] = str(held)
    return tags


def _add_scores(read: _Read, log: _Log, source: InspectSource, values: dict[str, object], tags: dict[str, str],
                place: tuple[Any, Any, int], where: str) -> None:
    """Adds a row per score of the sample the spec analyses (``place``: its id, epoch and record number)."""
    sid, epoch, ordinal = place
    wanted = set(source.metrics)
    for name, value in values.items():
        if name not in wanted:
            continue
        number = value_to_float(value)
        if number is None:
            if log.bad < MAX_ROWS_SHOWN:
                read.problems.append(Problem(str(log.path), None, "", f"{log.path.name}: {where}: score {name!r} is "
                                             f"{json.dumps(value)[:60]}, not a number, C/I/P/N or yes/no "
                                             "(Inspect would count it 0 with a warning)"))
            log.bad += 1
            continue
        rows, codes = read.rows, read.codes
        rows["system"].append(code_of(codes["system"], log.model))
        rows["corpus"].append(code_of(codes["corpus"], log.task))
        rows["item"].append(code_of(codes["item"], str(sid)))
        rows["metric"].append(code_of(codes["metric"], name))
        rows["value"].append(number)
        rows["sample"].append(int(epoch))
        rows["file"].append(log.file_index)
        rows["line"].append(ordinal)
        for key in source.metadata:
            read.meta[key].append(tags[key])


def _count_records(read: _Read, log: _Log, header: dict[str, Any], records: int,
                   errored: list[tuple[Any, Any, str]], unscored: list[tuple[Any, Any, list[str]]]) -> None:
    """Records a read log's sample records, the samples its results count but it lacks, and those left out."""
    path, model, task = log.path, log.model, log.task
    results = header.get("results")
    counted = results.get("total_samples") if isinstance(results, dict) else None
    if isinstance(counted, int) and records < counted:  # samples not logged (--no-log-samples, a trimmed log)
        read.unfinished.append(f"{path.name} ({model} on {task}): the log holds {records} sample record(s) of the "
                               f"{counted} its results count (run without --no-log-samples to log every one)")
    read.total_records += records
    if errored or unscored:
        read.left.setdefault(model, {})[task] = {
            "errored": len(errored), "unscored": len(unscored),
            "samples": [f"{s} (epoch {e})" for s, e, *_ in (errored + unscored)][:MAX_ROWS_SHOWN],
            "first_error": errored[0][2][:200] if errored else None}


def _no_scores(sf: SpecFile, source: InspectSource, read: _Read) -> DataError:
    """The error for logs that hold none of the spec's scores, naming the scores they do hold."""
    shown = str(sf.path)
    scores = ", ".join(sorted(read.found_metrics)) or "none"
    held = (f"their {read.total_records} sample record(s) hold the scores: {scores}" if read.total_records else
            "they hold no sample records (logged with --no-log-samples?): per-sample scores are needed")
    return DataError(shown, [sf.problem(f"no score named {', '.join(map(repr, source.metrics))} in the logs at "
                                        f"{source.path!r}; {held}", "data", "scores", "metrics")])


def _columns(sf: SpecFile, source: InspectSource, read: _Read
             ) -> tuple[dict[str, object], np.ndarray, np.ndarray, np.ndarray]:
    """The table's columns (epochs as samples or means, metadata keys), the epochs and each row's file and line."""
    cols, rows, codes = sf.spec.data.columns, read.rows, read.codes
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
    for key, held in read.meta.items():
        if source.epochs == "mean":
            held = list(np.asarray(held, dtype=object)[first_rows(rows)])
        names = sorted(set(held))
        index = {n: i for i, n in enumerate(names)}
        add_columns(columns, {key: coded(np.asarray([index[h] for h in held]), names)}, sf,
                    ("data", "scores", "metadata"))
    return columns, epochs, file_of, lines


def _info(source: InspectSource, read: _Read, epochs: np.ndarray) -> dict[str, object]:
    """The source's record for results.json: the logs read, the epochs, the unfinished logs and samples left out."""
    info: dict[str, object] = {"format": "inspect", "logs": [Path(f).name for f in read.used],
                               "answers_per_question": {"count": int(epochs.max()), "kind": "epochs",
                                                        "read_as": source.epochs}}
    warnings = list(read.unfinished)
    if read.unfinished:
        info["unfinished_logs"] = [u.split(" ", 1)[0] for u in read.unfinished]
    if read.left:
        info["left_out_samples"] = read.left
        warnings += [_left_note(model, task, n) for model, tasks in read.left.items() for task, n in tasks.items()]
    if warnings:
        info["warnings"] = warnings
    return info


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


