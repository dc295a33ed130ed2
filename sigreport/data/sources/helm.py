"""HELM run folders as the long score table, read as ``helm-run`` writes them.

``helm-run --suite S`` writes ``benchmark_output/runs/S/<run>/`` per run entry (helm/benchmark/runner.py):
``run_spec.json`` (the run's ``name``, ``scenario_spec``, ``adapter_spec`` with its ``model``, ``groups``),
``scenario_state.json`` (the instances and requests), ``stats.json`` (the aggregated ``Stat``s) and
``per_instance_stats.json``: one ``PerInstanceStats`` per instance and train trial (``instance_id``,
``perturbation``, ``train_trial_index``, ``stats``: a ``Stat`` per metric name with ``count``, ``sum``,
``mean``; helm/benchmark/metrics/metric.py, statistic.py). Here the run's model is the system, its run
entry without the model (``simple_mcqa``, ``mmlu:subject=anatomy``) the corpus, the instance id the item, each
stat name of the chosen split a metric (the instance's mean, ``sum / count``) and the train trial the
``sample`` column (HELM's ``num_train_trials``: the same instance answered with other in-context examples).
With ``corpus: group`` each run's first group (``run_spec.json`` ``groups``: mmlu for every MMLU subject) is the
corpus and its instances are items ``<run entry>/<instance id>``; either way the ``scenario`` column names each
instance's run entry, for data.columns.cluster or stratum. scenario_state.json (the prompts and completions)
is not read. Instances that HELM also scored under a perturbation keep only their unperturbed stats (HELM's headline
numbers), or are refused (``perturbations: refuse``). Per trial, the mean over instances is HELM's
``stats.json`` value of that split (``Metric.evaluate``: the mean of each trial's mean over instances).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.data.sources.long import (add_columns, code_of, coded, first_rows, long_table, numbered, numbers,
                                         sample_means)
from sigreport.data.sources.tables import GLOB_CHARS, glob_matches
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import DataError, Problem
from sigreport.spec import HelmSource, SpecFile

SAMPLE_COLUMN = "sample"  # the train trial: the column data.columns.sample names (its default name)
SCENARIO_COLUMN = "scenario"  # each instance's run entry (mmlu:subject=anatomy): for data.columns.cluster / stratum
MODEL_ARGS = ("model", "model_deployment")  # run-entry arguments that name the system, not the scenario
RUN_FILES = ("run_spec.json", "per_instance_stats.json")


def run_folders(sf: SpecFile, pattern: str) -> list[Path]:
    """The run folders ``path`` names: a suite folder (its run folders), one run folder, or a glob of them."""
    if GLOB_CHARS.search(pattern):
        found = glob_matches(sf, pattern, lambda p: (p / "per_instance_stats.json").is_file())
    else:
        target = sf.resolve(pattern)
        if not target.is_dir():
            raise DataError(str(sf.path), [sf.problem(f"{target} is not a folder (a HELM suite folder, "
                                                      "benchmark_output/runs/<suite>, or a run folder)",
                                                      "data", "scores", "path")])
        found = ([target] if (target / "run_spec.json").is_file() else
                 sorted(p for p in target.iterdir() if p.is_dir() and (p / "run_spec.json").is_file()))
    if not found:
        raise DataError(str(sf.path), [sf.problem(f"no HELM run folder (one with run_spec.json and "
                                                  f"per_instance_stats.json) at {pattern!r} (in {sf.folder})",
                                                  "data", "scores", "path")])
    return found


def corpus_name(run_spec: dict[str, Any]) -> str:
    """The run entry without its model arguments: ``mmlu:subject=anatomy,model=m`` -> ``mmlu:subject=anatomy``."""
    name = str(run_spec["name"])
    scenario, _, args = name.partition(":")
    kept = [a for a in args.split(",") if a and a.split("=", 1)[0] not in MODEL_ARGS]
    return f"{scenario}:{','.join(kept)}" if kept else scenario


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except OSError as exc:
        raise ValueError(f"cannot read: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None


ROW_KEYS = ("system", "corpus", "item", "metric", "value", "sample", "file", "line", "scenario")


@dataclasses.dataclass
class _Read:
    """What the runs read so far hold: the long rows and their codes, the problems and what was left out."""

    rows: dict[str, list[Any]] = dataclasses.field(default_factory=lambda: {k: [] for k in ROW_KEYS})
    codes: dict[str, dict[str, int]] = dataclasses.field(
        default_factory=lambda: {k: {} for k in ("system", "corpus", "item", "metric", "scenario")})
    problems: list[Problem] = dataclasses.field(default_factory=list)
    seen: dict[tuple[str, str], Path] = dataclasses.field(default_factory=dict)
    digest: Any = dataclasses.field(default_factory=hashlib.sha256)
    used: list[str] = dataclasses.field(default_factory=list)
    perturbed: dict[str, int] = dataclasses.field(default_factory=dict)
    found_names: set[str] = dataclasses.field(default_factory=set)
    without: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    elsewhere: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _Run:
    """One run being read: its folder and stats file, model, run entry, corpus, file index and bad entries so far."""

    folder: Path
    stats_path: Path
    model: str
    scenario: str
    corpus: str
    file_index: int
    bad: int = 0


def helm_source(sf: SpecFile, source: HelmSource) -> tuple[Table, dict[str, object]]:
    """The long table of every run's per-instance stats of ``split`` for the spec's metrics."""
    folders = run_folders(sf, source.path)
    read = _Read()
    for folder in folders:
        _read_run(read, folder, source)
    if read.problems:
        raise DataError(read.problems[0].file if len(folders) == 1 else str(sf.resolve(source.path)), read.problems)
    if not read.rows["value"]:
        raise DataError(str(sf.path), [sf.problem(f"no per-instance stat named {', '.join(map(repr, source.metrics))} "
                                                  f"of split {source.split!r} in the runs at {source.path!r}; their "
                                                  f"stats: {', '.join(sorted(read.found_names)) or 'none'}",
                                                  "data", "scores", "metrics")])
    columns, trials, file_of, lines = _columns(sf, source, read)
    table = long_table(f"{source.path} (helm)", read.digest.hexdigest(), columns, read.used, file_of, lines,
                       unit="entry")
    return table, _info(source, read, trials)


def _run_spec(read: _Read, folder: Path, source: HelmSource) -> tuple[str, str, str] | None:
    """A finished run's model, run entry and corpus, or None with the problem recorded."""
    missing = [f for f in RUN_FILES if not (folder / f).is_file()]
    if missing:
        read.problems.append(Problem(str(folder), None, "", f"{folder.name}: no {' or '.join(missing)} in the run "
                                     "folder: the run did not finish (rerun helm-run for it, or leave it out of path)"))
        return None
    spec_path = folder / "run_spec.json"
    try:
        run_spec = _load(spec_path)
        model, scenario = str(run_spec["adapter_spec"]["model"]), corpus_name(run_spec)
        groups = run_spec.get("groups") or [scenario]
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise TypeError("groups is not a list of names")
        corpus = groups[0] if source.corpus == "group" else scenario
    except (ValueError, KeyError, TypeError) as exc:
        read.problems.append(Problem(str(spec_path), None, "", f"{folder.name}/run_spec.json: not a HELM run spec: "
                                     f"{exc}"))
        return None
    return model, scenario, corpus


def _read_run(read: _Read, folder: Path, source: HelmSource) -> None:
    """Adds one run folder's rows to ``read``, or its problems."""
    named = _run_spec(read, folder, source)
    if named is None:
        return
    model, scenario, corpus = named
    if (model, scenario) in read.seen:
        read.problems.append(Problem(str(folder), None, "", f"{folder.name}: a second run of {scenario!r} by model "
                                     f"{model!r} (the first: {read.seen[(model, scenario)].name}): keep one, or name "
                                     "the runs in path"))
        return
    read.seen[(model, scenario)] = folder
    stats_path = folder / "per_instance_stats.json"
    try:
        instances = _load(stats_path)
        if not isinstance(instances, list):
            raise ValueError("not a list of per-instance stats")
    except ValueError as exc:
        read.problems.append(Problem(str(stats_path), None, "", f"{folder.name}/per_instance_stats.json: {exc}"))
        return
    read.digest.update(stats_path.read_bytes())
    run = _Run(folder, stats_path, model, scenario, corpus, len(read.used))
    read.used.append(str(stats_path))
    _read_instances(read, run, instances, source)


def _read_instances(read: _Read, run: _Run, instances: list[Any], source: HelmSource) -> None:
    """Adds a run's per-instance stats of the split as rows, counting the instances left out and why."""
    instance_held: list[set[str]] = []
    run_names: set[str] = set()
    for ordinal, entry in enumerate(instances, start=1):
        where = f"{run.folder.name}/per_instance_stats.json entry {ordinal}"
        try:
            iid, trial, stats = str(entry["instance_id"]), entry.get("train_trial_index", 0), entry["stats"]
            if not isinstance(trial, int) or isinstance(trial, bool) or not 0 <= trial < 2**31:
                raise TypeError("train_trial_index is not a whole number from 0")
            if not isinstance(stats, list) or not all(map(_stat_shape, stats)):
                raise TypeError("stats is not a list of Stat objects")
        except (KeyError, TypeError, ValueError, AttributeError):
            if run.bad < MAX_ROWS_SHOWN:
                read.problems.append(Problem(str(run.stats_path), None, "", f"{where}: not a PerInstanceStats "
                                             "(instance_id, train_trial_index, stats)"))
            run.bad += 1
            continue
        if entry.get("perturbation"):
            _perturbed(read, run, entry, iid, where, source)
            continue
        splits = {(s.get("name") or {}).get("split") for s in stats if isinstance(s, dict)}
        if source.split not in splits:  # an instance of another split (valid): counted, not read
            for other in splits:
                counts = read.elsewhere.setdefault(run.corpus, {})
                counts[str(other)] = counts.get(str(other), 0) + 1
            continue
        instance_held.append(_read_stats(read, run, stats, source, (iid, trial, ordinal), where))
        run_names.update(str(x["name"]["name"]) for x in stats if x["name"].get("split") == source.split)
    wanted = set(source.metrics)
    for held in instance_held:  # an instance of the split without a stat the spec analyses and its run has
        for m in sorted((wanted & run_names) - held):
            counts = read.without.setdefault(f"{run.model} on {run.scenario}", {})
            counts[m] = counts.get(m, 0) + 1


def _perturbed(read: _Read, run: _Run, entry: dict[str, Any], iid: str, where: str, source: HelmSource) -> None:
    """Counts a perturbed instance (left out), a problem too with ``perturbations: refuse``."""
    read.perturbed[run.corpus] = read.perturbed.get(run.corpus, 0) + 1
    if source.perturbations == "refuse" and run.bad < MAX_ROWS_SHOWN:
        kind = entry["perturbation"]
        read.problems.append(Problem(str(run.stats_path), None, "", f"{where}: instance {iid} is perturbed "
                                     f"({kind.get('name', '?') if isinstance(kind, dict) else kind}); "
                                     "perturbations: refuse"))
        run.bad += 1


def _read_stats(read: _Read, run: _Run, stats: list[dict[str, Any]], source: HelmSource,
                place: tuple[str, int, int], where: str) -> set[str]:
    """Adds a row per stat of the split the spec analyses (``place``: instance id, trial, entry); their names."""
    iid, trial, ordinal = place
    wanted = set(source.metrics)
    held = set()
    for stat in stats:
        name = stat.get("name") or {}  # a sub_split (toxic, non-toxic) is the instance's own: read
        if name.get("split") != source.split or name.get("perturbation"):
            continue
        read.found_names.add(str(name.get("name")))
        if name.get("name") not in wanted:
            continue
        count, total = stat.get("count"), stat.get("sum")
        if not isinstance(count, (int, float)) or not isinstance(total, (int, float)) or not count:
            if run.bad < MAX_ROWS_SHOWN:
                read.problems.append(Problem(str(run.stats_path), None, "", f"{where} (instance {iid}): stat "
                                             f"{name.get('name')!r} has count {count!r} and sum {total!r}, not a "
                                             "count above 0 and a number"))
            run.bad += 1
            continue
        held.add(name["name"])
        rows, codes = read.rows, read.codes
        rows["system"].append(code_of(codes["system"], run.model))
        rows["corpus"].append(code_of(codes["corpus"], run.corpus))
        rows["item"].append(code_of(codes["item"], f"{run.scenario}/{iid}" if source.corpus == "group" else iid))
        rows["scenario"].append(code_of(codes["scenario"], run.scenario))
        rows["metric"].append(code_of(codes["metric"], name["name"]))
        rows["value"].append(total / count)
        rows["sample"].append(trial)
        rows["file"].append(run.file_index)
        rows["line"].append(ordinal)
    return held


def _columns(sf: SpecFile, source: HelmSource, read: _Read
             ) -> tuple[dict[str, object], np.ndarray, np.ndarray, np.ndarray]:
    """The table's columns (trials as samples or means, the scenario), the trials and each row's file and line."""
    cols, rows, codes = sf.spec.data.columns, read.rows, read.codes
    trials = np.asarray(rows["sample"], dtype=np.int64)
    if source.trials == "sample" and len(np.unique(trials)) > 1 and cols.sample != SAMPLE_COLUMN:
        raise DataError(str(sf.path), [sf.problem(
            f"the runs hold {len(np.unique(trials))} train trials per instance: keep each with data.columns.sample: "
            f"{SAMPLE_COLUMN} (the reader's column of trials), or read each instance's mean with trials: mean",
            "data", "scores")])
    columns: dict[str, object] = {
        cols.system: coded(np.asarray(rows["system"]), list(codes["system"])),
        cols.corpus: coded(np.asarray(rows["corpus"]), list(codes["corpus"])),
        cols.item: coded(np.asarray(rows["item"]), list(codes["item"])),
        cols.metric: coded(np.asarray(rows["metric"]), list(codes["metric"])),
        cols.value: numbers(np.asarray(rows["value"], dtype=float))}
    file_of, lines = np.asarray(rows["file"]), np.asarray(rows["line"])
    scenarios = np.asarray(rows["scenario"])
    if source.trials == "mean":
        first = first_rows(rows)
        columns, file_of, lines = sample_means(columns, cols, file_of, lines)
        scenarios = scenarios[first]
    else:
        add_columns(columns, {SAMPLE_COLUMN: numbered(trials)}, sf, ("data", "columns"))
    add_columns(columns, {SCENARIO_COLUMN: coded(scenarios, list(codes["scenario"]))}, sf, ("data", "columns"))
    return columns, trials, file_of, lines


def _info(source: HelmSource, read: _Read, trials: np.ndarray) -> dict[str, object]:
    """The source's record for results.json: the runs read, the trials and the instances left out."""
    info: dict[str, object] = {"format": "helm", "runs": [Path(f).parent.name for f in read.used],
                               "split": source.split,
                               "answers_per_question": {"count": len(np.unique(trials)), "kind": "train trials",
                                                        "read_as": source.trials}}
    warnings = []
    if read.perturbed:
        info["perturbed_instances"] = read.perturbed
        warnings += [f"{c}: {n} perturbed instance stats left out (HELM's unperturbed stats are analysed)"
                     for c, n in read.perturbed.items()]
    if read.elsewhere:  # instances of other splits than the one analysed (HELM reports each split apart)
        info["other_splits"] = read.elsewhere
    if read.without:
        info["instances_without_stat"] = read.without
        warnings += [f"{run}: " + ", ".join(f"{n} instance(s) without {m!r}" for m, n in counts.items()) + " left out"
                     for run, counts in read.without.items()]
    if source.corpus == "group":
        info["corpus"] = "group"
    if warnings:
        info["warnings"] = warnings
    return info



def _stat_shape(stat: object) -> bool:
    """Whether a Stat has a MetricName with a text name and a text (or no) split."""
    name = stat.get("name") if isinstance(stat, dict) else None
    return (isinstance(name, dict) and isinstance(name.get("name"), str)
            and isinstance(name.get("split"), (str, type(None))))

