"""Replicability across corpora (``tests.replicability``): one plan node per metric, after its pairwise tests.

For every pair compared on every corpus (item-level pairwise records of the metric, in corpus order) and
both directions, the one-sided p-values of "x better than y" on each corpus are combined by the
partial-conjunction procedure of Dror et al. (2017) (:mod:`sigreport.stats.replicability`). A two-sided
test's one-sided p is p/2 in the direction of its estimate and 1 - p/2 against it (exact for the t test;
for the other tests it assumes a symmetric null distribution, said in docs/methods.md); a one-sided test's p
is used for its own direction and 1 - p for the other. Which direction is "better" follows the metric's
``higher_is_better``. The p-values are the unadjusted ones: the procedure is itself the correction over the
corpora of one pair (the pairs are not corrected against each other, as in Dror et al.).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from sigreport.analyses.common import analysis_id
from sigreport.plan import Node
from sigreport.results.records import PairwiseRecord, ReplicabilityRecord, ReplicabilityRow
from sigreport.spec import Spec
from sigreport.stats import replicability as rep
from sigreport.stats.result import finite_or_none, rejects


def _one_sided(rec: PairwiseRecord, pair: tuple[str, str]) -> tuple[float, float]:
    """The one-sided p-values of "a - b > 0" and of "a - b < 0" for pair (a, b) of ``rec`` (NaN without a test),
    each computed directly (never as 1 minus the other, which would lose a small p-value's digits)."""
    row = next(p for p in rec.pairs if (p.a, p.b) == pair)
    if row.pvalue is None or row.estimate is None:
        return float("nan"), float("nan")
    p, est = float(row.pvalue), float(row.estimate)
    if rec.alternative == "greater":
        return p, 1.0 - p
    if rec.alternative == "less":
        return 1.0 - p, p
    gt = rep.one_sided_from_two_sided(np.array([p]), np.array([est]), 1.0)[0]
    lt = rep.one_sided_from_two_sided(np.array([p]), np.array([est]), -1.0)[0]
    return float(gt), float(lt)


@dataclasses.dataclass(frozen=True)
class ReplicabilityParams:
    """A replicability node's parameters (they enter its content key)."""

    method: str
    alpha: float
    higher_is_better: bool


def replicability_nodes(spec: Spec, nodes: Sequence[Node]) -> list[Node]:
    """With ``tests.replicability``: one node per metric, after that metric's per-corpus pairwise nodes (their
    records are its inputs: it reads their unadjusted p-values, so it does not wait for the corrections)."""
    method = spec.tests.replicability
    if method is None:
        return []
    by_metric: dict[str, list[str]] = {}
    for n in nodes:
        if n.kind == "pairwise" and n.corpus is not None and n.metric is not None:
            by_metric.setdefault(n.metric, []).append(n.id)
    return [Node(id=analysis_id(m, None, "replicability"), kind="replicability", metric=m, corpus=None,
                 fn=run_replicability, params=ReplicabilityParams(method, spec.alpha, spec.metrics[m].higher_is_better),
                 blocks=(), depends_on=tuple(ids), label=f"partial conjunction ({method}) across corpora")
            for m, ids in by_metric.items()]


def run_replicability(node_id: str, inputs: tuple[Any, ...], params: ReplicabilityParams,
                      deps: tuple[Any, ...]) -> ReplicabilityRecord | None:
    """The node: the record of one metric from its per-corpus pairwise records (module docstring)."""
    recs = [d for d in deps if isinstance(d, PairwiseRecord) and d.pairs]
    if not recs:
        return None
    metric = recs[0].metric
    corpora = tuple(str(r.corpus) for r in recs)
    common = [(p.a, p.b) for p in recs[0].pairs if all(any((q.a, q.b) == (p.a, p.b) for q in r.pairs)
                                                      for r in recs[1:])]
    warnings: list[str] = []
    if len(recs) < 2:
        warnings.append(f"replicability needs two or more corpora; {metric} has one ({corpora[0]}): the counts "
                        "below are of that corpus alone")
    sided = np.array([[_one_sided(r, pair) for r in recs] for pair in common], dtype=np.float64).reshape(
        len(common), len(recs), 2)
    gt, lt = sided[..., 0], sided[..., 1]
    p = np.empty((2 * len(common), len(recs)))
    # rows: for each pair (a, b), "a better" then "b better"
    p[0::2], p[1::2] = (gt, lt) if params.higher_is_better else (lt, gt)
    pc = rep.partial_conjunction(p, params.method)
    k = rep.k_estimate(pc, params.alpha)
    counts = rejects(p, params.alpha).sum(axis=1)
    rows = []
    for i in range(p.shape[0]):
        a, b = common[i // 2]
        better, than = (a, b) if i % 2 == 0 else (b, a)
        rows.append(ReplicabilityRow(better=better, than=than, pvalues=tuple(finite_or_none(v) for v in p[i]),
                                     significant_count=int(counts[i]), k_estimate=None if k[i] < 0 else int(k[i]),
                                     partial_conjunction=tuple(finite_or_none(v) for v in pc[i])))
    if any(r.k_estimate is None for r in rows):
        warnings.append("a corpus's test has no p-value for some pairs: their estimate of k is not computed")
    return ReplicabilityRecord(id=node_id, kind="replicability", metric=metric, corpus=None, method=params.method,
                               alpha=params.alpha, pairwise_method=str(recs[0].method), corpora=corpora,
                               rows=tuple(rows), warnings=tuple(warnings))
