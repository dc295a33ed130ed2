"""Reading and checking label tables: system predictions against gold, and annotators' ratings.

``add_label_data(spec_file, dataset)`` reads ``data.predictions`` (long table ``system, corpus, item,
gold, pred``) and ``data.annotations`` (``item, annotator, label``, optionally ``corpus``), checks
them, and returns the dataset with

* ``extra['predictions']``: :class:`Predictions` (label codes per corpus: gold (n,), pred (n, k)),
* ``extra['annotations']``: :class:`Annotations` (ratings per corpus: (n, m) codes, -1 = missing),
* ``extra['files']``: name, sha256 and row count of each file (for results.json ``data``),
* one :class:`~sigreport.data.Block` per ``classification.test_metrics`` entry and corpus, so that
  the spec's pairwise and omnibus tests run on classification metrics like on any score metric.

Every problem is reported at once, naming the file and its first offending lines, as
:mod:`sigreport.data` does. No statistics here (per-item sufficient statistics are counts).

Test metrics and their per-item statistics (summed over items they give the corpus value):

* ``accuracy``: a mean metric of per-item correctness (0/1).
* ``precision``, ``recall``, ``specificity``, ``f<beta>``: of ``classification.positive_label``;
  ``<metric>_<label>``: of that class. precision, recall and specificity are ratios of sums
  (tp / (tp + fp), tp / (tp + fn), tn / (tn + fp)); F-beta is ``f_beta`` over (tp, fp, fn).
* ``<metric>_micro``: the same over the summed one-vs-rest counts of all classes.
* ``<metric>_macro`` / ``_weighted``: the built-in label aggregate ``sigreport.labels:<metric>_<avg>``
  over the 3K statistics (tp, fp, fn of every class); see :func:`averaged_metric`. Averages leave
  out classes whose metric is 0/0, as :mod:`sigreport.stats.classification` does.

All but accuracy are corpus-level metrics: at ``tests.level: items`` only the resampling tests
(bootstrap, permutation, or auto, which picks bootstrap for them) apply; another pairwise method is
an error, as it is for corpus-level score metrics.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from sigreport.data import MAX_ROWS_SHOWN, Block, Dataset, read_table
from sigreport.errors import DataError, Problem
from sigreport.spec import AgreementSpec, ClassificationSpec, MetricSpec, SpecFile
from sigreport.stats.classification import AVERAGES, f_name
from sigreport.stats.resampling import CorpusMetric

RESERVED_LABELS = AVERAGES  # macro, micro, weighted: metric-name suffixes
BASES = ("precision", "recall", "specificity")
LABEL_AGGREGATE_PREFIX = "sigreport.labels:"
PRED_COLUMNS = {"gold": "gold label", "pred": "predicted label"}


# -------------------------------------------------------------------------------------------- shapes


@dataclasses.dataclass(frozen=True)
class PredictionGroup:
    """One corpus: ``gold[i]`` and ``pred[i, j]`` are label codes of item i (system j)."""

    corpus: str
    items: tuple[str, ...]
    gold: np.ndarray
    pred: np.ndarray
    dropped_items: int = 0

    def correct(self) -> np.ndarray:
        """(n_items, k_systems) booleans: system j predicted item i's gold label."""
        return self.pred == self.gold[:, None]


@dataclasses.dataclass(frozen=True)
class Predictions:
    source: str
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    groups: dict[str, PredictionGroup]


@dataclasses.dataclass(frozen=True)
class AnnotationGroup:
    """One corpus (``None``: the table has no corpus column): ratings (n_items, n_annotators), -1 = missing.

    ``annotators`` are those with at least one rating in this group.
    """

    corpus: str | None
    items: tuple[str, ...]
    annotators: tuple[str, ...]
    ratings: np.ndarray


@dataclasses.dataclass(frozen=True)
class Annotations:
    source: str
    labels: tuple[str, ...]
    values: tuple[float, ...] | None  # numeric value of each label (interval level)
    annotators: tuple[str, ...]
    groups: dict[str | None, AnnotationGroup]


# -------------------------------------------------------------------------------------------- helpers


def _line_numbers(path: Path, index: pd.Index) -> list[int]:
    offset = 1 if path.suffix.lower() in (".jsonl", ".ndjson") else 2
    return [int(i) + offset for i in index]


def _rows(path: Path, index: pd.Index) -> str:
    lines = _line_numbers(path, index)
    shown = ", ".join(str(x) for x in lines[:MAX_ROWS_SHOWN])
    more = f" and {len(lines) - MAX_ROWS_SHOWN} more" if len(lines) > MAX_ROWS_SHOWN else ""
    return f"line{'s' if len(lines) > 1 else ''} {shown}{more}"


def _listing(values: list[str], limit: int = 8) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _Collector:
    """Problems found in one file (``source``) and in the spec."""

    def __init__(self, sf: SpecFile):
        self.sf = sf
        self.data: list[tuple[str, Problem]] = []
        self.spec: list[Problem] = []

    def add(self, source: str, message: str) -> None:
        self.data.append((source, Problem(source, None, "", message)))

    def add_spec(self, message: str, *path: object) -> None:
        self.spec.append(self.sf.problem(message, *path))

    def raise_if_any(self) -> None:
        if not self.data and not self.spec:
            return
        sources = {s for s, _ in self.data}
        if not self.spec and len(sources) == 1:
            raise DataError(sources.pop(), [p for _, p in self.data])
        problems = list(self.spec)
        for source, p in self.data:
            problems.append(Problem(source, None, "", f"{Path(source).name}: {p.message}"))
        raise DataError(str(self.sf.path), problems)


def _read(sf: SpecFile, relative: str, field: str, wanted: dict[str, str], optional: dict[str, str],
          mapped: bool) -> tuple[Path, pd.DataFrame]:
    path = sf.resolve(relative)
    shown = str(path)
    df = read_table(path, str(sf.path), field)
    missing = [c for c in wanted.values() if c not in df.columns]
    if missing:
        raise DataError(shown, [Problem(shown, 1, "", f"missing column{'s' if len(missing) > 1 else ''} "
                                        f"{', '.join(repr(m) for m in missing)}; present: "
                                        f"{', '.join(repr(str(c)) for c in df.columns)}"
                                        + (" (mapped in data.label_columns)" if mapped else ""))])
    cols = {**wanted, **{k: v for k, v in optional.items() if v in df.columns}}
    df = df[list(cols.values())].rename(columns={v: k for k, v in cols.items()})
    df = df.apply(lambda s: s.str.strip())
    if df.empty:
        raise DataError(shown, [Problem(shown, None, "", "the table has no rows")])
    return path, df


def _check_blank(path: Path, df: pd.DataFrame, keys: list[str], out: _Collector, what: dict[str, str]) -> None:
    for key in keys:
        blank = df.index[df[key] == ""]
        if len(blank):
            out.add(str(path), f"empty {what.get(key, repr(key))} at {_rows(path, blank)}")


def _declared(values: list[str] | None, out: _Collector, *path: object) -> list[str] | None:
    if values is None:
        return None
    dup = sorted({v for v in values if values.count(v) > 1})
    if dup:
        out.add_spec(f"listed more than once: {', '.join(dup)}", *path)
    return list(dict.fromkeys(values))


def _undeclared(path: Path, df: pd.DataFrame, columns: dict[str, str], declared: list[str], where: str,
                out: _Collector) -> None:
    """Labels outside the declared set, each with its first lines. ``columns``: column -> what it holds."""
    allowed = set(declared)
    for col, what in columns.items():
        bad = df[(df[col] != "") & ~df[col].isin(allowed)]
        if bad.empty:
            continue
        labels = list(dict.fromkeys(bad[col]))
        out.add(str(path), f"{what}{'s' if len(labels) > 1 else ''} {_listing(labels)} at "
                f"{_rows(path, bad.index)} {'are' if len(labels) > 1 else 'is'} not in {where} "
                f"({', '.join(declared)})")


# -------------------------------------------------------------------------------------------- predictions


def read_predictions(sf: SpecFile, out: _Collector) -> tuple[Path, pd.DataFrame, Predictions | None]:
    """Read and check ``data.predictions``; problems go to ``out``."""
    spec = sf.spec
    cls = spec.classification or ClassificationSpec()
    agr = spec.agreement
    lc = spec.data.label_columns
    wanted = {"system": lc.system, "corpus": lc.corpus, "item": lc.item, "gold": lc.gold, "pred": lc.pred}
    path, df = _read(sf, spec.data.predictions, "data.predictions", wanted, {},
                     mapped=lc != type(lc)())
    shown = str(path)
    _check_blank(path, df, ["system", "corpus", "item", "gold", "pred"], out,
                 {"gold": "gold label", "pred": "predicted label"})
    dup = df.index[df.duplicated(["system", "corpus", "item"], keep=False) & (df["item"] != "")]
    if len(dup):
        r = df.loc[dup[0]]
        out.add(shown, f"duplicate (system, corpus, item) rows at {_rows(path, dup)} "
                f"(first: {r.system}, {r.corpus}, {r['item']})")
    # gold labels must be the same for every system
    filled = df[df["gold"] != ""]
    n_gold = filled.groupby(["corpus", "item"], sort=False)["gold"].nunique()
    clash = n_gold[n_gold > 1]
    if len(clash):
        keys = set(clash.index)
        rows = filled[[k in keys for k in zip(filled["corpus"], filled["item"])]]
        c0, i0 = clash.index[0]
        first = rows[(rows["corpus"] == c0) & (rows["item"] == i0)]
        says = ", ".join(f"{s} says {g!r}" for s, g in zip(first["system"], first["gold"]))
        out.add(shown, f"gold labels disagree between systems for the same item at {_rows(path, rows.index)} "
                f"({len(clash)} item{'s' if len(clash) > 1 else ''}; first: corpus {c0!r}, item {i0!r}: {says})")
    used = [x for x in dict.fromkeys(list(df["gold"]) + list(df["pred"])) if x != ""]
    reserved = [x for x in used if x in RESERVED_LABELS]
    if reserved:
        bad = df.index[df["gold"].isin(reserved) | df["pred"].isin(reserved)]
        out.add(shown, f"label{'s' if len(reserved) > 1 else ''} {_listing(reserved)} at {_rows(path, bad)}: "
                "macro, micro and weighted name metric averages, so they cannot be labels; rename them")
    declared = _declared(cls.labels, out, "classification", "labels")
    if declared is not None:
        _undeclared(path, df, PRED_COLUMNS, declared, "classification.labels", out)
    order = _declared(agr.order, out, "agreement", "order") if agr is not None and agr.order else None
    if agr is not None and agr.systems_vs_gold and order is not None:
        _undeclared(path, df, PRED_COLUMNS, order, "agreement.order (systems_vs_gold)", out)
    labels = declared if declared is not None else (order if order is not None and set(used) <= set(order)
                                                    else used)
    if cls.positive_label is not None and cls.positive_label not in labels:
        out.add_spec(f"positive_label {cls.positive_label!r} is not a label of {shown}; labels: "
                     f"{', '.join(labels)}", "classification", "positive_label")

    present_systems = list(dict.fromkeys(df["system"]))
    present_corpora = list(dict.fromkeys(df["corpus"]))
    systems = list(spec.systems) if spec.systems else present_systems
    for i, s in enumerate(spec.systems or []):
        if s not in present_systems:
            out.add_spec(f"system {s!r} is not in {shown}; present: {', '.join(present_systems)}", "systems", i)
    if spec.baseline is not None and spec.baseline not in present_systems:
        out.add_spec(f"baseline {spec.baseline!r} is not in {shown}; present: {', '.join(present_systems)}",
                     "baseline")
    corpora = [c for c in spec.corpora if c in present_corpora] if spec.corpora else present_corpora
    if spec.corpora and not corpora:
        out.add_spec(f"none of the corpora is in {shown}; present: {', '.join(present_corpora)}", "corpora")
    if out.data or out.spec:
        return path, df, None

    code = {lab: i for i, lab in enumerate(labels)}
    sys_index = {s: j for j, s in enumerate(systems)}
    groups: dict[str, PredictionGroup] = {}
    for corpus in corpora:
        sub = df[(df["corpus"] == corpus) & df["system"].isin(sys_index)]
        items = list(dict.fromkeys(sub["item"]))
        absent = [s for s in systems if not (sub["system"] == s).any()]
        if absent:
            out.add(shown, f"system{'s' if len(absent) > 1 else ''} {', '.join(absent)} ha"
                    f"{'ve' if len(absent) > 1 else 's'} no predictions on corpus {corpus!r}")
            continue
        item_index = {it: i for i, it in enumerate(items)}
        pred = np.full((len(items), len(systems)), -1, dtype=np.int64)
        rows_i = sub["item"].map(item_index).to_numpy()
        rows_j = sub["system"].map(sys_index).to_numpy()
        pred[rows_i, rows_j] = sub["pred"].map(code).to_numpy()
        gold = np.full(len(items), -1, dtype=np.int64)
        gold[rows_i] = sub["gold"].map(code).to_numpy()
        holes = pred < 0
        dropped = 0
        if holes.any():
            if spec.data.missing == "error":
                where = list(zip(*np.nonzero(holes)))
                desc = ", ".join(f"{systems[j]} lacks item {items[i]!r}" for i, j in where[:MAX_ROWS_SHOWN])
                more = f" and {len(where) - MAX_ROWS_SHOWN} more" if len(where) > MAX_ROWS_SHOWN else ""
                out.add(shown, f"corpus {corpus!r}: {desc}{more} that another system has (set data.missing: "
                        "drop_items to analyse only the items every system has)")
                continue
            keep = ~holes.any(axis=1)
            dropped = int((~keep).sum())
            pred, gold = pred[keep], gold[keep]
            items = [it for it, k in zip(items, keep) if k]
        groups[corpus] = PredictionGroup(corpus, tuple(items), gold, pred, dropped)
    if out.data or out.spec:
        return path, df, None
    return path, df, Predictions(shown, tuple(labels), tuple(systems), tuple(corpora), groups)


# -------------------------------------------------------------------------------------------- annotations


def _as_number(x: str) -> float | None:
    try:
        v = float(x)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_annotations(sf: SpecFile, out: _Collector) -> tuple[Path, pd.DataFrame, Annotations | None]:
    """Read and check ``data.annotations``; problems go to ``out``."""
    spec = sf.spec
    agr = spec.agreement or AgreementSpec()
    lc = spec.data.label_columns
    wanted = {"item": lc.item, "annotator": lc.annotator, "label": lc.label}
    path, df = _read(sf, spec.data.annotations, "data.annotations", wanted, {"corpus": lc.corpus},
                     mapped=lc != type(lc)())
    shown = str(path)
    has_corpus = "corpus" in df.columns
    keys = (["corpus"] if has_corpus else []) + ["item", "annotator"]
    _check_blank(path, df, keys + ["label"], out,
                 {"label": "label (leave the row out for a missing rating)"})
    dup = df.index[df.duplicated(keys, keep=False)]
    if len(dup):
        r = df.loc[dup[0]]
        out.add(shown, f"duplicate ({', '.join(keys)}) rows at {_rows(path, dup)} "
                f"(first: {', '.join(str(r[k]) for k in keys)})")
    annotators = [a for a in dict.fromkeys(df["annotator"]) if a != ""]
    if len(annotators) < 2:
        who = f" ({annotators[0]!r})" if annotators else ""
        out.add(shown, f"only one annotator{who} in column {lc.annotator!r}: agreement needs two or more "
                "annotators rating the same items")
    used = [x for x in dict.fromkeys(df["label"]) if x != ""]
    order = _declared(agr.order, out, "agreement", "order")
    values: tuple[float, ...] | None = None
    if order is not None:
        _undeclared(path, df, {"label": "label"}, order, "agreement.order", out)
        labels = order
    else:
        labels = used
    if agr.level == "interval":
        nums = {lab: _as_number(lab) for lab in labels}
        bad_labels = [lab for lab, v in nums.items() if v is None]
        if bad_labels:
            bad = df.index[df["label"].isin(bad_labels)]
            out.add(shown, f"agreement.level is interval, but label{'s' if len(bad_labels) > 1 else ''} "
                    f"{_listing(bad_labels)} at {_rows(path, bad)} {'are' if len(bad_labels) > 1 else 'is'} "
                    "not a number")
        elif order is None:
            labels = sorted(labels, key=lambda lab: nums[lab])
        if not bad_labels:
            values = tuple(float(nums[lab]) for lab in labels)  # type: ignore[arg-type]
            if len(set(values)) != len(values):
                out.add(shown, "agreement.level is interval, but some labels are the same number written "
                        "differently (e.g. 1 and 1.0); write each value one way")
    present_corpora = list(dict.fromkeys(df["corpus"])) if has_corpus else []
    if out.data or out.spec:
        return path, df, None

    corpora: list[str | None]
    if has_corpus:
        corpora = [c for c in spec.corpora if c in present_corpora] if spec.corpora else present_corpora
        if not corpora:
            out.add_spec(f"none of the corpora is in {shown}; present: {', '.join(present_corpora)}", "corpora")
            return path, df, None
    else:
        corpora = [None]
    code = {lab: i for i, lab in enumerate(labels)}
    groups: dict[str | None, AnnotationGroup] = {}
    for corpus in corpora:
        sub = df[df["corpus"] == corpus] if corpus is not None else df
        items = list(dict.fromkeys(sub["item"]))
        who = [a for a in annotators if (sub["annotator"] == a).any()]
        ratings = np.full((len(items), len(who)), -1, dtype=np.int64)
        ratings[sub["item"].map({it: i for i, it in enumerate(items)}).to_numpy(),
                sub["annotator"].map({a: j for j, a in enumerate(who)}).to_numpy()] = sub["label"].map(code).to_numpy()
        groups[corpus] = AnnotationGroup(corpus, tuple(items), tuple(who), ratings)
    return path, df, Annotations(shown, tuple(labels), values, tuple(annotators), groups)


# -------------------------------------------------------------------------------------------- test metrics


@dataclasses.dataclass(frozen=True)
class TestMetric:
    """How one ``classification.test_metrics`` name becomes per-item statistics."""

    name: str
    base: str  # accuracy, precision, recall, specificity, f
    scope: str  # 'all' (accuracy), 'class', 'micro', 'macro', 'weighted'
    label_index: int | None = None


def parse_test_metric(name: str, labels: tuple[str, ...], cls: ClassificationSpec) -> TestMetric | str:
    """A :class:`TestMetric`, or the reason (a message) why ``name`` is not one."""
    if name == "accuracy":
        return TestMetric(name, "accuracy", "all")
    fname = f_name(cls.beta)
    bases = {**{b: b for b in BASES}, fname: "f"}
    other_f = re.fullmatch(r"f(\d+(?:\.\d+)?)(_.*)?", name)
    for pub, base in bases.items():
        if name == pub:
            if cls.positive_label is None:
                return (f"{name!r} is the {pub} of the positive class: set classification.positive_label "
                        f"(or name a class: {pub}_<label>, or an average: {pub}_macro)")
            return TestMetric(name, base, "class", labels.index(cls.positive_label))
        if name.startswith(pub + "_"):
            rest = name[len(pub) + 1:]
            if rest in AVERAGES:
                return TestMetric(name, base, rest)
            if rest in labels:
                return TestMetric(name, base, "class", labels.index(rest))
            return (f"{name!r}: {rest!r} is neither an average (macro, micro, weighted) nor a label "
                    f"({', '.join(labels)})")
    if other_f is not None:
        return (f"{name!r}: the F-measure here is {fname} (classification.beta = {cls.beta:g}); "
                f"write {fname}{other_f.group(2) or ''}")
    return (f"{name!r} is not a classification metric; known: accuracy, precision, recall, specificity, {fname}, "
            "each also _macro, _micro, _weighted or _<label>")


def _class_counts(group: PredictionGroup, k_labels: int) -> tuple[np.ndarray, ...]:
    """Per-item one-vs-rest indicators tp, fp, fn, tn of shape (n, k_systems, K)."""
    classes = np.arange(k_labels)
    g = (group.gold[:, None, None] == classes)  # (n, 1, K)
    p = (group.pred[:, :, None] == classes)  # (n, k, K)
    tp = g & p
    fp = ~g & p
    fn = g & ~p
    tn = ~g & ~p
    return tp, fp, fn, tn


def metric_statistics(tm: TestMetric, group: PredictionGroup, labels: tuple[str, ...],
                      cls: ClassificationSpec) -> tuple[MetricSpec, np.ndarray]:
    """MetricSpec and per-item statistics (n_items, k_systems, n_stats) of one test metric."""
    k_labels = len(labels)
    pretty = {"accuracy": "Accuracy", "precision": "Precision", "recall": "Recall",
              "specificity": "Specificity", "f": f"F{cls.beta:g}"}[tm.base]
    if tm.scope == "all":
        stats = group.correct().astype(float)[:, :, None]
        return MetricSpec(label="Accuracy", higher_is_better=True, decimals=4), stats
    tp, fp, fn, tn = (x.astype(float) for x in _class_counts(group, k_labels))
    if tm.scope in ("class", "micro"):
        if tm.scope == "class":
            c = tm.label_index
            tp, fp, fn, tn = tp[..., c], fp[..., c], fn[..., c], tn[..., c]
            which = f"class {labels[c]!r}"
        else:
            tp, fp, fn, tn = tp.sum(-1), fp.sum(-1), fn.sum(-1), tn.sum(-1)
            which = "micro-averaged"
        label = f"{pretty} ({which})"
        if tm.base == "f":
            return (MetricSpec(label=label, higher_is_better=True, decimals=4, aggregate="f_beta",
                               statistics=["tp", "fp", "fn"], beta=cls.beta), np.stack([tp, fp, fn], axis=-1))
        num, den, names = {"precision": (tp, tp + fp, ["tp", "tp+fp"]), "recall": (tp, tp + fn, ["tp", "tp+fn"]),
                           "specificity": (tn, tn + fp, ["tn", "tn+fp"])}[tm.base]
        return (MetricSpec(label=label, higher_is_better=True, decimals=4, aggregate="ratio", statistics=names),
                np.stack([num, den], axis=-1))
    stats = np.concatenate([tp, fp, fn], axis=-1)
    names = [f"{kind}:{lab}" for kind in ("tp", "fp", "fn") for lab in labels]
    shown = pretty if tm.base == "f" else pretty.lower()
    label = f"{'Macro' if tm.scope == 'macro' else 'Weighted'} {shown}"
    agg = f"{LABEL_AGGREGATE_PREFIX}{tm.base}_{tm.scope}"
    return (MetricSpec(label=label, higher_is_better=True, decimals=4, aggregate=agg, statistics=names,
                       beta=cls.beta), stats)


def averaged_metric(m: MetricSpec) -> CorpusMetric:
    """Built-in label aggregate ``sigreport.labels:<base>_<macro|weighted>`` over 3K statistics.

    Statistics: tp of every class, then fp of every class, then fn of every class (K classes);
    tn = n_items - tp - fp - fn. Macro: mean over the classes whose metric is defined (not 0/0);
    weighted: mean over those classes weighted by gold support tp + fn. This is
    :mod:`sigreport.stats.classification`'s definition (scikit-learn's with ``zero_division=nan``);
    tests/test_labels.py checks the two agree.
    """
    from sigreport.metrics import AggregateImportError

    name = m.aggregate[len(LABEL_AGGREGATE_PREFIX):]
    base, _, avg = name.rpartition("_")
    if base not in (*BASES, "f") or avg not in ("macro", "weighted"):
        raise AggregateImportError(f"unknown label aggregate {m.aggregate!r}; known: sigreport.labels:"
                                   "<precision|recall|specificity|f>_<macro|weighted>")
    n_stats = len(m.statistics or ())
    if n_stats == 0 or n_stats % 3:
        raise AggregateImportError(f"label aggregate {m.aggregate!r} needs 3K statistics (tp, fp, fn per class)")
    k = n_stats // 3
    b2 = float(m.beta) ** 2

    def value(totals: np.ndarray, n_items: int) -> np.ndarray:
        tp, fp, fn = totals[..., :k], totals[..., k:2 * k], totals[..., 2 * k:]
        tn = n_items - tp - fp - fn
        num, den = {"precision": (tp, tp + fp), "recall": (tp, tp + fn), "specificity": (tn, tn + fp),
                    "f": ((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)}[base]
        defined = den > 0
        per_class = np.where(defined, num / np.where(defined, den, 1.0), 0.0)
        w = np.where(defined, 1.0 if avg == "macro" else tp + fn, 0.0)
        wsum = w.sum(axis=-1)
        return np.where(wsum > 0, (per_class * w).sum(axis=-1) / np.where(wsum > 0, wsum, 1.0), np.nan)

    return CorpusMetric(m.aggregate, n_stats, value, tuple(m.statistics or ()))


def _test_blocks(sf: SpecFile, preds: Predictions, out: _Collector, taken: set[str]
                 ) -> tuple[dict[tuple[str, str | None], Block], dict[str, MetricSpec]]:
    spec = sf.spec
    cls = spec.classification or ClassificationSpec()
    blocks: dict[tuple[str, str | None], Block] = {}
    specs: dict[str, MetricSpec] = {}
    resampling = spec.tests.pairwise in ("bootstrap", "permutation", "auto")
    if cls.test_metrics and spec.tests.design != "items":
        out.add_spec(f"classification test metrics need tests.design: items (the predictions have items, not "
                     f"folds); given: {spec.tests.design}", "tests", "design")
        return blocks, specs
    if spec.tests.level == "corpora" and cls.test_metrics and len(preds.corpora) < 2:
        out.add_spec(f"level corpora needs two or more corpora; {preds.source} has {len(preds.corpora)}",
                     "tests", "level")
        return blocks, specs
    for idx, name in enumerate(dict.fromkeys(cls.test_metrics)):
        tm = parse_test_metric(name, preds.labels, cls)
        if isinstance(tm, str):
            out.add_spec(tm, "classification", "test_metrics", idx)
            continue
        if name in taken:
            out.add_spec(f"{name!r} is also a metric of data.scores; rename one of them", "classification",
                         "test_metrics", idx)
            continue
        if tm.base != "accuracy" and not resampling and spec.tests.level == "items":
            out.add_spec(f"{name!r} is a corpus-level metric (computed from summed counts): only bootstrap and "
                         f"permutation apply, not {spec.tests.pairwise} (set tests.pairwise, or keep accuracy "
                         "alone in classification.test_metrics)", "classification", "test_metrics", idx)
            continue
        per_corpus = {}
        for corpus in preds.corpora:
            group = preds.groups[corpus]
            mspec, stats = metric_statistics(tm, group, preds.labels, cls)
            per_corpus[corpus] = Block(name, corpus, preds.systems, group.items, stats, group.dropped_items)
        specs[name] = mspec
        if spec.tests.level == "corpora":
            from sigreport.metrics import corpus_metric

            fn = corpus_metric(mspec)
            values = np.array([fn.value(b.stats.sum(axis=0), b.stats.shape[0]) for b in per_corpus.values()])
            dropped = sum(b.dropped_items for b in per_corpus.values())
            blocks[(name, None)] = Block(name, None, preds.systems, preds.corpora, values[:, :, None], dropped,
                                         "corpora")
            # one value per corpus: analysed as a mean over corpora
            specs[name] = MetricSpec(label=mspec.label, higher_is_better=True, decimals=4)
        else:
            for corpus, b in per_corpus.items():
                blocks[(name, corpus)] = b
    return blocks, specs


# -------------------------------------------------------------------------------------------- entry point


def add_label_data(sf: SpecFile, ds: Dataset) -> Dataset:
    """The dataset with predictions, annotations and classification test-metric blocks added."""
    spec = sf.spec
    out = _Collector(sf)
    agr = spec.agreement
    if agr is not None and agr.systems_vs_gold and spec.data.predictions is None:
        out.add_spec("systems_vs_gold needs data.predictions", "agreement", "systems_vs_gold")
    if agr is not None and agr.level == "nominal":
        for i, m in enumerate(agr.measures or ()):
            if m.startswith("weighted"):
                out.add_spec(f"{m} needs ordered labels: set agreement.level to ordinal (with agreement.order) or "
                             "interval", "agreement", "measures", i)
    files: dict[str, object] = dict(ds.extra.get("files", {}))  # type: ignore[arg-type]
    preds = ann = None
    if spec.data.predictions is not None:
        path, df, preds = read_predictions(sf, out)
        files["predictions"] = {"file": path.name, "sha256": _sha256(path), "rows": int(len(df))}
    if spec.data.annotations is not None:
        path, df, ann = read_annotations(sf, out)
        files["annotations"] = {"file": path.name, "sha256": _sha256(path), "rows": int(len(df))}
    out.raise_if_any()
    blocks: dict[tuple[str, str | None], Block] = {}
    specs: dict[str, MetricSpec] = {}
    if preds is not None:
        blocks, specs = _test_blocks(sf, preds, out, set(ds.metrics))
    out.raise_if_any()
    systems = ds.systems or (preds.systems if preds is not None else ())
    corpora = list(ds.corpora)
    for source in (preds.corpora if preds is not None else (), [c for c in (ann.groups if ann else {}) if c]):
        corpora += [c for c in source if c not in corpora]
    return dataclasses.replace(
        ds, systems=tuple(systems), corpora=tuple(corpora), metrics=ds.metrics + tuple(specs),
        blocks={**ds.blocks, **blocks}, metric_specs={**ds.metric_specs, **specs},
        extra={**ds.extra, "predictions": preds, "annotations": ann, "files": files})
