"""Analyses: the bridge between a spec's choices and the pure statistics.

Each analysis kind has a frozen result type whose fields are exactly its results.json fields
(the contract in README "results.json") and a small function that computes it from a data block by
calling :mod:`sigreport.stats`. :func:`nodes_for` turns a spec into plan nodes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np

from sigreport.data import Block, Dataset
from sigreport.data.aggregates import corpus_metric
from sigreport.plan import AnalysisNode
from sigreport.spec import MetricSpec, Spec, TestsSpec
from sigreport.stats import correction, cv, omnibus, pairwise, posthoc, rank, resampling, select
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none

DEFAULT_PRECISION = 12
SMALL_BOOTSTRAP_N = 50  # below this the calibration study (docs/calibration.md) finds the bootstrap test liberal


@dataclasses.dataclass(frozen=True)
class SystemSummary:
    system: str
    n: int
    mean: float | None
    sd: float | None
    median: float | None
    ci_low: float | None
    ci_high: float | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class DescriptivesAnalysis:
    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    ci_level: float
    n_items: int
    dropped_items: int
    aggregate: str
    systems: tuple[SystemSummary, ...]
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class PairEntry:
    """One row of a pairwise matrix: the test of a vs b, corrected over the family."""

    a: str
    b: str
    n: int
    statistic: float | None
    df: float | None
    pvalue: float | None
    pvalue_adjusted: float | None
    significant: bool | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    critical_value: float | None
    effect_size: EffectSize | None
    warnings: tuple[str, ...]
    extra: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class PairwiseAnalysis:
    """kind 'pairwise' (items or corpora) or 'cv' (cross-validation designs)."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    alternative: str
    comparisons: str
    correction: str
    family: str
    family_size: int
    alpha: float
    ci_level: float
    pairs: tuple[PairEntry, ...]
    selection: dict[str, Any] | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class OmnibusAnalysis:
    """kind 'omnibus', method 'rm_anova'."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    n: int
    k: int
    statistic: float | None
    df1: float | None
    df2: float | None
    pvalue: float | None
    sphericity: Any
    corrections: dict[str, Any]
    correction_applied: str | None
    correction_reason: str
    pvalue_corrected: float | None
    significant: bool | None
    effect_size: EffectSize | None
    selection: dict[str, Any] | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class FriedmanAnalysis:
    """kind 'omnibus', method 'friedman' (Demšar 2006)."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    n: int
    k: int
    statistic: float | None
    df: float | None
    pvalue: float | None
    tie_correction: bool
    statistic_uncorrected: float | None
    statistic_tie_corrected: float | None
    average_ranks: dict[str, float | None]
    iman_davenport: Any
    kendall_w: float | None
    significant: bool | None
    selection: dict[str, Any] | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class PosthocEntry:
    a: str
    b: str
    statistic: float | None
    rank_difference: float | None
    pvalue: float | None
    pvalue_adjusted: float | None
    significant: bool | None


@dataclasses.dataclass(frozen=True)
class PosthocAnalysis:
    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    after: str
    omnibus_significant: bool | None
    critical_difference: float | None
    q_alpha: float | None
    control: str | None
    alpha: float
    average_ranks: dict[str, float | None]
    pairs: tuple[PosthocEntry, ...]
    selection: dict[str, Any] | None
    warnings: tuple[str, ...]


# -------------------------------------------------------------------------------------------- helpers


def analysis_id(metric: str, corpus: str | None, kind: str) -> str:
    return f"{metric}/{corpus if corpus is not None else '*'}/{kind}"


def derived_seed(seed: int, node_id: str) -> int:
    """A per-analysis seed from the spec's seed and the analysis id: independent streams, same every run."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{node_id}".encode()).digest()[:8], "little")


def selection_dict(sel: select.Selection, previous: str | None = None, pinned: bool = False) -> dict[str, Any]:
    steps = [dataclasses.asdict(s) for s in sel.steps]
    d = {"method": sel.method, "steps": steps, "reason": sel.reason}
    if previous is not None:
        d["previous_method"] = previous
        d["pinned"] = pinned
    return d


def system_pairs(block: Block, tests: TestsSpec, baseline: str | None) -> list[tuple[int, int]]:
    """all_pairs: (i, j), i < j in table order; vs_baseline: (system, baseline) for every other system."""
    if tests.comparisons == "vs_baseline" and baseline is not None:
        c = block.systems.index(baseline)
        return [(i, c) for i in range(len(block.systems)) if i != c]
    return list(itertools.combinations(range(len(block.systems)), 2))


@dataclasses.dataclass(frozen=True)
class Context:
    """What every analysis function needs besides its block."""

    spec: Spec
    metric: MetricSpec
    previous: Mapping[str, Any]  # analysis id -> previous results.json entry (selection: fixed)
    aggregate: Any  # the metric's CorpusMetric

    @property
    def tests(self) -> TestsSpec:
        return self.spec.tests

    @property
    def alpha(self) -> float:
        return self.spec.alpha

    @property
    def decimals(self) -> int:
        return self.metric.precision if self.metric.precision is not None else DEFAULT_PRECISION


def _pinned(ctx: Context, node_id: str, chosen: select.Selection) -> tuple[str, dict[str, Any], list[str]]:
    """Apply ``selection: fixed``: reuse the previous report's method; say when the choice would differ."""
    prev = ctx.previous.get(node_id)
    prev_method = prev.get("method") if isinstance(prev, dict) else None
    warnings = []
    if prev_method is not None and prev_method != chosen.method:
        if ctx.tests.selection == "fixed":
            warnings.append(f"selection is fixed: {prev_method} kept from the previous report, although the automatic "
                            f"choice would now be {chosen.method} ({chosen.reason})")
            return prev_method, selection_dict(chosen, prev_method, True), warnings
        warnings.append(f"the automatic choice changed since the previous report: {chosen.method} now, "
                        f"{prev_method} before")
    return chosen.method, selection_dict(chosen, prev_method, False), warnings


# -------------------------------------------------------------------------------------------- analyses


def describe_block(block: Block, node_id: str, ctx: Context) -> DescriptivesAnalysis:
    rows = []
    warnings = []
    if ctx.metric.corpus_level:
        metric_fn = ctx.aggregate
        res = resampling.paired_resampling(block.stats, metric_fn, [], "bootstrap", ctx.tests.resamples,
                                           derived_seed(ctx.spec.seed, node_id))
        for system, (value, lo, hi) in zip(block.systems, res.system_ci):
            rows.append(SystemSummary(system, block.stats.shape[0], value, None, None, lo, hi, ()))
        warnings += list(res.warnings)
        warnings.append(f"corpus-level metric ({ctx.metric.aggregate}): the value is computed from summed per-item "
                        f"statistics; the CI is a percentile bootstrap over items (B = {ctx.tests.resamples})")
    else:
        for j, system in enumerate(block.systems):
            d = pairwise.describe(block.scores[:, j], 0.95)
            rows.append(SystemSummary(system, d.n, d.mean, d.sd, d.median, d.ci_low, d.ci_high, d.warnings))
    if block.dropped_items:
        warnings.append(f"{block.dropped_items} item(s) dropped because some system lacks them (data.missing: drop_items)")
    return DescriptivesAnalysis(node_id, "descriptives", block.metric, block.corpus, block.level, 0.95,
                                block.stats.shape[0], block.dropped_items, ctx.metric.aggregate, tuple(rows),
                                tuple(warnings))


def _pair_tests(block: Block, pairs: list[tuple[int, int]], method: str, ctx: Context, node_id: str
                ) -> tuple[list[PairedTestResult], list[str]]:
    t = ctx.tests
    x = block.scores
    if method == "paired_t":
        return [pairwise.paired_t(x[:, i], x[:, j], t.alternative, ctx.alpha) for i, j in pairs], []
    if method == "wilcoxon":
        return [rank.wilcoxon(x[:, i], x[:, j], t.alternative, t.zero_method, ctx.decimals, ctx.alpha)
                for i, j in pairs], []
    if method == "sign":
        return [rank.sign_test(x[:, i], x[:, j], t.alternative, ctx.decimals, ctx.alpha) for i, j in pairs], []
    if method in ("bootstrap", "permutation"):
        res = resampling.paired_resampling(block.stats, ctx.aggregate, pairs, method, t.resamples,
                                           derived_seed(ctx.spec.seed, node_id), t.alternative,
                                           ci_method=t.ci_method, alpha=ctx.alpha)
        warnings = [_system_names(w, block.systems) for w in res.warnings]
        if method == "bootstrap" and block.stats.shape[0] < SMALL_BOOTSTRAP_N:
            warnings.append(f"only {block.stats.shape[0]} items: the null-shifted bootstrap test is liberal at small n "
                            "(type I error about 0.07 at n = 20, docs/calibration.md); the permutation test holds "
                            "its level")
        return list(res.pairs), warnings
    raise ValueError(f"unknown pairwise method {method!r}")


def _system_names(warning: str, systems: tuple[str, ...]) -> str:
    """The engine names systems by index ('system 3'); reports name them."""
    import re

    return re.sub(r"\bsystem (\d+)\b", lambda m: f"system {systems[int(m.group(1))]}"
                  if int(m.group(1)) < len(systems) else m.group(0), warning)


def family_entries(block: Block, pairs: list[tuple[int, int]], results: list[PairedTestResult], corr: str,
                   alpha: float, extra_of: Any = None) -> tuple[PairEntry, ...]:
    """Adjust the family's p-values and build the rows."""
    raw = np.array([np.nan if r.pvalue is None else r.pvalue for r in results])
    adjusted = correction.adjust(raw, corr)
    entries = []
    for (i, j), r, p_adj in zip(pairs, results, adjusted):
        p_adj_v = finite_or_none(p_adj)
        entries.append(PairEntry(block.systems[i], block.systems[j], r.n, r.statistic, r.df, r.pvalue, p_adj_v,
                                 None if p_adj_v is None else bool(p_adj_v <= alpha), r.estimate, r.ci_low, r.ci_high,
                                 r.critical_value, r.effect_size, r.warnings, dict(r.extra)))
    return tuple(entries)


def pairwise_block(block: Block, node_id: str, ctx: Context) -> PairwiseAnalysis:
    t = ctx.tests
    pairs = system_pairs(block, t, ctx.spec.baseline)
    warnings: list[str] = []
    if len(block.systems) < 2:
        warnings.append("fewer than two systems: nothing to compare")
    method = t.pairwise
    sel = None
    if method == "auto":
        if ctx.metric.corpus_level:
            chosen = select.Selection("bootstrap", (select.SelectionStep(
                "metric", None, None, f"chosen: corpus-level metric ({ctx.metric.aggregate}): only resampling "
                "tests apply"),), "bootstrap: the metric is computed from summed statistics, not per item")
        else:
            diffs = np.column_stack([block.scores[:, i] - block.scores[:, j] for i, j in pairs]) if pairs else \
                np.zeros((block.scores.shape[0], 0))
            chosen = select.choose_pairwise(diffs, ctx.alpha, empty_ok=True,
                                            labels=[f"{block.systems[i]} vs {block.systems[j]}" for i, j in pairs])
        method, sel, w = _pinned(ctx, node_id, chosen)
        warnings += w
    results, w = _pair_tests(block, pairs, method, ctx, node_id)
    warnings += w
    entries = family_entries(block, pairs, results, t.correction, ctx.alpha)
    ci_level = results[0].ci_level if results else 0.95
    return PairwiseAnalysis(node_id, "pairwise", block.metric, block.corpus, block.level, method, t.alternative,
                            t.comparisons, t.correction, t.family, len(entries), ctx.alpha, ci_level, entries, sel,
                            tuple(warnings))


CV_DEFAULTS = {"5x2cv": ["5x2cv_t", "5x2cv_f"], "kfold": ["kfold_t"], "resampled": ["corrected_resampled_t"]}


def cv_block(block: Block, node_id: str, ctx: Context, method: str) -> PairwiseAnalysis:
    """Cross-validation tests for every pair (Dietterich 1998; Alpaydin 1999; Nadeau and Bengio 2003)."""
    t = ctx.tests
    pairs = system_pairs(block, t, ctx.spec.baseline)
    x = block.scores
    warnings: list[str] = []
    repeats = sorted({r for r, _ in block.folds or ()}, key=_natural)
    folds = sorted({f for _, f in block.folds or ()}, key=_natural)
    grid = None
    if len(repeats) * len(folds) == x.shape[0]:
        order = {key: i for i, key in enumerate(block.folds or ())}
        idx = [[order.get((r, f), -1) for f in folds] for r in repeats]
        if all(i >= 0 for row in idx for i in row):
            grid = np.asarray(idx)
    results = []
    for i, j in pairs:
        a, b = x[:, i], x[:, j]
        if method in ("5x2cv_t", "5x2cv_f"):
            if grid is None or grid.shape != (5, 2):
                why = f"{method} needs 5 repeats x 2 folds; the data has {len(repeats)} x {len(folds)}"
                results.append(_failed_cv(method, t.alternative, why))
                continue
            a2, b2 = a[grid], b[grid]
            r = cv.dietterich_5x2cv_t(a2, b2, t.alternative, ctx.alpha) if method == "5x2cv_t" else \
                cv.alpaydin_5x2cv_f(a2, b2, ctx.alpha)
        elif method == "kfold_t":
            r = cv.kfold_paired_t(a, b, t.alternative, ctx.alpha)
        elif method == "corrected_resampled_t":
            r = cv.corrected_resampled_t(a, b, t.n_train, t.n_test, t.alternative, ctx.alpha)
        else:
            r = cv.resampled_t(a, b, t.alternative, ctx.alpha)
        results.append(r)
    as_pairs = [PairedTestResult(r.method, int(r.n_folds * r.n_repeats), r.statistic,
                                 r.df if r.df is not None else None, r.pvalue, r.alternative, r.estimate, r.ci_low,
                                 r.ci_high, r.ci_level, r.critical_value, None, r.warnings,
                                 {"df1": r.df1, "df2": r.df2, "n_folds": r.n_folds, "n_repeats": r.n_repeats})
                for r in results]
    entries = family_entries(block, pairs, as_pairs, t.correction, ctx.alpha)
    return PairwiseAnalysis(node_id, "cv", block.metric, block.corpus, block.level, method, t.alternative,
                            t.comparisons, t.correction, t.family, len(entries), ctx.alpha, 0.95, entries, None,
                            tuple(warnings))


def _natural(s: str) -> tuple[int, Any]:
    return (0, int(s)) if s.isdigit() else (1, s)


def _failed_cv(method: str, alternative: str, why: str) -> Any:
    return cv.CVTestResult(method, None, None, None, None, None, alternative, None, None, None, 0.95, None, 0, 0,
                           (why,))


def omnibus_block(block: Block, node_id: str, ctx: Context) -> OmnibusAnalysis | FriedmanAnalysis:
    t = ctx.tests
    method = t.omnibus
    sel = None
    warnings: list[str] = []
    if method == "auto":
        method, sel, warnings = _pinned(ctx, node_id, select.choose_omnibus(block.scores, ctx.alpha, empty_ok=True))
    if method == "friedman":
        f = omnibus.friedman(block.scores, ctx.metric.higher_is_better, t.tie_correction)
        ranks = {s: finite_or_none(r) for s, r in zip(block.systems, f.average_ranks)}
        return FriedmanAnalysis(node_id, "omnibus", block.metric, block.corpus, block.level, "friedman", f.n, f.k,
                                f.statistic, f.df, f.pvalue, f.tie_correction, f.statistic_uncorrected,
                                f.statistic_tie_corrected, ranks, f.iman_davenport, f.kendall_w,
                                None if f.pvalue is None else bool(f.pvalue <= ctx.alpha), sel,
                                tuple(warnings) + tuple(f.warnings))
    res = omnibus.rm_anova(block.scores)
    decision = omnibus.apply_sphericity(res, t.sphericity, ctx.alpha)
    p_corr = finite_or_none(decision.pvalue_corrected)
    return OmnibusAnalysis(
        node_id, "omnibus", block.metric, block.corpus, block.level, "rm_anova", res.n, res.k, res.statistic,
        res.df1, res.df2, res.pvalue, res.sphericity, dict(res.corrections), decision.correction_applied,
        decision.reason, p_corr, None if p_corr is None else bool(p_corr <= ctx.alpha), res.effect_size, sel,
        tuple(warnings) + tuple(res.warnings))


def posthoc_block(block: Block, node_id: str, ctx: Context, om: Any, pw: Any) -> PosthocAnalysis | PairwiseAnalysis | None:
    """The post-hoc test that fits the omnibus result ``om`` (or the spec's explicit choice).

    None when the post-hoc would repeat the pairwise analysis ``pw`` (paired t tests with the same
    correction after RM-ANOVA): the report then points at the pairwise table.
    """
    t = ctx.tests
    if om is None:
        return None
    baseline = ctx.spec.baseline
    method = t.posthoc
    sel = None
    if method == "auto":
        chosen = select.posthoc_for(om.method, t.comparisons if baseline else "all_pairs", correction=t.correction)
        method, sel = chosen.method, selection_dict(chosen)
    if method == "paired" and pw is not None and pw.method == "paired_t":
        return None
    if method == "paired":
        pairs = system_pairs(block, t, baseline)
        results = [pairwise.paired_t(block.scores[:, i], block.scores[:, j], t.alternative, ctx.alpha)
                   for i, j in pairs]
        entries = family_entries(block, pairs, results, t.correction, ctx.alpha)
        return PairwiseAnalysis(node_id, "posthoc", block.metric, block.corpus, block.level, "paired_t",
                                t.alternative, t.comparisons, t.correction, t.family, len(entries), ctx.alpha, 0.95,
                                entries, sel, ())
    ranks = getattr(om, "average_ranks", None)
    if ranks is None:
        f = omnibus.friedman(block.scores, ctx.metric.higher_is_better, t.tie_correction)
        ranks = {s: finite_or_none(r) for s, r in zip(block.systems, f.average_ranks)}
    r = np.array([np.nan if v is None else v for v in ranks.values()])
    n = block.scores.shape[0]
    warnings = []
    if not np.all(np.isfinite(r)) or n < 2:  # fewer than two items: the omnibus result carries the warning
        return None
    control = block.systems.index(baseline) if baseline is not None else None
    if method in ("bonferroni_dunn", "holm", "hochberg") and control is None:
        warnings.append(f"{method} compares with a control system; no baseline is set, so Nemenyi is used")
        method = "nemenyi"
    if method == "nemenyi":
        res = posthoc.nemenyi(r, n, ctx.alpha)
    elif method == "bonferroni_dunn":
        res = posthoc.bonferroni_dunn(r, n, control, ctx.alpha)
    else:
        res = posthoc.rank_step(r, n, control, method, ctx.alpha)
    pairs = tuple(PosthocEntry(block.systems[p.a], block.systems[p.b], p.statistic, p.rank_difference, p.pvalue,
                               p.pvalue_adjusted, p.significant) for p in res.pairs)
    return PosthocAnalysis(node_id, "posthoc", block.metric, block.corpus, block.level, res.method, om.method,
                           om.significant, res.critical_difference, res.q_alpha,
                           None if res.control is None else block.systems[res.control], ctx.alpha, dict(ranks), pairs,
                           sel, tuple(warnings) + tuple(res.warnings))


# -------------------------------------------------------------------------------------------- the plan


def nodes_for(spec: Spec, dataset: Dataset, previous: Mapping[str, Any] | None = None) -> list[AnalysisNode]:
    """Plan nodes for every metric and corpus of the dataset."""
    nodes: list[AnalysisNode] = []
    tests = spec.tests
    prev = previous or {}
    for (metric, corpus), block in dataset.blocks.items():
        mspec = dataset.metric_specs[metric]
        ctx = Context(spec, mspec, prev, dataset.aggregates.get(metric) or corpus_metric(mspec))
        did = analysis_id(metric, corpus, "descriptives")
        nodes.append(AnalysisNode(did, "descriptives", metric, corpus, (),
                                  lambda ds, _, b=block, i=did, c=ctx: describe_block(b, i, c), "per-system summary"))
        if block.level == "folds":
            for method in tests.cv_methods or CV_DEFAULTS[tests.design]:
                cid = analysis_id(metric, corpus, f"cv-{method}")
                nodes.append(AnalysisNode(cid, "cv", metric, corpus, (did,),
                                          lambda ds, _, b=block, i=cid, c=ctx, m=method: cv_block(b, i, c, m),
                                          f"{method}, {tests.alternative}, {tests.correction}"))
            continue
        pid = analysis_id(metric, corpus, "pairwise")
        nodes.append(AnalysisNode(pid, "pairwise", metric, corpus, (did,),
                                  lambda ds, _, b=block, i=pid, c=ctx: pairwise_block(b, i, c),
                                  f"{tests.pairwise}, {tests.alternative}, {tests.correction}"))
        if len(block.systems) >= 3 and tests.omnibus != "none" and not mspec.corpus_level:
            oid = analysis_id(metric, corpus, "omnibus")
            nodes.append(AnalysisNode(oid, "omnibus", metric, corpus, (did,),
                                      lambda ds, _, b=block, i=oid, c=ctx: omnibus_block(b, i, c),
                                      f"{tests.omnibus}, sphericity {tests.sphericity}"
                                      if tests.omnibus != "friedman" else "friedman"))
            if tests.posthoc != "none":
                hid = analysis_id(metric, corpus, "posthoc")
                nodes.append(AnalysisNode(hid, "posthoc", metric, corpus, (oid, pid),
                                          lambda ds, deps, b=block, i=hid, c=ctx, o=oid, w=pid:
                                          posthoc_block(b, i, c, deps[o], deps[w]), f"{tests.posthoc}"))
    from sigreport.analyses_labels import label_nodes

    nodes += label_nodes(spec, dataset)
    return nodes


def results_json(spec: Spec, dataset: Dataset, results: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The results.json document (schema_version 1): stable field names, nulls for what is not computable."""
    from sigreport.stats.result import to_jsonable

    analyses = []
    for r in results.values():
        if r is None:
            continue
        d = to_jsonable(r)
        if "pairs" in d:
            d["pairs"] = [_flatten_extra(p) for p in d["pairs"]]
        analyses.append(d)
    return {
        "schema_version": 1,
        "sigreport_version": version,
        "title": spec.title,
        "alpha": spec.alpha,
        "seed": spec.seed,
        "data": data_info(dataset),
        "systems": list(dataset.systems),
        "corpora": list(dataset.corpora),
        "metrics": {k: {"label": m.label or k, "higher_is_better": m.higher_is_better, "decimals": m.decimals,
                        "aggregate": m.aggregate}
                    for k, m in dataset.metric_specs.items()},
        "tests": spec.tests.model_dump(),
        "analyses": analyses,
    }


def data_info(dataset: Dataset) -> dict[str, Any]:
    info = {"scores": dataset.source.rsplit("/", 1)[-1] if dataset.source else None,
            "sha256": dataset.sha256 or None, "rows": dataset.n_rows}
    for key, value in sorted(dataset.files.items()):
        info[key] = value.as_dict()
    return info


def _flatten_extra(pair: dict[str, Any]) -> dict[str, Any]:
    extra = pair.pop("extra", None) or {}
    for k, v in extra.items():
        pair.setdefault(k, v)
    return pair
