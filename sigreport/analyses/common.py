"""What every analysis kind shares: ids, per-node seeds, the resamples shared by the metrics of a corpus, pairs
of systems, family corrections and the ``selection: fixed`` rule."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import threading
import weakref
from typing import Any

import numpy as np

from sigreport.results.decisions import choose_primary
from sigreport.results.records import AutomaticChoice, PairRow
from sigreport.spec import TestsSpec
from sigreport.stats import registry, resampling, select
from sigreport.stats.result import PairedTestResult, finite_or_none, is_significant


def analysis_id(metric: str, corpus: str | None, kind: str) -> str:
    return f"{metric}/{corpus if corpus is not None else '*'}/{kind}"


def derived_seed(seed: int, node_id: str) -> int:
    """A per-analysis seed from the spec's seed and the analysis id: independent streams, same every run."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{node_id}".encode()).digest()[:8], "little")


RESAMPLE_CONTRACT = (
    "The bootstrap and permutation replicates of a corpus are drawn once, from a seed derived from the spec's "
    "seed, the corpus, the kind of replicates (bootstrap counts, shared by bootstrap and bootstrap_t, or "
    "permutation swaps), B and the number of items, and nothing else: every metric of the corpus is resampled "
    "with the same replicates, and a metric's results do not depend on which other metrics the spec has or "
    "their order."
)
"""The seed contract of bootstrap and permutation tests (docs/methods.md): what :func:`resample_seed` implements."""


def resample_seed(seed: int, corpus: str | None, kind: str, n_resamples: int, n_items: int) -> int:
    """The seed of a corpus's resample (see :data:`RESAMPLE_CONTRACT`): no metric or analysis id enters it, so
    every metric measured on the corpus's items gets the same replicates whatever else the spec holds."""
    return derived_seed(seed, json.dumps(["resample", corpus, kind, int(n_resamples), int(n_items)]))


class SharedResamples:
    """Resamples drawn in this process, kept while a data block that used them is alive.

    The first metric of a corpus to be resampled draws the replicates; the others reuse them (drawing is
    about half of a mean metric's bootstrap). Entries are held compactly (uint8: 10 MB for B = 10,000 x
    1,000 items) up to ``budget`` bytes in all; beyond it a resample is drawn for its caller and not kept,
    which costs speed, never results (a kept resample equals a fresh draw). Entries go when every block
    that used them has been garbage-collected (the dataset of the run is gone), so a long-lived process
    does not hold them after its builds. Thread-safe (Dask workers run tasks in threads); two threads
    may both draw the same resample, which only costs time.
    """

    def __init__(self, budget: int = 256 << 20):
        self.budget = budget
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, int, int, int], tuple[resampling.Resample, dict[int, weakref.ref]]] = {}
        self.draws = 0

    def get(self, kind: str, n_rows: int, n: int, seed: int, user: object) -> resampling.Resample:
        """The resample (kind, n_rows, n, seed), drawn now or reused; ``user`` (a data block) keeps it alive."""
        key = (kind, int(n_rows), int(n), int(seed))
        with self._lock:
            self._purge()
            hit = self._entries.get(key)
            if hit is not None:
                _keep(hit[1], user)
                return hit[0]
        drawn = resampling.draw_resample(kind, n_rows, n, seed)
        with self._lock:
            self.draws += 1
            hit = self._entries.get(key)
            if hit is not None:
                _keep(hit[1], user)
                return hit[0]
            users: dict[int, weakref.ref] = {}
            if _keep(users, user) and self._size() + drawn.weights.nbytes <= self.budget:
                self._entries[key] = (drawn, users)
        return drawn

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _size(self) -> int:
        return sum(r.weights.nbytes for r, _ in self._entries.values())

    def _purge(self) -> None:
        for key, (_, users) in list(self._entries.items()):
            for uid, ref in list(users.items()):
                if ref() is None:
                    del users[uid]
            if not users:
                del self._entries[key]


def _keep(users: dict[int, weakref.ref], user: object) -> bool:
    """Record ``user`` as keeping an entry alive; False when it cannot be weakly referenced (then nothing is kept)."""
    ref = users.get(id(user))
    if ref is None or ref() is not user:
        try:
            users[id(user)] = weakref.ref(user)
        except TypeError:
            return False
    return True


SHARED_RESAMPLES = SharedResamples()
"""This process's shared resamples (every executor's worker has its own; results never depend on it)."""


def choice_of(sel: select.Selection, previous: str | None = None, pinned: bool = False) -> AutomaticChoice:
    """An automatic choice as its record keeps it (``previous``: the previous report's method, if any)."""
    return AutomaticChoice(method=sel.method, steps=tuple(sel.steps), reason=sel.reason, previous_method=previous,
                           pinned=pinned if previous is not None else None)


def system_pairs(systems: tuple[str, ...], tests: TestsSpec, baseline: str | None) -> list[tuple[int, int]]:
    """all_pairs: (i, j), i < j in table order; vs_baseline: (system, baseline) for every other system."""
    if tests.comparisons == "vs_baseline" and baseline is not None:
        c = systems.index(baseline)
        return [(i, c) for i in range(len(systems)) if i != c]
    return list(itertools.combinations(range(len(systems)), 2))


def pinned(tests: TestsSpec, previous_method: str | None, chosen: select.Selection
           ) -> tuple[str, AutomaticChoice, list[str]]:
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
            return previous_method, choice_of(chosen, previous_method, True), warnings
        warnings.append(f"the automatic choice changed since the previous report: {chosen.method} now, "
                        f"{previous_method} before")
    return chosen.method, choice_of(chosen, previous_method, False), warnings


def family_entries(systems: tuple[str, ...], pairs: list[tuple[int, int]], results: list[PairedTestResult],
                   corr: str, alpha: float, *, ci_level: float) -> tuple[PairRow, ...]:
    """Adjust the family's p-values and build the rows. Each row's test carries ``ci_level``, the level asked
    for (its record's, as results.json reads it back): a discrete interval's achieved coverage, which a sign test
    returns as its level, stays in ``extra['ci_level_achieved']`` (:attr:`PairRow.ci`'s ``coverage``)."""
    raw = np.array([np.nan if r.pvalue is None else r.pvalue for r in results])
    adjusted = registry.method("correction", corr).compute(raw)
    entries = []
    for (i, j), r, p_adj in zip(pairs, results, adjusted):
        p_adj_v = finite_or_none(p_adj)
        test = r if r.ci_level == ci_level else dataclasses.replace(r, ci_level=ci_level)
        entries.append(PairRow(a=systems[i], b=systems[j], test=test, pvalue_adjusted=p_adj_v,
                               significant=is_significant(p_adj_v, alpha)))
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
        for (r, p), v in zip(members, registry.method("correction", tests.correction).compute(raw)):
            adjusted[(r, p)] = finite_or_none(v)
            sizes[r] = len(members)
    for r_i, size in sizes.items():
        rec = records[r_i]
        pairs = tuple(dataclasses.replace(row, pvalue_adjusted=adjusted[(r_i, p_i)],
                                          significant=is_significant(adjusted[(r_i, p_i)], alpha))
                      for p_i, row in enumerate(rec.pairs))
        warnings = rec.warnings
        if size == 1:
            warnings += (f"tests.family is {tests.family}, but its family holds this single test: nothing to "
                         "correct",)
        out[r_i] = dataclasses.replace(rec, pairs=pairs, family_size=size, warnings=warnings)
    return tuple(out)


def link_frequentist(records: tuple[Any, ...]) -> tuple[Any, ...]:
    """Bayesian rows with the frequentist decision on the same pair beside them (after the family correction):
    that of the block's primary test, the one its Conclusions follow
    (:func:`sigreport.results.decisions.choose_primary`), so the table and the sentences compare with one test."""
    blocks: dict[tuple[Any, Any], list[Any]] = {}
    for rec in records:
        blocks.setdefault((rec.metric, rec.corpus), []).append(rec)
    out = []
    for rec in records:
        freq = choose_primary(blocks[(rec.metric, rec.corpus)])[0] if getattr(rec, "kind", None) == "bayesian" else None
        if freq is not None:
            by_pair = {(p.a, p.b): p for p in freq.pairs}
            rows = tuple(dataclasses.replace(row, frequentist_method=freq.method,
                                             frequentist_pvalue_adjusted=by_pair[(row.a, row.b)].pvalue_adjusted,
                                             frequentist_significant=by_pair[(row.a, row.b)].significant)
                         if (row.a, row.b) in by_pair else row for row in rec.pairs)
            rec = dataclasses.replace(rec, pairs=rows)
        out.append(rec)
    return tuple(out)
