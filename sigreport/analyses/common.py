"""What every analysis kind shares: ids, per-node seeds, pairs of systems, family corrections and the
``selection: fixed`` rule."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
from typing import Any

import numpy as np

from sigreport.results.records import PairRow
from sigreport.spec import TestsSpec
from sigreport.stats import correction, select
from sigreport.stats.result import PairedTestResult, finite_or_none


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


def system_pairs(systems: tuple[str, ...], tests: TestsSpec, baseline: str | None) -> list[tuple[int, int]]:
    """all_pairs: (i, j), i < j in table order; vs_baseline: (system, baseline) for every other system."""
    if tests.comparisons == "vs_baseline" and baseline is not None:
        c = systems.index(baseline)
        return [(i, c) for i in range(len(systems)) if i != c]
    return list(itertools.combinations(range(len(systems)), 2))


def pinned(tests: TestsSpec, previous_method: str | None, chosen: select.Selection
           ) -> tuple[str, dict[str, Any], list[str]]:
    """Apply ``selection: fixed``: reuse the previous report's method; say when the choice would differ.

    ``previous_method`` is the method the previous report (given explicitly to the plan) chose for
    this analysis, or None when there is none."""
    warnings = []
    if previous_method is None and tests.selection == "fixed":
        warnings.append(f"selection is fixed, but there is no previous report with this analysis: {chosen.method} "
                        "was chosen from this data, and later builds will keep it")
    if previous_method is not None and previous_method != chosen.method:
        if tests.selection == "fixed":
            warnings.append(f"selection is fixed: {previous_method} kept from the previous report, although the "
                            f"automatic choice would now be {chosen.method} ({chosen.reason})")
            return previous_method, selection_dict(chosen, previous_method, True), warnings
        warnings.append(f"the automatic choice changed since the previous report: {chosen.method} now, "
                        f"{previous_method} before")
    return chosen.method, selection_dict(chosen, previous_method, False), warnings


def family_entries(systems: tuple[str, ...], pairs: list[tuple[int, int]], results: list[PairedTestResult],
                   corr: str, alpha: float) -> tuple[PairRow, ...]:
    """Adjust the family's p-values and build the rows."""
    raw = np.array([np.nan if r.pvalue is None else r.pvalue for r in results])
    adjusted = correction.adjust(raw, corr)
    entries = []
    for (i, j), r, p_adj in zip(pairs, results, adjusted):
        p_adj_v = finite_or_none(p_adj)
        entries.append(PairRow(systems[i], systems[j], r, p_adj_v, None if p_adj_v is None else bool(p_adj_v <= alpha)))
    return tuple(entries)


FAMILY_KINDS = ("pairwise", "cv", "mcnemar")
"""Record kinds whose pairs form the correction families (post-hoc tests are their own family, gated by
the omnibus test)."""


def family_key(family: str, record: Any) -> tuple[str | None, ...]:
    """The family a pairwise record's tests belong to under ``tests.family``."""
    if family == "metric":
        return (record.metric,)
    if family == "corpus":
        return (record.corpus,)
    if family == "all":
        return ()
    return (record.id,)


def apply_families(records: tuple[Any, ...], tests: TestsSpec, alpha: float) -> tuple[Any, ...]:
    """Re-adjust p-values over the declared family (``tests.family``) when it is wider than one metric on one
    corpus: every pairwise, cross-validation and McNemar test of the family is corrected together, in plan
    order, and each record's ``family_size`` becomes the family's. Runs after the plan (the nodes stay
    per block and cacheable); the result depends only on the records, so it is deterministic."""
    if tests.family == "metric_corpus":
        return records
    groups: dict[tuple[str | None, ...], list[tuple[int, int]]] = {}
    for r_i, rec in enumerate(records):
        if getattr(rec, "kind", None) in FAMILY_KINDS:
            for p_i in range(len(rec.pairs)):
                groups.setdefault(family_key(tests.family, rec), []).append((r_i, p_i))
    out = list(records)
    adjusted: dict[tuple[int, int], float | None] = {}
    sizes: dict[int, int] = {}
    for members in groups.values():
        raw = np.array([np.nan if records[r].pairs[p].pvalue is None else records[r].pairs[p].pvalue
                        for r, p in members])
        for (r, p), v in zip(members, correction.adjust(raw, tests.correction)):
            adjusted[(r, p)] = finite_or_none(v)
            sizes[r] = len(members)
    for r_i, size in sizes.items():
        rec = records[r_i]
        pairs = tuple(dataclasses.replace(row, pvalue_adjusted=adjusted[(r_i, p_i)],
                                          significant=None if adjusted[(r_i, p_i)] is None
                                          else bool(adjusted[(r_i, p_i)] <= alpha))
                      for p_i, row in enumerate(rec.pairs))
        warnings = rec.warnings
        if size == 1:
            warnings += (f"tests.family is {tests.family}, but its family holds this single test: nothing to "
                         "correct",)
        out[r_i] = dataclasses.replace(rec, pairs=pairs, family_size=size, warnings=warnings)
    return tuple(out)


def link_frequentist(records: tuple[Any, ...]) -> tuple[Any, ...]:
    """Bayesian rows with the frequentist decision on the same pair beside them (after the family correction):
    the pairwise record of the same metric and corpus, else its first cross-validation record."""
    tests: dict[tuple[Any, Any], Any] = {}
    for rec in records:
        if getattr(rec, "kind", None) in ("pairwise", "cv"):
            tests.setdefault((rec.metric, rec.corpus), rec)
    out = []
    for rec in records:
        freq = tests.get((rec.metric, rec.corpus)) if getattr(rec, "kind", None) == "bayesian" else None
        if freq is not None:
            by_pair = {(p.a, p.b): p for p in freq.pairs}
            rows = tuple(dataclasses.replace(row, frequentist_method=freq.method,
                                             frequentist_pvalue_adjusted=by_pair[(row.a, row.b)].pvalue_adjusted,
                                             frequentist_significant=by_pair[(row.a, row.b)].significant)
                         if (row.a, row.b) in by_pair else row for row in rec.pairs)
            rec = dataclasses.replace(rec, pairs=rows)
        out.append(rec)
    return tuple(out)
