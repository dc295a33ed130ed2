"""Equivalence and non-inferiority of every pair of a metric with a margin (``metrics.M.margin``).

Run after the family corrections (:func:`~sigreport.analyses.common.apply_families`): the TOST and the
non-inferiority p-values are corrected over the same family as the pairwise tests (``tests.family``), each
set with ``tests.correction`` (one family of TOST p-values, one of non-inferiority p-values), and a pair is
``equivalent`` / ``noninferior`` by :func:`~sigreport.stats.result.is_significant` of the adjusted value. The
non-inferiority test holds the first system of a pair against the second, or, when one of the two is the
spec's baseline, the other system against the baseline. The declaration is
:data:`sigreport.stats.methods.equivalence.TOST`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sigreport.analyses.common import family_key
from sigreport.results.records import PairwiseRecord
from sigreport.spec import Spec
from sigreport.stats import registry
from sigreport.stats.methods.equivalence import TOST
from sigreport.stats.result import finite_or_none, is_significant


def _oriented(rec: PairwiseRecord, baseline: str | None) -> list[float]:
    """+1 where the non-inferiority test holds a against b, -1 where b (the non-baseline) against a."""
    return [-1.0 if baseline is not None and p.a == baseline else 1.0 for p in rec.pairs]


def with_equivalence(records: tuple[Any, ...], spec: Spec) -> tuple[Any, ...]:
    """The records with each pair's :class:`~sigreport.stats.equivalence.EquivalenceResult` where its metric
    has a margin (module docstring); records of other metrics unchanged."""
    margins = {name: m.margin for name, m in spec.metrics.items() if m.margin is not None}
    if not margins:
        return records
    found: dict[int, list[Any]] = {}
    for i, rec in enumerate(records):
        if isinstance(rec, PairwiseRecord) and rec.kind == "pairwise" and rec.metric in margins and rec.pairs:
            TOST.require(rec.method)  # the spec refuses other methods; a mismatch here is a bug
            higher = spec.metrics[rec.metric].higher_is_better
            signs = _oriented(rec, spec.baseline)
            est = [None if p.estimate is None else s * float(p.estimate) for p, s in zip(rec.pairs, signs)]
            se = [p.differences.se if p.differences is not None else None for p in rec.pairs]
            results = TOST.compute(est, se, [p.df for p in rec.pairs], margins[rec.metric], rec.alpha, higher)
            named = []
            for p, s, r in zip(rec.pairs, signs, results):
                of, against = (p.a, p.b) if s > 0 else (p.b, p.a)
                # TOST is symmetric in the pair: its one-sided p-values and interval are given for a - b, as the
                # pair's estimate; the non-inferiority p and bound for noninferiority_of - noninferiority_against
                if s < 0:
                    r = dataclasses.replace(r, pvalue_lower=r.pvalue_upper, pvalue_upper=r.pvalue_lower,
                                            ci_low=None if r.ci_high is None else -r.ci_high,
                                            ci_high=None if r.ci_low is None else -r.ci_low)
                named.append(dataclasses.replace(r, estimate=p.estimate, noninferiority_of=of,
                                                 noninferiority_against=against))
            found[i] = named
    groups: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for i, rows in found.items():
        for j in range(len(rows)):
            groups.setdefault(family_key(spec.tests.family, records[i]), []).append((i, j))
    for members in groups.values():
        for field in ("tost_pvalue", "noninferiority_pvalue"):
            raw = np.array([np.nan if (v := getattr(found[i][j], field)) is None else v for i, j in members])
            for (i, j), v in zip(members, registry.method("correction", spec.tests.correction).compute(raw)):
                adj = finite_or_none(v)
                flag = "equivalent" if field == "tost_pvalue" else "noninferior"
                found[i][j] = dataclasses.replace(found[i][j], **{f"{field}_adjusted": adj,
                                                                   flag: is_significant(adj, records[i].alpha)})
    out = list(records)
    for i, rows in found.items():
        rec = records[i]
        out[i] = dataclasses.replace(rec, pairs=tuple(dataclasses.replace(p, equivalence=r)
                                                      for p, r in zip(rec.pairs, rows)))
    return tuple(out)
