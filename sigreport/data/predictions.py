"""The predictions table (``system, corpus, item, gold, pred``) and classification test metrics.

``read_predictions`` checks the table and turns it into label codes per corpus
(:class:`~sigreport.data.model.Predictions`). ``test_blocks`` turns each
``classification.test_metrics`` name into one :class:`~sigreport.data.model.Block` per corpus, so that
the spec's pairwise and omnibus tests run on classification metrics like on any score metric.

Test metrics and their per-item statistics (summed over items they give the corpus value):

* ``accuracy``: a mean metric of per-item correctness (0/1).
* ``precision``, ``recall``, ``specificity``, ``f<beta>``: of ``classification.positive_label``;
  ``<metric>_<label>``: of that class. precision, recall and specificity are ratios of sums
  (tp / (tp + fp), tp / (tp + fn), tn / (tn + fp)); F-beta is ``f_beta`` over (tp, fp, fn).
* ``<metric>_micro``: the same over the summed one-vs-rest counts of all classes.
* ``<metric>_macro`` / ``_weighted``: the built-in label aggregate ``sigreport.labels:<metric>_<avg>``
  over the 3K statistics (tp, fp, fn of every class); see
  :func:`sigreport.stats.class_counts.averaged_metric`.

All but accuracy are corpus-level metrics: at ``tests.level: items`` only the resampling tests
(bootstrap, permutation, or auto, which picks permutation with the bootstrap's interval for them) apply; another pairwise method is
an error, as it is for corpus-level score metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

import dataclasses
import re

import numpy as np

from sigreport.data.aggregates import LABEL_AGGREGATE_PREFIX, corpus_metric
from sigreport.data.corpora import across_corpora
from sigreport.data.label_tables import (Collector, check_blank, declared_list, listing, read_label_table,
                                         undeclared)
from sigreport.data.model import Block, BlockKey, PredictionGroup, Predictions
from sigreport.data.tables import MAX_ROWS_SHOWN, Table
from sigreport.errors import did_you_mean
from sigreport.spec import ClassificationSpec, MetricSpec, SpecFile
from sigreport.stats import registry
from sigreport.stats.class_counts import one_vs_rest_counts
from sigreport.stats.classification import AVERAGES, f_name

RESERVED_LABELS = AVERAGES  # macro, micro, weighted: metric-name suffixes
BASES = ("precision", "recall", "specificity")
PRED_COLUMNS = {"gold": "gold label", "pred": "predicted label"}


def read_predictions(sf: SpecFile, out: Collector, frame: "pd.DataFrame | None" = None
                     ) -> tuple[Table, Predictions | None]:
    """Read and check ``data.predictions``; problems go to ``out``.

    The steps: read the table and check its rows (:func:`_check_rows`), settle the label list
    (:func:`_label_list`), the systems and corpora (:func:`_systems_and_corpora`), then one
    :class:`PredictionGroup` per corpus (:func:`_prediction_group`). Each step reports every problem it
    finds; the table is returned with None as soon as a step found one.
    """
    spec = sf.spec
    lc = spec.data.label_columns
    wanted = {"system": lc.system, "corpus": lc.corpus, "item": lc.item, "gold": lc.gold, "pred": lc.pred}
    one_corpus = {"corpus": spec.corpora[0]} if spec.corpora is not None and len(spec.corpora) == 1 else {}
    table = read_label_table(sf=sf, relative=spec.data.predictions, field="data.predictions", wanted=wanted,
                             optional={}, mapped=lc != type(lc)(), out=out, frame=frame, constants=one_corpus)
    _check_rows(table, out)
    labels = _label_list(sf, table, out)
    systems, corpora = _systems_and_corpora(sf, table, out)
    if out.data or out.spec:
        return table, None
    groups: dict[str, PredictionGroup] = {}
    for corpus in corpora:
        group = _prediction_group(table, corpus, systems, labels, spec.data.missing, out)
        if group is not None:
            groups[corpus] = group
    if out.data or out.spec:
        return table, None
    return table, Predictions(str(table.path), tuple(labels), tuple(systems), tuple(corpora), groups)


def _check_rows(table: Table, out: Collector) -> None:
    """Blank cells, duplicate (system, corpus, item) rows, and gold labels that differ between systems for the
    same item."""
    df = table.frame
    shown = str(table.path)
    check_blank(table, ["system", "corpus", "item", "gold", "pred"], out,
                 {"gold": "gold label", "pred": "predicted label"})
    dup = df.index[df.duplicated(["system", "corpus", "item"], keep=False) & (df["item"] != "")]
    if len(dup):
        r = df.loc[dup[0]]
        out.add(shown, f"duplicate (system, corpus, item) rows at {table.where(dup)} "
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
        out.add(shown, f"gold labels disagree between systems for the same item at {table.where(rows.index)} "
                f"({len(clash)} item{'s' if len(clash) > 1 else ''}; first: corpus {c0!r}, item {i0!r}: {says})")


def _label_list(sf: SpecFile, table: Table, out: Collector) -> list[str]:
    """The labels in code order: ``classification.labels`` when declared, else ``agreement.order`` when it
    covers every label used, else the labels in order of appearance. Reserved names, labels outside a
    declared list and an unknown ``positive_label`` are reported."""
    spec = sf.spec
    cls = spec.classification or ClassificationSpec()
    agr = spec.agreement
    df = table.frame
    shown = str(table.path)
    used = [x for x in dict.fromkeys(list(df["gold"]) + list(df["pred"])) if x != ""]
    reserved = [x for x in used if x in RESERVED_LABELS]
    if reserved:
        bad = df.index[df["gold"].isin(reserved) | df["pred"].isin(reserved)]
        out.add(shown, f"label{'s' if len(reserved) > 1 else ''} {listing(reserved)} at {table.where(bad)}: "
                "macro, micro and weighted name metric averages, so they cannot be labels; rename them")
    declared = declared_list(cls.labels, out, "classification", "labels")
    if declared is not None:
        undeclared(table, PRED_COLUMNS, declared, "classification.labels", out)
    order = declared_list(agr.order, out, "agreement", "order") if agr is not None and agr.order else None
    if agr is not None and agr.systems_vs_gold and order is not None:
        undeclared(table, PRED_COLUMNS, order, "agreement.order (systems_vs_gold)", out)
    labels = declared if declared is not None else (order if order is not None and set(used) <= set(order)
                                                    else used)
    if cls.positive_label is not None and cls.positive_label not in labels:
        out.add_spec(f"positive_label {cls.positive_label!r} is not a label of {shown}; labels: "
                     f"{', '.join(labels)}", "classification", "positive_label")
    return labels


def _systems_and_corpora(sf: SpecFile, table: Table, out: Collector) -> tuple[list[str], list[str]]:
    """The systems (the spec's, else those present) and corpora (the spec's that are present, else all
    present) analysed; systems, baseline and corpora the spec names but the table lacks are reported."""
    spec = sf.spec
    df = table.frame
    shown = str(table.path)
    present_systems = list(dict.fromkeys(df["system"]))
    present_corpora = list(dict.fromkeys(df["corpus"]))
    systems = list(spec.systems) if spec.systems else present_systems
    for i, s in enumerate(spec.systems or []):
        if s not in present_systems:
            out.add_spec(f"system {s!r} is not in {shown}{did_you_mean(s, present_systems)}; present: "
                         f"{', '.join(present_systems)}", "systems", i)
    if spec.baseline is not None and spec.baseline not in present_systems:
        out.add_spec(f"baseline {spec.baseline!r} is not in {shown}{did_you_mean(spec.baseline, present_systems)}; "
                     f"present: {', '.join(present_systems)}",
                     "baseline")
    corpora = [c for c in spec.corpora if c in present_corpora] if spec.corpora else present_corpora
    if spec.corpora and not corpora:
        out.add_spec(f"none of the corpora is in {shown}; present: {', '.join(present_corpora)}", "corpora")
    return systems, corpora


def _prediction_group(
    table: Table, corpus: str, systems: list[str], labels: list[str], missing: str, out: Collector
) -> PredictionGroup | None:
    """One corpus's gold and predicted label codes (items x systems, codes into the labels occurring there).
    A system without predictions on the corpus, or (``missing: error``) an item some system lacks, is
    reported and gives None; with ``drop_items`` such items are dropped and the labels renumbered."""
    df = table.frame
    shown = str(table.path)
    sys_index = {s: j for j, s in enumerate(systems)}
    sub = df[(df["corpus"] == corpus) & df["system"].isin(sys_index)]
    items = list(dict.fromkeys(sub["item"]))
    absent = [s for s in systems if not (sub["system"] == s).any()]
    if absent:
        out.add(shown, f"system{'s' if len(absent) > 1 else ''} {', '.join(absent)} ha"
                f"{'ve' if len(absent) > 1 else 's'} no predictions on corpus {corpus!r}")
        return None
    occurring = set(sub["gold"]) | set(sub["pred"])
    corpus_labels = tuple(lab for lab in labels if lab in occurring)
    code = {lab: i for i, lab in enumerate(corpus_labels)}
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
        if missing == "error":
            where = list(zip(*np.nonzero(holes)))
            desc = ", ".join(f"{systems[j]} lacks item {items[i]!r}" for i, j in where[:MAX_ROWS_SHOWN])
            more = f" and {len(where) - MAX_ROWS_SHOWN} more" if len(where) > MAX_ROWS_SHOWN else ""
            out.add(shown, f"corpus {corpus!r}: {desc}{more} that another system has (set data.missing: "
                    "drop_items to analyse only the items every system has)")
            return None
        keep = ~holes.any(axis=1)
        dropped = int((~keep).sum())
        pred, gold = pred[keep], gold[keep]
        items = [it for it, k in zip(items, keep) if k]
        corpus_labels, gold, pred = _only_used(corpus_labels, gold, pred)
    return PredictionGroup(corpus, tuple(items), corpus_labels, gold, pred, dropped)


def _only_used(labels: tuple[str, ...], gold: np.ndarray, pred: np.ndarray
               ) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The labels still used once items were dropped, with the codes renumbered into them."""
    used = np.unique(np.concatenate([gold, pred.ravel()]))
    if len(used) == len(labels):
        return labels, gold, pred
    recode = np.full(len(labels), -1, dtype=np.int64)
    recode[used] = np.arange(len(used))
    return tuple(labels[i] for i in used), recode[gold], recode[pred]

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
            if cls.positive_label not in labels:
                return f"{name!r}: the positive label {cls.positive_label!r} is not among the labels ({', '.join(labels)})"
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


def metric_statistics(tm: TestMetric, group: PredictionGroup, labels: tuple[str, ...],
                      cls: ClassificationSpec) -> tuple[MetricSpec, np.ndarray]:
    """MetricSpec and per-item statistics (n_items, k_systems, n_stats) of one test metric."""
    k_labels = len(labels)
    pretty = {"accuracy": "Accuracy", "precision": "Precision", "recall": "Recall",
              "specificity": "Specificity", "f": f"F{cls.beta:g}"}[tm.base]
    if tm.scope == "all":
        stats = group.correct().astype(float)[:, :, None]
        return MetricSpec(label="Accuracy", higher_is_better=True, decimals=4), stats
    tp, fp, fn, tn = (x.astype(float) for x in one_vs_rest_counts(group.gold, group.pred, k_labels))
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


def test_blocks(sf: SpecFile, preds: Predictions, out: Collector, taken: set[str]
                 ) -> tuple[dict[BlockKey, Block], dict[str, MetricSpec]]:
    spec = sf.spec
    cls = spec.classification or ClassificationSpec()
    blocks: dict[BlockKey, Block] = {}
    specs: dict[str, MetricSpec] = {}
    resampling = spec.tests.pairwise == "auto" or \
        "corpus_level" in registry.method("pairwise", spec.tests.pairwise).applies
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
            here = parse_test_metric(name, group.labels, cls)  # label indices into this corpus's labels
            if isinstance(here, str):
                out.add_spec(f"{name!r}: its label does not occur in corpus {corpus!r} (labels there: "
                             f"{', '.join(group.labels)})", "classification", "test_metrics", idx)
                break
            mspec, stats = metric_statistics(here, group, group.labels, cls)
            per_corpus[corpus] = Block(name, corpus, preds.systems, group.items, stats, group.dropped_items)
        if len(per_corpus) < len(preds.corpora):
            continue
        specs[name] = mspec
        if spec.tests.level == "corpora":
            blocks[(name, None)] = across_corpora(name, list(per_corpus.values()), corpus_metric(mspec, metric=name))
            # one value per corpus: analysed as a mean over corpora
            specs[name] = MetricSpec(label=mspec.label, higher_is_better=True, decimals=4)
        else:
            for corpus, b in per_corpus.items():
                blocks[(name, corpus)] = b
    return blocks, specs
