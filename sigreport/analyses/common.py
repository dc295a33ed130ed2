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
