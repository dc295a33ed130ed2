"""Several training runs per system (a ``run`` column): the runs analysis of one metric on one corpus.

The tests over items (pairwise, omnibus, post-hoc, Bayesian) read each system's scores averaged over its
runs (:class:`~sigreport.data.model.Block` ``stats``). This analysis adds what only the runs show
(:mod:`sigreport.stats.runs`): each system's value in every run and their spread; for every pair, the
difference of the means with its two-level (items x runs) bootstrap interval, and almost stochastic order
of the per-run values both ways, its confidence Bonferroni-adjusted over the family's pairs as
``deepsig.multi_aso`` does, decided at ``tests.runs.tau``. "Better" follows the metric's direction: for a
lower-is-better metric the per-run values are negated before ASO.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sigreport.analyses.common import derived_seed, system_pairs
from sigreport.data import Block
from sigreport.results.records import RunPair, RunsRecord, RunSummary
from sigreport.stats import runs as run_stats
from sigreport.stats.result import finite_or_none

MIN_RUNS = 2  # fewer runs than this for some system: no ASO and no run interval (nothing varies)


def run_values(block: Block, aggregate: Any) -> list[np.ndarray]:
    """Each system's metric value in each of its runs (the metric over the items of that run)."""
    assert block.runs is not None
    n = block.stats.shape[0]
    return [np.asarray(aggregate.value(r.sum(axis=0), n), dtype=np.float64) for r in block.runs]


def summary(system: str, names: tuple[str, ...], values: np.ndarray) -> RunSummary:
    finite = values[np.isfinite(values)]
    sd = float(finite.std(ddof=1)) if finite.size >= 2 else None
    return RunSummary(system=system, runs=names, values=tuple(finite_or_none(v) for v in values),
                      mean=finite_or_none(finite.mean()) if finite.size else None, sd=sd,
                      min=finite_or_none(finite.min()) if finite.size else None,
                      max=finite_or_none(finite.max()) if finite.size else None)


def runs_block(block: Block, node_id: str, ctx: Any) -> RunsRecord:
    t = ctx.tests
    values = run_values(block, ctx.aggregate)
    names = block.run_names or tuple(() for _ in block.systems)
    systems = tuple(summary(s, names[j], values[j]) for j, s in enumerate(block.systems))
    pairs = system_pairs(block.systems, t, ctx.baseline)
    confidence = 1 - (1 - ctx.ci_level) / max(len(pairs), 1)  # Bonferroni, as stats.runs.aso applies it
    sign = 1.0 if ctx.metric.higher_is_better else -1.0
    warnings: list[str] = []
    few = [s.system for s in systems if len(s.runs) < 5]
    if few:
        warnings.append(f"fewer than 5 runs for {', '.join(few)}: almost stochastic order is unreliable with so few "
                        "scores (Dror et al. 2019 use 5 or more)")
    rows = tuple(_pair(block, node_id, ctx, values, i, j, sign, len(pairs)) for i, j in pairs)
    return RunsRecord(id=node_id, kind="runs", metric=block.metric, corpus=block.corpus, level=block.level,
                      n_items=block.stats.shape[0], ci_level=ctx.ci_level, n_resamples=t.resamples,
                      tau=float(t.runs.tau), aso_confidence=confidence, aso_resamples=t.runs.resamples,
                      systems=systems, pairs=rows, warnings=tuple(warnings))


def _pair(block: Block, node_id: str, ctx: Any, values: list[np.ndarray], i: int, j: int, sign: float,
          family: int) -> RunPair:
    t = ctx.tests
    a, b = block.systems[i], block.systems[j]
    va, vb = values[i][np.isfinite(values[i])], values[j][np.isfinite(values[j])]
    warnings: list[str] = []
    est = lo = hi = se = None
    assert block.runs is not None
    if ctx.metric.corpus_level:
        warnings.append("corpus-level metric: no two-level bootstrap (the metric is not a mean over items and runs)")
        est = finite_or_none(va.mean() - vb.mean()) if va.size and vb.size else None
    else:
        iv = run_stats.two_level_bootstrap(block.runs[i][:, :, 0], block.runs[j][:, :, 0], ctx.ci_level,
                                           t.resamples, derived_seed(ctx.seed, f"{node_id}/two-level/{a}/{b}"))
        est, lo, hi, se = iv.estimate, iv.ci_low, iv.ci_high, iv.se
    if min(va.size, vb.size) < MIN_RUNS:
        warnings.append(f"fewer than {MIN_RUNS} runs: no almost stochastic order")
        return RunPair(a=a, b=b, estimate=est, ci_low=lo, ci_high=hi, se=se, eps_min_ab=None, eps_min_ba=None,
                       violation_ratio=None, decision="undecided", warnings=tuple(warnings))
    seed = derived_seed(ctx.seed, f"{node_id}/aso/{a}/{b}")
    ab, ba = run_stats.aso_both_ways(sign * va, sign * vb, ctx.ci_level, family, t.runs.resamples, seed)
    tau = float(t.runs.tau)
    decision = "a_better" if ab.eps_min < tau else "b_better" if ba.eps_min < tau else "undecided"
    return RunPair(a=a, b=b, estimate=est, ci_low=lo, ci_high=hi, se=se, eps_min_ab=ab.eps_min, eps_min_ba=ba.eps_min,
                   violation_ratio=ab.violation_ratio, decision=decision, warnings=tuple(warnings))
