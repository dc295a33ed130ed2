"""Analyses: the bridge between a spec's choices and the pure statistics.

Each analysis kind has a frozen result type whose fields are exactly its results.json fields
(the contract in README "results.json") and a small function that computes it from a data block by
calling :mod:`sigreport.stats`. :func:`nodes_for` turns a spec into plan nodes.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np

from sigreport.data import Block, Dataset
from sigreport.spec import Spec, TestsSpec
from sigreport.stats import correction, omnibus, pairwise
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none


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
    ci_level: float
    n_items: int
    dropped_items: int
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
    id: str
    kind: str
    metric: str
    corpus: str | None
    method: str
    alternative: str
    correction: str
    family: str
    family_size: int
    alpha: float
    ci_level: float
    pairs: tuple[PairEntry, ...]
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class OmnibusAnalysis:
    id: str
    kind: str
    metric: str
    corpus: str | None
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
    warnings: tuple[str, ...]


# --------------------------------------------------------------------------------------------


def analysis_id(metric: str, corpus: str | None, kind: str) -> str:
    return f"{metric}/{corpus if corpus is not None else '*'}/{kind}"


def describe_block(block: Block, node_id: str, ci_level: float = 0.95) -> DescriptivesAnalysis:
    rows = []
    for j, system in enumerate(block.systems):
        d = pairwise.describe(block.scores[:, j], ci_level)
        rows.append(SystemSummary(system, d.n, d.mean, d.sd, d.median, d.ci_low, d.ci_high, d.warnings))
    warnings = []
    if block.dropped_items:
        warnings.append(f"{block.dropped_items} item(s) dropped because some system lacks them (data.missing: drop_items)")
    return DescriptivesAnalysis(node_id, "descriptives", block.metric, block.corpus, ci_level, block.scores.shape[0],
                                block.dropped_items, tuple(rows), tuple(warnings))


def system_pairs(systems: tuple[str, ...]) -> list[tuple[int, int]]:
    """All pairs (i, j), i < j, in table order: a is the system listed first."""
    return list(itertools.combinations(range(len(systems)), 2))


def _pair_tests(block: Block, pairs: list[tuple[int, int]], tests: TestsSpec, alpha: float) -> list[PairedTestResult]:
    if tests.pairwise == "paired_t":
        return [pairwise.paired_t(block.scores[:, i], block.scores[:, j], tests.alternative, alpha) for i, j in pairs]
    raise NotImplementedError(tests.pairwise)


def pairwise_block(block: Block, node_id: str, tests: TestsSpec, alpha: float) -> PairwiseAnalysis:
    pairs = system_pairs(block.systems)
    warnings: list[str] = []
    if len(block.systems) < 2:
        warnings.append("fewer than two systems: nothing to compare")
    results = _pair_tests(block, pairs, tests, alpha)
    raw = np.array([np.nan if r.pvalue is None else r.pvalue for r in results])
    adjusted = correction.adjust(raw, tests.correction)
    entries = []
    for (i, j), r, p_adj in zip(pairs, results, adjusted):
        p_adj_v = finite_or_none(p_adj)
        entries.append(PairEntry(block.systems[i], block.systems[j], r.n, r.statistic, r.df, r.pvalue, p_adj_v,
                                 None if p_adj_v is None else bool(p_adj_v <= alpha), r.estimate, r.ci_low, r.ci_high,
                                 r.critical_value, r.effect_size, r.warnings, dict(r.extra)))
    return PairwiseAnalysis(node_id, "pairwise", block.metric, block.corpus, tests.pairwise, tests.alternative,
                            tests.correction, tests.family, len(entries), alpha, results[0].ci_level if results else 0.95,
                            tuple(entries), tuple(warnings))


def omnibus_block(block: Block, node_id: str, tests: TestsSpec, alpha: float) -> OmnibusAnalysis:
    res = omnibus.rm_anova(block.scores)
    decision = omnibus.apply_sphericity(res, tests.sphericity, alpha)
    p_corr = finite_or_none(decision.pvalue_corrected)
    return OmnibusAnalysis(
        node_id, "omnibus", block.metric, block.corpus, "rm_anova", res.n, res.k, res.statistic, res.df1, res.df2,
        res.pvalue, res.sphericity, dict(res.corrections), decision.correction_applied, decision.reason, p_corr,
        None if p_corr is None else bool(p_corr <= alpha), res.effect_size, tuple(res.warnings))


def nodes_for(spec: Spec, dataset: Dataset) -> list:
    """Plan nodes for every metric and corpus of the dataset."""
    from sigreport.plan import AnalysisNode

    nodes: list[AnalysisNode] = []
    tests = spec.tests
    for (metric, corpus), block in dataset.blocks.items():
        did = analysis_id(metric, corpus, "descriptives")
        nodes.append(AnalysisNode(did, "descriptives", metric, corpus, (),
                                  lambda ds, _, b=block, i=did: describe_block(b, i), "per-system summary"))
        pid = analysis_id(metric, corpus, "pairwise")
        nodes.append(AnalysisNode(pid, "pairwise", metric, corpus, (did,),
                                  lambda ds, _, b=block, i=pid: pairwise_block(b, i, tests, spec.alpha),
                                  f"{tests.pairwise}, {tests.alternative}, {tests.correction}"))
        if len(block.systems) >= 3 and tests.omnibus != "none":
            oid = analysis_id(metric, corpus, "omnibus")
            nodes.append(AnalysisNode(oid, "omnibus", metric, corpus, (did,),
                                      lambda ds, _, b=block, i=oid: omnibus_block(b, i, tests, spec.alpha),
                                      f"{tests.omnibus}, sphericity {tests.sphericity}"))
    return nodes


def results_json(spec: Spec, dataset: Dataset, results: Mapping[str, Any], version: str) -> dict[str, Any]:
    """The results.json document (schema_version 1): stable field names, nulls for what is not computable."""
    from sigreport.stats.result import to_jsonable

    analyses = []
    for r in results.values():
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
        "data": {"scores": dataset.source.rsplit("/", 1)[-1], "sha256": dataset.sha256, "rows": dataset.n_rows},
        "systems": list(dataset.systems),
        "corpora": list(dataset.corpora),
        "metrics": {k: {"label": m.label or k, "higher_is_better": m.higher_is_better, "decimals": m.decimals}
                    for k, m in spec.metrics.items()},
        "tests": spec.tests.model_dump(),
        "analyses": analyses,
    }


def _flatten_extra(pair: dict[str, Any]) -> dict[str, Any]:
    extra = pair.pop("extra", None) or {}
    for k, v in extra.items():
        pair.setdefault(k, v)
    return pair
