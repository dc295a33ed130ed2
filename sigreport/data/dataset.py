"""``load_data``: every table named in the spec, read, checked and assembled into one Dataset."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from sigreport.data.aggregates import corpus_metric
from sigreport.data.annotations import read_annotations
from sigreport.data.label_tables import Collector
from sigreport.data.model import Block, BlockKey, DataFile, Dataset, LeftOut
from sigreport.data.outcomes import read_outcomes
from sigreport.data.predictions import read_predictions, test_blocks
from sigreport.data.preferences import read_preferences
from sigreport.data.scores import load_scores
from sigreport.data.tables import first_rows
from sigreport.errors import Problem, SpecError, did_you_mean
from sigreport.spec import MetricSpec, SpecFile, TableSource

if TYPE_CHECKING:
    import pandas as pd


def load_data(sf: SpecFile, frames: Mapping[str, pd.DataFrame] | None = None) -> Dataset:
    """Read and check the score table and, when the spec has them, the predictions and annotations.

    ``frames`` (Python API): data frames standing in for the tables the spec names, by role
    (``scores``, ``predictions``, ``annotations``); a frame for a table the spec does not name is an error."""
    frames = dict(frames or {})
    sf = with_frames(sf, frames)
    spec = sf.spec
    if spec.data.scores is None:
        ds = Dataset("", "", tuple(spec.systems or ()), tuple(spec.corpora or ()), (), {}, 0)
    else:
        ds = load_scores(sf, frames.get("scores"))
    if spec.has_labels():
        ds = _with_labels(sf, ds, frames)
    if spec.data.preferences is not None:
        ds = _with_preferences(sf, ds, frames.get("preferences"))
    problems = main_table_problems(sf, ds)
    if problems:
        raise SpecError(str(sf.path), problems)
    return ds


FRAME_STANDS_IN = "<data frame>"  # data.predictions / data.annotations when a data frame stands in for them


def with_frames(sf: SpecFile, frames: Mapping[str, pd.DataFrame]) -> SpecFile:
    """The spec with each data frame given to the Python API standing in for its table, named in the spec or not
    (a data frame needs no path); a SpecError when the data section then lacks what the spec needs."""
    spec = sf.spec
    problems = [sf.problem(message, *path) for path, message in spec.data_problems(frames)]
    if problems:
        raise SpecError(str(sf.path), problems)
    update: dict[str, object] = {}
    if "scores" in frames and spec.data.scores is None:
        update["scores"] = TableSource()
    update.update({role: FRAME_STANDS_IN for role in ("predictions", "annotations", "preferences")
                   if role in frames and getattr(spec.data, role) is None})
    if "outcomes" in frames and spec.data.outcomes is None:
        update["outcomes"] = TableSource()
    if not update:
        return sf
    data = spec.data.model_copy(update=update)
    return dataclasses.replace(sf, spec=spec.model_copy(update={"data": data}))


def main_table_problems(sf: SpecFile, ds: Dataset) -> list[Problem]:
    """outputs.main_table names metrics and corpora that are analysed (known only once the data is read)."""
    opts = sf.spec.outputs.main_table
    out = [sf.problem(f"metric {m!r} is not analysed{did_you_mean(m, ds.metrics)}; known: {', '.join(ds.metrics)}",
                      "outputs", "main_table", "metrics", i)
           for i, m in enumerate(opts.metrics or []) if m not in ds.metrics]
    out += [sf.problem(f"corpus {c!r} is not analysed{did_you_mean(c, ds.corpora)}; known: {', '.join(ds.corpora)}",
                       "outputs", "main_table", "corpora", i)
            for i, c in enumerate(opts.corpora or []) if c not in ds.corpora]
    return out


NAMES_SHOWN = 5  # names listed in a left-out warning; the rest are counted
SINGULAR = {"systems": "system", "corpora": "corpus", "metrics": "metric"}


ROW_NOUNS = {"scores": "score", "predictions": "prediction", "annotations": "annotation", "outcomes": "outcome",
             "preferences": "vote"}


def left_out_warnings(sf: SpecFile, ds: Dataset) -> list[Problem]:
    """One warning per table and axis (``systems``, ``corpora``, ``metrics``) along which a data table has names
    the spec does not list, at the spec's field: which names and how many rows are left out. ``validate`` and
    the build print them (``--strict`` fails on them); the report's settings name them too."""
    out = []
    for lo in ds.left_out:
        table = _file_name(ds, lo.table)
        shown = ", ".join(map(repr, lo.names[:NAMES_SHOWN]) if any("," in n for n in lo.names)
                          else lo.names[:NAMES_SHOWN])  # quoted when a name has a comma (lm-eval's 'metric,filter')
        more = f" and {len(lo.names) - NAMES_SHOWN:,} more" if len(lo.names) > NAMES_SHOWN else ""
        what, verb = (lo.field, "are") if len(lo.names) > 1 else (SINGULAR[lo.field], "is")
        out.append(sf.problem(f"{what} {shown}{more} of {table} {verb} not listed: {lo.rows:,} of "
                              f"{lo.of:,} {ROW_NOUNS[lo.table]} rows left out", lo.field))
    return out


def _file_name(ds: Dataset, table: str) -> str:
    """The file name of a data table, as the warnings show it."""
    path = ds.source if table == "scores" else ds.files[table].file if table in ds.files else ""
    return path.replace("\\", "/").rsplit("/", 1)[-1] or f"the {ROW_NOUNS[table]} table"


def _left_out_of(table: str, total: int, axes: Sequence[tuple[str, Sequence[str] | None, Sequence[str] | None]]
                 ) -> tuple[LeftOut, ...]:
    """The names of each axis ``(field, the rows' names, the names the spec lists)`` that a label table has and
    the spec does not list, with their rows (none along an axis the spec does not list, or the table lacks)."""
    out = []
    for field, cells, listed in axes:
        if not listed or cells is None:
            continue
        names, codes = np.unique(np.asarray(cells, dtype=object).astype(str), return_inverse=True)
        first = first_rows(codes, len(names))
        idle = [k for k in np.argsort(first, kind="stable") if names[k] not in set(listed)]  # in table order
        if idle:
            rows = int(np.isin(codes, idle).sum())
            out.append(LeftOut(field, tuple(str(names[k]) for k in idle), rows, table, total))
    return tuple(out)


def _with_preferences(sf: SpecFile, ds: Dataset, frame: pd.DataFrame | None) -> Dataset:
    """The dataset with the preference votes added (their systems become the dataset's when it has none)."""
    out = Collector(sf)
    table, prefs, left_out = read_preferences(sf, out, frame)
    out.raise_if_any()
    assert table is not None and prefs is not None
    files = {**ds.files, "preferences": DataFile(table.path.name, table.sha256, len(table))}
    return dataclasses.replace(ds, systems=ds.systems or prefs.systems, preferences=prefs, files=files,
                               left_out=ds.left_out + left_out)


def _with_labels(sf: SpecFile, ds: Dataset, frames: Mapping[str, pd.DataFrame]) -> Dataset:
    """The dataset with predictions, annotations and classification test-metric blocks added."""
    spec = sf.spec
    out = Collector(sf)
    agr = spec.agreement
    if agr is not None and agr.systems_vs_gold and spec.data.predictions is None:
        out.add_spec("systems_vs_gold needs data.predictions", "agreement", "systems_vs_gold")
    if agr is not None and agr.level == "nominal":
        for i, m in enumerate(agr.measures or ()):
            if m.startswith("weighted"):
                out.add_spec(f"{m} needs ordered labels: set agreement.level to ordinal (with agreement.order) or "
                             "interval", "agreement", "measures", i)
    files = dict(ds.files)
    left_out = list(ds.left_out)
    preds = ann = None
    if spec.data.predictions is not None:
        table, preds = read_predictions(sf, out, frames.get("predictions"))
        files["predictions"] = DataFile(table.path.name, table.sha256, int(len(table.frame)))
        left_out += () if table.frame is None else _left_out_of("predictions", len(table.frame), [
            ("systems", table.frame.get("system"), spec.systems), ("corpora", table.frame.get("corpus"), spec.corpora)])
    if spec.data.annotations is not None:
        table, ann = read_annotations(sf, out, frames.get("annotations"))
        files["annotations"] = DataFile(table.path.name, table.sha256, int(len(table.frame)))
        left_out += () if table.frame is None else _left_out_of("annotations", len(table.frame), [
            ("corpora", table.frame.get("corpus"), spec.corpora)])
    outcomes = None
    if spec.data.outcomes is not None:
        table, outcomes = read_outcomes(sf, out, frames.get("outcomes"))
        files["outcomes"] = DataFile(table.path.name, table.sha256, len(table))
        cols = spec.data.outcome_columns
        left_out += _left_out_of("outcomes", len(table), [(field, table.cells.get(column), listed)
                                                          for field, column, listed
                                                          in (("systems", cols.system, spec.systems),
                                                              ("corpora", cols.corpus, spec.corpora))])
    out.raise_if_any()
    blocks: dict[BlockKey, Block] = {}
    specs: dict[str, MetricSpec] = {}
    if preds is not None:
        blocks, specs = test_blocks(sf, preds, out, set(ds.metrics))
    out.raise_if_any()
    systems = ds.systems or (preds.systems if preds is not None else outcomes.systems if outcomes is not None else ())
    corpora = list(ds.corpora)
    for source in (preds.corpora if preds is not None else (), [c for c in (ann.groups if ann else {}) if c],
                   outcomes.corpora if outcomes is not None else ()):
        corpora += [c for c in source if c not in corpora]
    return dataclasses.replace(
        ds, systems=tuple(systems), corpora=tuple(corpora), metrics=ds.metrics + tuple(specs),
        blocks={**ds.blocks, **blocks}, metric_specs={**ds.metric_specs, **specs},
        aggregates={**ds.aggregates, **{m: corpus_metric(s, metric=m) for m, s in specs.items()}},
        predictions=preds, annotations=ann, files=files, outcomes=outcomes, left_out=tuple(left_out))
