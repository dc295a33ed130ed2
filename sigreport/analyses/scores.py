"""Score analyses: descriptives, pairwise families, cross-validation tests, omnibus and post-hoc tests of one
metric on one corpus (or across corpora), from a data block by calling :mod:`sigreport.stats`.

:func:`score_nodes` turns the spec's choices for one block into plan nodes; each node's function
(``run_*``) is module-level and its parameters (:class:`ScoreParams`) are plain frozen data.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from sigreport.analyses.common import (SHARED_RESAMPLES, analysis_id, derived_seed, family_entries, pinned,
                                       resample_seed, choice_of, system_pairs)
from sigreport.analyses.runs import runs_block
from sigreport.data import Block
from sigreport.data.samples import uneven_answers
from sigreport.plan import Node
from sigreport.results.records import (AnswerVariance, AutomaticChoice, BayesianPair, BayesianRecord, DescriptivesRecord,
                                       FriedmanRecord, ModelChoice, PairRow, PairwiseRecord, PosthocRecord, PosthocRow,
                                       RMAnovaRecord, SystemSummary)
from sigreport.spec import MetricSpec, Spec, TestsSpec
from sigreport.stats import (bayes, leaderboard, omnibus, pairwise, posthoc, proportion, registry, resampling, samples,
                             select)
from sigreport.stats.declaration import CVInput, OmnibusInput, PairwiseInput, PosthocInput
from sigreport.stats.differences import describe_differences_many
from sigreport.stats.result import PairedTestResult, finite_or_none, is_significant

DEFAULT_PRECISION = 12


@dataclasses.dataclass(frozen=True)
class ScoreParams:
    """A score analysis's parameters: plain, frozen data (they enter the node's content key)."""

    tests: TestsSpec
    alpha: float
    seed: int
    baseline: str | None
    metric: MetricSpec
    previous_method: str | None = None  # the previous report's choice for this analysis (selection)
    cv_method: str | None = None
    ci_level: float = 0.95  # the level of every interval (Spec.interval_level: tests.ci_level, else 1 - alpha)

    @property
    def decimals(self) -> int:
        return self.metric.precision if self.metric.precision is not None else DEFAULT_PRECISION


@dataclasses.dataclass(frozen=True)
class Context:
    """A score analysis at run time: its parameters and the metric's aggregate (from the dataset)."""

    params: ScoreParams
    aggregate: Any

    def __getattr__(self, name: str) -> Any:
        return getattr(self.params, name)


# -------------------------------------------------------------------------------------------- analyses


def describe_block(block: Block, node_id: str, ctx: Context) -> DescriptivesRecord:
    rows = []
    warnings = []
    if ctx.metric.corpus_level:
        metric_fn = ctx.aggregate
        res = resampled(block, metric_fn, [], "bootstrap", ctx, ci_level=ctx.ci_level)
        for system, (value, lo, hi) in zip(block.systems, res.system_ci):
            rows.append(SystemSummary(system=system, n=block.stats.shape[0], mean=value, sd=None, median=None,
                                      ci_low=lo, ci_high=hi, warnings=()))
        warnings += list(res.warnings)
        warnings.append(f"corpus-level metric ({ctx.metric.aggregate}): the value is computed from summed per-item "
                        f"statistics; the CI is a percentile bootstrap over items (B = {ctx.tests.resamples})")
        ci_method = "bootstrap_percentile"
    else:
        described = pairwise.describe_columns(block.scores, ctx.ci_level)
        ci_method = "t"
        bounds = None
        binary = is_proportion(block, ctx)
        if binary and block.cluster_codes is None:
            ci_method = ctx.tests.proportion_ci
            bounds, w = proportion_bounds(block.scores, ctx.ci_level, ci_method)
            warnings += w
        for k, (system, d) in enumerate(zip(block.systems, described)):
            lo, hi = (d.ci_low, d.ci_high) if bounds is None else bounds[k]
            # a proportion has an interval from one item on: only the SD is undefined there
            own = d.warnings if bounds is None or d.n != 1 else ("only one item: the standard deviation is undefined",)
            rows.append(SystemSummary(system=system, n=d.n, mean=d.mean, sd=d.sd, median=d.median, ci_low=lo,
                                      ci_high=hi, warnings=own))
        if block.cluster_codes is not None:
            rows, note = clustered_rows(block, rows, ctx.ci_level)
            ci_method = "cluster_t"
            if binary:  # the note's last clause says how the intervals were made: here the proportion interval's
                rows, how = clustered_proportion_rows(rows, ctx.ci_level, ctx.tests.proportion_ci)
                note = note[:note.rindex("; intervals are")] + "; " + how
                ci_method = ctx.tests.proportion_ci
            warnings.append(note)
        if macro(block, ctx) is not None:
            rows, note = macro_rows(block, rows, ctx.ci_level)
            warnings.append(note)
            ci_method = "stratified_t"
        designed = block.cluster_codes is not None or macro(block, ctx) is not None
        if designed and len(block.systems) >= 3 and ctx.tests.omnibus != "none":
            warnings.append("the omnibus and post-hoc tests are not run: they treat items as independent, which "
                            "clustered items and strata are not; the pairwise family (corrected) compares every pair")
        if block.runs is not None and designed:
            warnings.append("the runs analysis (two-level bootstrap, almost stochastic order) is not run: it "
                            "resamples independent items, which clustered items and strata are not; the tests "
                            "over items use each system's scores averaged over its runs")
    if block.dropped_items:
        warnings.append(f"{block.dropped_items} item(s) dropped because some system lacks them (data.missing: drop_items)")
    answers: tuple[AnswerVariance, ...] = ()
    if block.samples is not None:
        answers = answer_variance(block)
        uneven = uneven_answers(block)
        warnings += [uneven] if uneven else []
    return DescriptivesRecord(answers=answers, id=node_id, kind="descriptives", metric=block.metric, corpus=block.corpus,
                              level=block.level, ci_level=ctx.ci_level, n_items=block.stats.shape[0],
                              dropped_items=block.dropped_items, aggregate=ctx.metric.aggregate, systems=tuple(rows),
                              warnings=tuple(warnings), ci_method=ci_method)


def answer_variance(block: Block) -> tuple[AnswerVariance, ...]:
    """Miller's (2024, sec. 4) parts of each system's variance of the mean, from the answers of every question
    (:func:`sigreport.stats.samples.variance_components`, all systems at once)."""
    assert block.samples is not None
    counts = (~np.isnan(block.samples)).sum(axis=2)
    vc = samples.variance_components(block.samples)
    double = vc.se_with(2 * vc.k_mean)
    return tuple(AnswerVariance(
        system=system, questions=int(vc.n[j]), answers_min=int(counts[:, j].min()), answers_max=int(counts[:, j].max()),
        answers_mean=float(vc.k_mean[j]), sigma_b2=finite_or_none(vc.sigma_b2[j]), sigma_w2=finite_or_none(vc.sigma_w2[j]),
        se=finite_or_none(vc.se[j]), se_double_answers=finite_or_none(double[j]),
        se_infinite_answers=finite_or_none(vc.se_infinite_k[j])) for j, system in enumerate(block.systems))


def is_proportion(block: Block, ctx: Context) -> bool:
    """A binary metric on items: ``metrics.M.binary`` when the spec says, else detected (every per-item score of
    the block 0 or 1). Not for corpus-level metrics, nor scores averaged over runs or folds, nor across corpora."""
    if ctx.metric.corpus_level or block.level != "items" or block.runs is not None or block.samples is not None:
        return False
    return ctx.metric.binary if ctx.metric.binary is not None else proportion.is_binary(block.scores)


def proportion_bounds(scores: np.ndarray, level: float, method: str
                      ) -> tuple[list[tuple[float, float]], list[str]]:
    """Every system's ``method`` interval of its proportion of 1s (:mod:`sigreport.stats.proportion`, all
    systems at once), and the warning a zero-width interval (Wald's at 0% or 100%) needs."""
    n = scores.shape[0]
    if n == 0:
        return [(None, None)] * scores.shape[1], []  # type: ignore[list-item]
    ci = proportion.proportion_ci(np.sum(scores, axis=0), n, level, method)
    warnings = []
    flat = np.flatnonzero(ci.high - ci.low <= 0)
    if flat.size:
        warnings.append(f"the {proportion.interval(method).display} has zero width at a proportion of 0 or 1 "
                        f"({flat.size} system(s)): it claims certainty no finite sample gives; tests.proportion_ci: "
                        "wilson does not")
    return [(float(a), float(b)) for a, b in zip(ci.low, ci.high)], warnings


def clustered_rows(block: Block, rows: list[SystemSummary], ci_level: float) -> tuple[list[SystemSummary], str]:
    """The systems' rows with cluster-robust intervals (CR1, t on G - 1 df) and their ``clusters`` (G, design
    effect, effective n), and the note that says so (:mod:`sigreport.stats.cluster`)."""
    from sigreport.stats import cluster

    g, G = block.cluster_codes  # type: ignore[misc]
    cm = cluster.clustered_means(block.scores, g, G)
    lo, hi = cluster.mean_intervals(cm, ci_level)
    out = [dataclasses.replace(r, ci_low=finite_or_none(lo[j]), ci_high=finite_or_none(hi[j]), clusters=cm.summary(j))
           for j, r in enumerate(rows)]
    deffs = [d for d in cm.design_effect.tolist() if np.isfinite(d)]
    effs = [e for e in cm.effective_n.tolist() if np.isfinite(e)]
    spread = (f"design effect {min(deffs):.2f} to {max(deffs):.2f}, effective items {min(effs):.0f} to "
              f"{max(effs):.0f} of {cm.n}" if len(deffs) > 1 and min(deffs) != max(deffs) else
              f"design effect {deffs[0]:.2f}, effective items {effs[0]:.0f} of {cm.n}" if deffs else
              "no design effect (the scores do not vary)")
    return out, (f"clustered items: {cm.n} items in G = {G} clusters; {spread}; intervals are cluster-robust "
                 f"(CR1 standard error, t on G \u2212 1 = {G - 1} df)")


def clustered_proportion_rows(rows: list[SystemSummary], ci_level: float, method: str
                               ) -> tuple[list[SystemSummary], str]:
    """Clustered 0/1 items: each system's proportion interval (``tests.proportion_ci``) on Korn and Graubard's
    (1998) effective number of items, ``min((n - 1)/deff, n) (z/t_{G-1})^2`` (deff the design effect of its
    cluster-robust standard error; :func:`sigreport.stats.proportion.korn_graubard_n`), the count taken as
    p * n* (:func:`sigreport.stats.proportion.proportion_ci` accepts the non-integer counts), and the note that
    says so. Wilson's is then Inspect AI's ``ci_wilson(cluster=...)``; without the (z/t_{G-1})^2 factor it
    undercovers with few clusters (docs/methods.md, "Beside the peers")."""
    out = []
    for r in rows:
        c = r.clusters
        if r.mean is None or c is None:
            out.append(r)
            continue
        # scores that do not vary (a proportion of 0 or 1) have no design effect: the items count as they are, so
        # that the interval keeps its width at 0% and 100%
        deff = np.nan if c.design_effect is None else float(c.design_effect)
        m = float(proportion.korn_graubard_n(float(r.n), deff, c.G, ci_level))
        ci = proportion.proportion_ci(np.array([r.mean * m]), np.array([m]), ci_level, method)
        out.append(dataclasses.replace(r, ci_low=float(ci.low[0]), ci_high=float(ci.high[0])))
    return out, (f"every score is 0 or 1: each system's interval is the {proportion.interval(method).display} on "
                 "its effective number of items min((n \u2212 1)/design effect, n) \u00d7 (z/t)\u00b2, t on G "
                 "\u2212 1 df (Korn and Graubard's design-effect adjustment of the proportion interval)")


def macro(block: Block, ctx: Context) -> tuple[np.ndarray, int] | None:
    """The strata of a macro-averaged metric (``metrics.M.average: macro``), else None."""
    return block.stratum_codes if ctx.metric.average == "macro" else None


def macro_rows(block: Block, rows: list[SystemSummary], ci_level: float) -> tuple[list[SystemSummary], str]:
    """The systems' rows with the macro average over strata as the mean, its t interval (Welch-Satterthwaite
    df) and ``strata``, and the note that says so (:mod:`sigreport.stats.strata`)."""
    from sigreport.stats import strata

    s, S = block.stratum_codes  # type: ignore[misc]
    mm = strata.macro_means(block.scores, s, S)
    lo, hi = strata.mean_intervals(mm, ci_level)
    out = [dataclasses.replace(r, mean=float(mm.mean[j]), ci_low=finite_or_none(lo[j]), ci_high=finite_or_none(hi[j]),
                               strata=mm.summary(j)) for j, r in enumerate(rows)]
    return out, (f"macro average over S = {S} strata (metrics.{block.metric}.average: macro): the mean of the "
                 f"per-stratum means, every stratum weighing the same; standard error sqrt(sum SE_s\u00b2)/S, t "
                 f"intervals on Welch-Satterthwaite df; sd and median are those of the {mm.n} items")


def _pair_tests(block: Block, pairs: list[tuple[int, int]], method: str, ctx: Context,
                differences: list[pairwise.DifferenceSummary] | None = None, node_id: str = ""
                ) -> tuple[list[PairedTestResult], list[str]]:
    """The family's tests, by the method's declaration (:mod:`sigreport.stats.registry`); a method that draws
    its own random numbers gets the analysis's seed (``derived_seed`` of the spec's seed and ``node_id``)."""
    inp = PairwiseInput(scores=block.scores, stats=block.stats, aggregate=ctx.aggregate, systems=block.systems,
                        pairs=tuple(pairs), alternative=ctx.tests.alternative, alpha=ctx.alpha,
                        ci_level=ctx.ci_level, decimals=ctx.decimals, corpus_level=ctx.metric.corpus_level,
                        tests=ctx.tests, seed=derived_seed(ctx.seed, node_id), differences=differences,
                        resample=lambda kind, **options: resampled(block, ctx.aggregate, pairs, kind, ctx, **options),
                        clusters=block.cluster_codes, strata=macro(block, ctx))
    results, warnings = registry.method("pairwise", method).compute(inp)
    return list(results), list(warnings)


def resampled(block: Block, metric: resampling.CorpusMetric, pairs: list[tuple[int, int]], method: str, ctx: Context,
              **options: Any) -> resampling.ResamplingResult:
    """``paired_resampling`` on the corpus's shared replicates (:func:`~sigreport.analyses.common.resample_seed`):
    every metric of a corpus gets the same bootstrap counts or permutation swaps, drawn once per process."""
    if block.cluster_codes is not None:
        return _clustered_resampled(block, pairs, method, ctx, **options)
    if macro(block, ctx) is not None:
        return _stratified_resampled(block, pairs, method, ctx, **options)
    n, b = block.stats.shape[0], ctx.tests.resamples
    kind = resampling.resample_kind(method, n, b)
    seed = resample_seed(ctx.seed, block.corpus, "permutation" if method == "permutation" else "bootstrap", b, n)
    drawn = SHARED_RESAMPLES.get(kind, b, n, seed, block) if kind is not None else None
    res = resampling.paired_resampling(block.stats, metric, pairs, method, b, seed, resample=drawn, **options)
    return _named(res, block.systems)


def _clustered_resampled(block: Block, pairs: list[tuple[int, int]], method: str, ctx: Context, **options: Any
                         ) -> resampling.ResamplingResult:
    """Resampling of whole clusters: the block collapsed to (cluster sum, cluster size) per system
    (:func:`~sigreport.stats.cluster.cluster_stats`) under the ratio metric, so the paired bootstrap draws
    clusters with replacement and the permutation test swaps (sign-flips) every item of a cluster together; the
    replicates are the corpus's shared ones over its G clusters (seeded by G). Each pair keeps its item count
    ``n`` and gets ``clusters`` (G, design effect and effective n of its differences)."""
    from sigreport.stats import cluster

    g, G = block.cluster_codes  # type: ignore[misc]
    b = ctx.tests.resamples
    kind = resampling.resample_kind(method, G, b)
    seed = resample_seed(ctx.seed, block.corpus, "cluster-permutation" if method == "permutation"
                         else "cluster-bootstrap", b, G)
    drawn = SHARED_RESAMPLES.get(kind, b, G, seed, block) if kind is not None else None
    res = resampling.paired_resampling(cluster.cluster_stats(block.stats, g, G), resampling.ratio_metric(), pairs,
                                       method, b, seed, resample=drawn, **options)
    n = block.stats.shape[0]
    if pairs:
        x = block.scores
        cm = cluster.clustered_means(x[:, [i for i, _ in pairs]] - x[:, [j for _, j in pairs]], g, G)
        res = dataclasses.replace(res, n=n, pairs=tuple(
            dataclasses.replace(p, n=n, extra={**p.extra, "clusters": dataclasses.asdict(cm.summary(k))})
            for k, p in enumerate(res.pairs)))
    return _named(res, block.systems)


def _stratified_resampled(block: Block, pairs: list[tuple[int, int]], method: str, ctx: Context, **options: Any
                          ) -> resampling.ResamplingResult:
    """Resampling of a macro average: every item weighted n / (S n_s) (the mean of the weighted scores is the
    macro average), the bootstrap's counts drawn within strata (:func:`~sigreport.stats.strata.stratified_counts`,
    seeded from the corpus, B and n), the permutation's within-item swaps the corpus's shared ones (a swap keeps
    every stratum's size). Each pair gets ``strata`` (S, df, SE of its per-item differences' macro average)."""
    from sigreport.stats import strata

    s, S = block.stratum_codes  # type: ignore[misc]
    n, b = block.stats.shape[0], ctx.tests.resamples
    x = block.stats * strata.macro_weights(s, S)[:, None, None]
    kind = resampling.resample_kind(method, n, b)
    if method == "permutation":
        seed = resample_seed(ctx.seed, block.corpus, "permutation", b, n)
        drawn = SHARED_RESAMPLES.get(kind, b, n, seed, block) if kind is not None else None
    else:
        seed = resample_seed(ctx.seed, block.corpus, "stratified-bootstrap", b, n)
        drawn = None if kind is None else resampling.Resample(kind="bootstrap", seed=seed,
                                                              weights=strata.stratified_counts(s, S, b, seed))
    res = resampling.paired_resampling(x, resampling.mean_metric(), pairs, method, b, seed, resample=drawn, **options)
    if pairs:
        sc = block.scores
        mm = strata.macro_means(sc[:, [i for i, _ in pairs]] - sc[:, [j for _, j in pairs]], s, S)
        res = dataclasses.replace(res, pairs=tuple(
            dataclasses.replace(p, extra={**p.extra, "strata": dataclasses.asdict(mm.summary(k))})
            for k, p in enumerate(res.pairs)))
    return _named(res, block.systems)


def _named(res: resampling.ResamplingResult, systems: tuple[str, ...]) -> resampling.ResamplingResult:
    """``res`` with the systems its warnings and its pairs' warnings name by index named by label."""

    def name(warnings: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(_system_names(w, systems) for w in warnings)

    pairs = tuple(dataclasses.replace(p, warnings=name(p.warnings)) if p.warnings else p for p in res.pairs)
    return dataclasses.replace(res, warnings=name(res.warnings), pairs=pairs)


def _system_names(warning: str, systems: tuple[str, ...]) -> str:
    """The engine names systems by index ('system 3'); reports name them."""

    return re.sub(r"\bsystem (\d+)\b", lambda m: f"system {systems[int(m.group(1))]}"
                  if int(m.group(1)) < len(systems) else m.group(0), warning)


def pairwise_block(block: Block, node_id: str, ctx: Context) -> PairwiseRecord:
    t = ctx.tests
    pairs = system_pairs(block.systems, t, ctx.baseline)
    warnings: list[str] = []
    if len(block.systems) < 2:
        warnings.append("fewer than two systems: nothing to compare")
    method = t.pairwise
    sel = None
    if method == "auto":
        if ctx.metric.corpus_level:
            chosen = select.Selection(method="permutation", steps=(select.SelectionStep(
                check="metric", value=None, threshold=None,
                outcome=f"chosen: corpus-level metric ({ctx.metric.aggregate}): only resampling "
                "tests apply; approximate randomization holds alpha at every n studied (20 to 200), the paired "
                "bootstrap rejects 7% of true nulls at n = 20 (docs/calibration_corpus.md)"),),
                reason="permutation (approximate randomization) with the paired bootstrap's interval: the metric is "
                "computed from summed statistics, not per item")
        elif block.cluster_codes is not None or macro(block, ctx) is not None:
            chosen = design_choice(block)
        else:
            diffs = np.column_stack([block.scores[:, i] - block.scores[:, j] for i, j in pairs]) if pairs else \
                np.zeros((block.scores.shape[0], 0))
            chosen = select.choose_pairwise(diffs, ctx.alpha, empty_ok=True,
                                            labels=[f"{block.systems[i]} vs {block.systems[j]}" for i, j in pairs])
        method, sel, w = pinned(ctx.tests, ctx.previous_method, chosen)
        warnings += w
    diffs = differences_of(block, pairs, ctx)
    if leaderboard_family(block, pairs, ctx):
        warnings.append(leaderboard.NO_SHAPIRO)
    results, w = _pair_tests(block, pairs, method, ctx, diffs, node_id)
    warnings += w
    ci_method = None
    if pairs and is_proportion(block, ctx) and block.cluster_codes is not None:
        warnings.append("binary metric with clustered items: the pairs' intervals are the clustered paired t's "
                        "(Newcombe's paired interval assumes independent items)")
    elif pairs and is_proportion(block, ctx):
        results, ci_method, w = with_newcombe(block, pairs, results, ctx)
        warnings += w
    entries = with_differences(family_entries(block.systems, pairs, results, t.correction, ctx.alpha,
                                              ci_level=ctx.ci_level), block, pairs, method, ctx, diffs)
    record = family_record(node_id, "pairwise", block, method, ctx, entries, sel, tuple(warnings))
    return dataclasses.replace(record, ci_method=ci_method) if ci_method is not None else record


def with_newcombe(block: Block, pairs: list[tuple[int, int]], results: list[PairedTestResult], ctx: Context
                  ) -> tuple[list[PairedTestResult], str | None, list[str]]:
    """A binary metric's pairs with Newcombe's (1998) method 10 interval of p_a - p_b
    (:func:`sigreport.stats.proportion.newcombe_paired`, every pair at once) in place of the test's, where the
    test's estimate is that difference of proportions (the paired t test's mean difference, the bootstrap's and
    the permutation test's difference of means): the p-values stay the test's. A test estimating something else
    (the Wilcoxon test's Hodges-Lehmann estimate, the sign test's median) keeps its own interval, and a warning
    says so."""
    if ctx.tests.alternative != "two-sided":
        return results, None, ["binary metric: Newcombe's paired interval is two-sided, so with a one-sided "
                               "alternative the pairs keep the test's own one-sided interval"]
    a = block.scores[:, [i for i, _ in pairs]]
    b = block.scores[:, [j for _, j in pairs]]
    nc = proportion.newcombe_paired(a, b, ctx.ci_level)
    estimates = np.array([np.nan if r.estimate is None else r.estimate for r in results], dtype=np.float64)
    if not np.allclose(estimates, nc.estimate, rtol=0, atol=1e-9):
        return results, None, ["binary metric: this test's estimate is not the difference of proportions, so its "
                               "pairs keep the test's own interval (Newcombe's paired interval goes with the "
                               "paired t test, the bootstrap and the permutation test)"]
    out = [dataclasses.replace(r, ci_low=float(lo), ci_high=float(hi), ci_level=ctx.ci_level)
           for r, lo, hi in zip(results, nc.low, nc.high)]
    return out, proportion.NEWCOMBE_PAIRED, []


def design_choice(block: Block) -> select.Selection:
    """``pairwise: auto`` with clustered items or a macro average over strata: the paired t of the design (the
    rank tests do not respect clusters or strata)."""
    if block.cluster_codes is not None:
        return select.Selection(method="paired_t", steps=(select.SelectionStep(
            check="clusters", value=float(block.n_clusters or 0), threshold=None,
            outcome="chosen: the items are clustered (data.columns.cluster); the clustered paired t (CR1 standard "
            "error, t on G \u2212 1 df) respects the clusters, the rank tests do not"),),
            reason="clustered paired t test: the items are clustered")
    return select.Selection(method="paired_t", steps=(select.SelectionStep(
        check="strata", value=float(len(block.stratum_names or ())), threshold=None,
        outcome="chosen: the metric is a macro average over strata; the paired t of the macro average "
        "(Welch-Satterthwaite df) respects the strata, the rank tests do not"),),
        reason="paired t test of the macro average over strata")


def family_record(node_id: str, kind: str, block: Block, method: str, ctx: Context, entries: tuple[PairRow, ...],
                  selection: AutomaticChoice | None, warnings: tuple[str, ...]) -> PairwiseRecord:
    """A pairwise family's record (kind 'pairwise', 'cv' or 'posthoc'): the block, the tests' options, its rows."""
    t = ctx.tests
    return PairwiseRecord(id=node_id, kind=kind, metric=block.metric, corpus=block.corpus, level=block.level,
                          method=method, alternative=t.alternative, comparisons=t.comparisons,
                          correction=t.correction, family=t.family, family_size=len(entries), alpha=ctx.alpha,
                          ci_level=ctx.ci_level, pairs=entries, selection=selection, warnings=warnings)


def differences_of(block: Block, pairs: list[tuple[int, int]], ctx: Context
                   ) -> list[pairwise.DifferenceSummary] | None:
    """SD, SE and Shapiro-Wilk of a - b for every pair (per-item scores; None for a corpus-level metric):
    computed once, for the rows and for the paired t test's normality check."""
    if ctx.metric.corpus_level:
        return None
    x = block.scores
    if leaderboard_family(block, pairs, ctx):
        return leaderboard.difference_summaries(leaderboard.difference_moments(x, [i for i, _ in pairs],
                                                                               [j for _, j in pairs]))
    return describe_differences_many(x, pairs)


def leaderboard_family(block: Block, pairs: list[tuple[int, int]], ctx: Context) -> bool:
    """Whether a family's pair statistics come from the systems' covariance matrix
    (:func:`sigreport.stats.leaderboard.is_leaderboard`: more than 40 systems, 30 or more items; per-item
    scores without clusters or strata), not from each pair's differences."""
    return bool(pairs) and not ctx.metric.corpus_level and block.cluster_codes is None and \
        macro(block, ctx) is None and leaderboard.is_leaderboard(len(block.systems), block.scores.shape[0])


def with_differences(entries: tuple[PairRow, ...], block: Block, pairs: list[tuple[int, int]], method: str,
                     ctx: Context, differences: list[pairwise.DifferenceSummary] | None = None
                     ) -> tuple[PairRow, ...]:
    """Rows with the SD, SE and Shapiro-Wilk of a - b (per-item scores), and for paired t the
    small-sample-corrected effect sizes g_z, d_av, g_av with intervals (Lakens 2013), all pairs' intervals
    found together (:func:`~sigreport.stats.pairwise.paired_effect_sizes_family`)."""
    if ctx.metric.corpus_level:
        return entries
    x = block.scores
    diffs = differences if differences is not None else differences_of(block, pairs, ctx)
    assert diffs is not None
    effects: list[Any] = [None] * len(entries)
    if method == "paired_t" and block.clusters is None and macro(block, ctx) is None:  # their intervals: iid items
        by_level: dict[float, list[int]] = {}
        for k, row in enumerate(entries):
            by_level.setdefault(row.test.ci_level, []).append(k)
        large = leaderboard_family(block, pairs, ctx)
        for level, ks in by_level.items():
            if large:
                found = leaderboard.effect_sizes_family(x, [pairs[k] for k in ks], level,
                                                        leaderboard.moments_of([diffs[k] for k in ks]))
            else:
                found = pairwise.paired_effect_sizes_family(x, [pairs[k] for k in ks], level,
                                                            [diffs[k] for k in ks])
            for k, eff in zip(ks, found):
                effects[k] = eff
    return tuple(dataclasses.replace(row, differences=dd, effect_sizes=eff)
                 for row, dd, eff in zip(entries, diffs, effects))


CV_DEFAULTS = {"5x2cv": ["5x2cv_t", "5x2cv_f"], "kfold": ["kfold_t"], "resampled": ["corrected_resampled_t"]}


def cv_block(block: Block, node_id: str, ctx: Context, method: str) -> PairwiseRecord:
    """Cross-validation tests for every pair (Dietterich 1998; Alpaydin 1999; Nadeau and Bengio 2003)."""
    t = ctx.tests
    pairs = system_pairs(block.systems, t, ctx.baseline)
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
    declared = registry.method("cv", method)
    sizes = fold_sizes(block, t)
    results = [declared.compute(CVInput(a=x[:, i], b=x[:, j], grid=grid, repeats=len(repeats), folds=len(folds),
                                        sizes=sizes, alternative=t.alternative, alpha=ctx.alpha,
                                        ci_level=ctx.ci_level)) for i, j in pairs]
    as_pairs = [PairedTestResult(method=r.method, n=int(r.n_folds * r.n_repeats), statistic=r.statistic,
                                 df=r.df if r.df is not None else None, pvalue=r.pvalue, alternative=r.alternative,
                                 estimate=r.estimate, ci_low=r.ci_low, ci_high=r.ci_high, ci_level=r.ci_level,
                                 critical_value=r.critical_value, effect_size=None, warnings=r.warnings,
                                 extra={"df1": r.df1, "df2": r.df2, "n_folds": r.n_folds, "n_repeats": r.n_repeats})
                for r in results]
    entries = family_entries(block.systems, pairs, as_pairs, t.correction, ctx.alpha, ci_level=ctx.ci_level)
    return family_record(node_id, "cv", block, method, ctx, entries, None, tuple(warnings))


def fold_sizes(block: Block, t: Any) -> tuple[float, float] | None:
    """(n_train, n_test) of a block's folds: the means of the data's per-fold sizes, else the spec's (per corpus)."""
    if block.n_train is not None and block.n_test is not None:
        return block.n_train, block.n_test
    return t.sizes_of(str(block.corpus))


def _natural(s: str) -> tuple[int, Any]:
    return (0, int(s)) if s.isdigit() else (1, s)


def omnibus_block(block: Block, node_id: str, ctx: Context) -> RMAnovaRecord | FriedmanRecord:
    """The omnibus test the spec asks (or the automatic choice), computed by its declaration's ``compute`` and
    recorded as its declared record."""
    t = ctx.tests
    method = t.omnibus
    sel = None
    warnings: list[str] = []
    if method == "auto":
        method, sel, warnings = pinned(ctx.tests, ctx.previous_method, select.choose_omnibus(block.scores, ctx.alpha, empty_ok=True))
    declared = registry.method("omnibus", method)
    found = declared.compute(OmnibusInput(scores=block.scores, higher_is_better=ctx.metric.higher_is_better,
                                          tie_correction=t.tie_correction, sphericity=t.sphericity,
                                          mauchly_p=t.mauchly_p, alpha=ctx.alpha))
    return OMNIBUS_RECORDS[declared.record](block, node_id, ctx, found, sel, tuple(warnings))


def friedman_record(block: Block, node_id: str, ctx: Context, f: Any, sel: AutomaticChoice | None,
                    warnings: tuple[str, ...]) -> FriedmanRecord:
    """The Friedman test's record (:func:`sigreport.stats.omnibus.friedman`'s result)."""
    return FriedmanRecord(
        id=node_id, kind="omnibus", metric=block.metric, corpus=block.corpus, level=block.level,
        method="friedman", friedman=dataclasses.replace(f, warnings=()), systems=tuple(block.systems),
        significant=is_significant(f.pvalue, ctx.alpha), selection=sel, warnings=warnings + tuple(f.warnings))


def rm_anova_record(block: Block, node_id: str, ctx: Context, found: Any, sel: AutomaticChoice | None,
                    warnings: tuple[str, ...]) -> RMAnovaRecord:
    """The repeated-measures ANOVA's record (its result and sphericity decision)."""
    t = ctx.tests
    res, decision = found
    p_corr = finite_or_none(decision.pvalue_corrected)
    return RMAnovaRecord(
        id=node_id, kind="omnibus", metric=block.metric, corpus=block.corpus, level=block.level, method="rm_anova",
        anova=dataclasses.replace(res, warnings=()), correction_applied=decision.correction_applied,
        correction_reason=decision.reason, pvalue_corrected=p_corr, significant=is_significant(p_corr, ctx.alpha),
        selection=sel, warnings=warnings + tuple(res.warnings), mauchly_p=t.mauchly_p)


OMNIBUS_RECORDS = {"FriedmanRecord": friedman_record, "RMAnovaRecord": rm_anova_record}
"""An omnibus declaration's record class (``record``) -> how its result becomes that record."""


def posthoc_block(block: Block, node_id: str, ctx: Context, om: Any, pw: Any) -> PosthocRecord | PairwiseRecord | None:
    """The post-hoc test that fits the omnibus result ``om`` (or the spec's explicit choice).

    None when the post-hoc would repeat the pairwise analysis ``pw`` (paired t tests with the same
    correction after RM-ANOVA): the report then points at the pairwise table.
    """
    t = ctx.tests
    if om is None:
        return None
    baseline = ctx.baseline
    method = t.posthoc
    sel = None
    if method == "auto":
        chosen = select.posthoc_for(om.method, t.comparisons if baseline else "all_pairs", correction=t.correction)
        method, sel = chosen.method, choice_of(chosen)
    declared = registry.by_spec_name("posthoc", method)
    if declared.record == "PairwiseRecord" and pw is not None and pw.method == declared.name:
        return None
    if declared.record == "PairwiseRecord":
        pairs = system_pairs(block.systems, t, baseline)
        results = declared.compute(PosthocInput(ranks=None, n=block.scores.shape[0], control=None, alpha=ctx.alpha,
                                                scores=block.scores, pairs=tuple(pairs), alternative=t.alternative,
                                                ci_level=ctx.ci_level))
        entries = family_entries(block.systems, pairs, results, t.correction, ctx.alpha, ci_level=ctx.ci_level)
        return family_record(node_id, "posthoc", block, declared.name, ctx, entries, sel, ())
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
    if method in ("bonferroni_dunn", "hochberg") and control is None:
        warnings.append(f"{method} compares with a control system; no baseline is set, so Nemenyi is used")
        method = "nemenyi"
    if method == "bergmann_hommel" and r.size > posthoc.BERGMANN_HOMMEL_MAX_K:
        warnings.append(f"Bergmann-Hommel's exhaustive search is limited to {posthoc.BERGMANN_HOMMEL_MAX_K} systems "
                        f"(here {r.size}); Shaffer's static procedure is used instead")
        method = "shaffer"
    res = registry.by_spec_name("posthoc", method).compute(PosthocInput(
        ranks=r, n=n, control=control, alpha=ctx.alpha, scores=block.scores, pairs=(), alternative=t.alternative,
        ci_level=ctx.ci_level))
    pairs = tuple(PosthocRow(a=block.systems[p.a], b=block.systems[p.b], statistic=p.statistic,
                             rank_difference=p.rank_difference, pvalue=p.pvalue, pvalue_adjusted=p.pvalue_adjusted,
                             significant=p.significant) for p in res.pairs)
    return PosthocRecord(id=node_id, kind="posthoc", metric=block.metric, corpus=block.corpus, level=block.level,
                         method=res.method, after=om.method, omnibus_significant=om.significant,
                         critical_difference=res.critical_difference, q_alpha=res.q_alpha,
                         control=None if res.control is None else block.systems[res.control], alpha=ctx.alpha,
                         average_ranks=dict(ranks), pairs=pairs, selection=sel,
                         warnings=tuple(warnings) + tuple(res.warnings))


def bayesian_block(block: Block, node_id: str, ctx: Context) -> BayesianRecord:
    """Bayesian comparison of every pair with the metric's ROPE: the correlated Bayesian t test (folds); on
    items or corpora the Bayesian signed-rank test, or the Bayesian bootstrap of the mean difference when the
    scores are binary or mostly tied (``tests.bayesian.model``, :func:`~sigreport.stats.bayes.choose_model`).
    "Practically equivalent" is never declared for a pair whose observed mean difference lies outside the
    ROPE (:func:`~sigreport.stats.bayes.guard_equivalence`).

    Scores are negated for a lower-is-better metric, so that 'a better' always means a is the better system.
    """
    t = ctx.tests
    spec = t.bayesian
    assert spec is not None
    rope = float(spec.rope[block.metric])
    pairs = system_pairs(block.systems, t, ctx.baseline)
    x = block.scores if ctx.metric.higher_is_better else -block.scores
    warnings: list[str] = []
    rows = []
    sel = None
    if block.level == "folds":
        folds = {f for _, f in block.folds or ()}
        sizes = fold_sizes(block, t)
        rho = bayes.cv_correlation(*sizes) if sizes else (1.0 / len(folds) if folds else 0.5)
        if not sizes:
            warnings.append(f"correlation of fold differences rho = 1/{len(folds)} (one over the number of folds; "
                            "set tests.n_train and tests.n_test for n_test / (n_train + n_test))")
        results = [bayes.correlated_bayesian_t(x[:, i], x[:, j], rope, rho, spec.level) for i, j in pairs]
        method, seed, rho_v = "correlated_t", None, rho
    else:
        seed = derived_seed(ctx.seed, node_id)
        method, rho_v = spec.model, None
        if method == "auto":
            method, why = bayes.choose_model(block.scores, pairs, ctx.decimals)
            sel = ModelChoice(method=method, reason=why)
        if method == "bayesian_bootstrap":
            results = [bayes.bayesian_bootstrap(x[:, i], x[:, j], rope, seed, spec.samples, spec.level, spec.method)
                       for i, j in pairs]
        else:
            results = [bayes.bayesian_signed_rank(x[:, i], x[:, j], rope, seed, spec.samples, spec.prior_strength,
                                                  spec.level, spec.method) for i, j in pairs]
            warnings += tied_warnings(block, pairs, ctx)
    results = [bayes.guard_equivalence(r) for r in results]
    posterior = next((r.posterior for r in results), bayes.resolve_posterior(spec.method, block.scores.shape[0])) \
        if method != "correlated_t" else None
    for (i, j), r in zip(pairs, results):
        est = r.estimate if r.estimate is None or ctx.metric.higher_is_better else -r.estimate  # in a - b units
        rows.append(BayesianPair(a=block.systems[i], b=block.systems[j], n=r.n, estimate=est, p_a_better=r.p_a_better,
                                 p_equivalent=r.p_equivalent, p_b_better=r.p_b_better, decision=r.decision,
                                 mc_se=r.mc_se, warnings=r.warnings))
    return BayesianRecord(id=node_id, kind="bayesian", metric=block.metric, corpus=block.corpus, level=block.level,
                          method=method, comparisons=t.comparisons, rope=rope, decision_level=spec.level,
                          n_samples=spec.samples if posterior == "monte_carlo" else None, posterior=posterior,
                          prior_strength=spec.prior_strength if method == "signed_rank" else None, rho=rho_v,
                          seed=seed, pairs=tuple(rows), warnings=tuple(warnings), selection=sel)


def tied_warnings(block: Block, pairs: list[tuple[int, int]], ctx: Context) -> list[str]:
    """The signed-rank test on pairs whose differences are mostly zero: its posterior counts each tie as
    practically equivalent, whatever the mean difference (tests.bayesian.model: signed_rank chose it)."""
    out = []
    for i, j in pairs:
        share = bayes.zero_share(block.scores[:, i] - block.scores[:, j], ctx.decimals)
        if share > bayes.MOSTLY_TIED:
            out.append(f"{block.systems[i]} vs {block.systems[j]}: {share:.0%} of the differences are zero; the "
                       "signed-rank posterior counts every tie as practically equivalent, whatever the mean "
                       "difference (tests.bayesian.model: auto or bayesian_bootstrap uses the posterior of the mean "
                       "difference)")
    return out


# -------------------------------------------------------------------------------------------- plan nodes
# Node functions: fn(node_id, inputs, params, deps); inputs are (block, aggregate) of one metric and corpus.


def run_descriptives(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    return describe_block(block, node_id, Context(params, aggregate))


def run_pairwise(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    return pairwise_block(block, node_id, Context(params, aggregate))


def run_runs(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    return runs_block(block, node_id, Context(params, aggregate))


def run_cv(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    return cv_block(block, node_id, Context(params, aggregate), params.cv_method)


def run_omnibus(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    return omnibus_block(block, node_id, Context(params, aggregate))


def run_posthoc(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    omnibus_result, pairwise_result = deps
    return posthoc_block(block, node_id, Context(params, aggregate), omnibus_result, pairwise_result)


def run_bayesian(node_id: str, inputs: tuple[Any, ...], params: ScoreParams, deps: tuple[Any, ...]) -> Any:
    block, aggregate = inputs
    return bayesian_block(block, node_id, Context(params, aggregate))


def score_nodes(spec: Spec, mspec: MetricSpec, metric: str, corpus: str | None, n_systems: int, level: str,
                previous: Mapping[str, str], has_runs: bool = False) -> list[Node]:
    """Plan nodes of one metric on one corpus (``previous``: analysis id -> the previous report's method)."""
    tests = spec.tests
    blocks = (("scores", metric, corpus), ("aggregate", metric))

    def params(node_id: str, cv_method: str | None = None) -> ScoreParams:
        return ScoreParams(tests, spec.alpha, spec.seed, spec.baseline, mspec, previous.get(node_id), cv_method,
                           spec.interval_level())

    def node(kind: str, suffix: str, fn: Any, deps: tuple[str, ...], label: str, cv_method: str | None = None) -> Node:
        node_id = analysis_id(metric, corpus, suffix)
        return Node(id=node_id, kind=kind, metric=metric, corpus=corpus, fn=fn, params=params(node_id, cv_method),
                    blocks=blocks, depends_on=deps, label=label)

    did = analysis_id(metric, corpus, "descriptives")
    nodes = [node("descriptives", "descriptives", run_descriptives, (), "per-system summary")]
    bayesian = []
    if tests.bayesian is not None and metric in tests.bayesian.rope and n_systems >= 2:
        bayesian.append(node("bayesian", "bayesian", run_bayesian, (did,),
                             f"Bayesian, rope {tests.bayesian.rope[metric]:g}, level {tests.bayesian.level:g}"))
    if level == "folds":
        for method in tests.cv_methods or CV_DEFAULTS[tests.design]:
            nodes.append(node("cv", f"cv-{method}", run_cv, (did,),
                              f"{method}, {tests.alternative}, {tests.correction}", method))
        return nodes + bayesian
    clustered = spec.data.columns.cluster is not None or mspec.average == "macro"  # omnibus, post-hoc, runs: iid
    pid = analysis_id(metric, corpus, "pairwise")
    nodes.append(node("pairwise", "pairwise", run_pairwise, (did,),
                      f"{tests.pairwise}, {tests.alternative}, {tests.correction}"))
    if has_runs and n_systems >= 2 and not clustered:  # the two-level bootstrap resamples independent items
        nodes.append(node("runs", "runs", run_runs, (did,), f"runs: two-level bootstrap, ASO tau {tests.runs.tau:g}"))
    if n_systems >= 3 and tests.omnibus != "none" and not mspec.corpus_level and not clustered:
        oid = analysis_id(metric, corpus, "omnibus")
        nodes.append(node("omnibus", "omnibus", run_omnibus, (did,),
                          f"{tests.omnibus}, sphericity {tests.sphericity}" if tests.omnibus != "friedman"
                          else "friedman"))
        if tests.posthoc != "none":
            nodes.append(node("posthoc", "posthoc", run_posthoc, (oid, pid), f"{tests.posthoc}"))
    return nodes + bayesian
