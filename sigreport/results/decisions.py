"""The decisions of a report: for every (metric, corpus), one object that every summary reads.

The Conclusions, the key figure beside them, the main table's marks and markers (and so main.md and
main.csv), the release index and ``sigreport diff`` all read :class:`BlockDecisions`; none of them decides
anything itself. It is computed once from the records (typed, or read back from results.json, so a report
rendered from results.json says the same), by :func:`decide`.

Three rules live here, each in one function:

* **Significance** is :func:`~sigreport.stats.result.is_significant` (``p <= alpha``, adjusted where a
  family's correction applies), applied when a record is made; the model reads the recorded decisions.
* **Order and ties** are :func:`rank_systems`: systems are ordered by their value *as shown*, rounded to
  the metric's ``decimals``, so two systems a reader sees with the same value share a rank, and a
  difference below the shown precision never makes a "best system". Ties keep the table order.
* **The primary test** of a block, the one the Conclusions follow, is :func:`choose_primary`: the first
  cross-validation test for a cross-validation design (the order of ``tests.cv_methods``; for 5x2cv
  Dietterich's t before Alpaydin's F); the post-hoc test after the omnibus test for many data sets
  (``level: corpora``, Demšar 2006); otherwise the spec's pairwise test on item-level data.

Every other test of the same block that decides the same pairs is compared with the primary one, and
each disagreement is kept (:class:`Disagreement`) so that the Conclusions name it instead of silently
outvoting it: another frequentist family (5x2cv F vs t, post-hoc vs pairwise), the Bayesian comparison
against the frequentist decision, and the omnibus test against its post-hoc (or pairwise) family.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import numpy as np

from sigreport.results.collection import NOTEBOOK, MetricInfo, Results
from sigreport.results.names import correction_name, test_name
from sigreport.results.ranks import Ranks, interval_better, ranks_of
from sigreport.results.reading import DEFAULT_DECIMALS, analysis_key, read_document  # noqa: F401 (analysis_key: as before)
from sigreport.results.records import (BayesianRecord, DescriptivesRecord, FriedmanRecord, PairRow, PairwiseRecord,
                                       PosthocRecord, PosthocRow, PreferenceRecord, Record, RMAnovaRecord,
                                       RunsRecord)
from sigreport.stats.result import is_significant

__all__ = ["BlockDecisions", "Decisions", "Disagreement", "PairDecision", "RunSpread", "TestRef", "choose_primary",
           "decide",
           "decide_document", "is_significant", "rank_systems", "shown_value"]

FAMILY_KINDS = ("pairwise", "cv", "posthoc")  # records whose pairs are frequentist decisions about systems
Family = Union[PairwiseRecord, PosthocRecord]  # a record of FAMILY_KINDS


def shown_value(value: float, decimals: int) -> float:
    """``value`` as a reader sees it: rounded to ``decimals`` the way the report prints it."""
    return float(f"{value:.{decimals}f}") + 0.0  # + 0.0: -0.000 and 0.000 are one value


def rank_systems(values: Mapping[str, float | None], higher_is_better: bool,
                 decimals: int) -> tuple[tuple[str, ...], ...]:
    """Systems grouped by their value as shown (:func:`shown_value`), best group first; within a group, the
    order of ``values`` (the table order). Systems without a finite value are left out.

    The one rule of order and ties: the conclusions' best system, the main table's bold and underline, the
    release index's best system and the diff's order all come from it."""
    shown = {s: shown_value(v, decimals) for s, v in values.items() if v is not None and math.isfinite(v)}
    distinct = sorted(set(shown.values()), reverse=higher_is_better)
    return tuple(tuple(s for s in values if s in shown and shown[s] == v) for v in distinct)


@dataclasses.dataclass(frozen=True)
class TestRef:
    """A test of the report: its record id, kind, method key and display name (:mod:`.names`)."""

    id: str
    kind: str
    method: str
    name: str
    correction: str | None = None  # the family's correction; None for a post-hoc test's own adjustment

    @property
    def adjusted(self) -> str:
        """'Holm-adjusted', 'unadjusted', or '' (a post-hoc test adjusts by its own procedure)."""
        if self.correction is None:
            return ""
        return "unadjusted" if self.correction == "none" else f"{correction_name(self.correction)}-adjusted"


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairDecision:
    """The primary test's corrected decision on a pair: ``significant`` (None: not computable), ``better``
    (the system ahead by the test's own direction: the sign of its estimate and the metric's direction, or
    the average ranks; None without a direction), the adjusted p-value and the estimate of a - b."""

    a: str
    b: str
    significant: bool | None
    better: str | None
    pvalue_adjusted: float | None
    estimate: float | None
    mde: float | None = None  # the smallest true difference the test detects at tests.power (None: not computed)
    mde_power: float | None = None

    @property
    def winner(self) -> str | None:
        """The significantly better system, or None."""
        return self.better if self.significant else None


@dataclasses.dataclass(frozen=True)
class RunSpread:
    """A pair whose difference of means over training runs is smaller than the larger of the two systems' SDs
    over their runs: another seed could reorder them."""

    a: str
    b: str
    difference: float
    sd: float
    system: str  # the system whose runs spread by ``sd``


@dataclasses.dataclass(frozen=True, kw_only=True)
class Disagreement:
    """Another test of the same block that decides differently from the primary test.

    ``kind``: ``test`` (another frequentist family on the same pair), ``bayesian`` (the Bayesian comparison
    of the pair against the primary decision) or ``omnibus`` (the omnibus test against the post-hoc family,
    or the primary family where no post-hoc ran; ``a`` and ``b`` are then None). ``primary_says`` /
    ``other_says``: ``different``, ``not different`` (pairs and omnibus tests), or the Bayesian decision
    ``a_better``, ``b_better``, ``equivalent`` (of a vs b). ``*_value``: the p-value the decision was taken
    on (adjusted for families, corrected for RM-ANOVA), or the posterior probability of the Bayesian
    decision; for an omnibus disagreement ``primary_value`` is the smallest adjusted p-value of the family
    and ``pairs`` the pairs it separates."""

    kind: str
    primary: TestRef
    other: TestRef
    a: str | None
    b: str | None
    primary_says: str
    other_says: str
    primary_value: float | None
    other_value: float | None
    pairs: tuple[tuple[str, str], ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class BlockDecisions:
    """Everything a summary says about one metric on one corpus (``corpus`` None: across corpora).

    ``values``: each system's value (the descriptives' mean, or the corpus-level value), table order;
    ``tiers``: :func:`rank_systems` of them (``best`` is the first tier: several systems when tied);
    ``primary`` and ``reason``: the test the decisions follow and why (:func:`choose_primary`); ``pairs``:
    its decisions; ``beats``: system -> systems it is significantly better than; ``undecided``: systems with
    a comparison that could not be decided; ``groups``: maximal runs of systems in value order that the
    primary test does not separate (every pair compared and not significant); ``baseline``: the system
    every comparison is against (vs_baseline, or a post-hoc control), else None."""

    metric: str
    corpus: str | None
    level: str | None
    label: str
    higher_is_better: bool
    decimals: int
    values: Mapping[str, float | None]
    tiers: tuple[tuple[str, ...], ...]
    primary: TestRef | None
    reason: str
    pairs: tuple[PairDecision, ...]
    beats: Mapping[str, frozenset[str]]
    undecided: frozenset[str]
    groups: tuple[tuple[str, ...], ...]
    baseline: str | None
    disagreements: tuple[Disagreement, ...]
    record: Family | None = dataclasses.field(default=None, compare=False, repr=False)  # the primary test's record
    within_runs: tuple[RunSpread, ...] = ()  # pairs closer than the spread between one system's training runs

    @property
    def best(self) -> tuple[str, ...]:
        return self.tiers[0] if self.tiers else ()

    def _repr_html_(self) -> str | None:
        """Jupyter's display: the block's decisions as a table of the report (``collection.NOTEBOOK``)."""
        show = NOTEBOOK.get("BlockDecisions")
        return show(self) if show is not None else None

    @property
    def order(self) -> tuple[str, ...]:
        """Systems with a value, best first (ties in table order)."""
        return tuple(s for tier in self.tiers for s in tier)

    def rank(self, system: str) -> int | None:
        """1 for the best value as shown, 2 for the next distinct one, ...; None without a value."""
        return next((i + 1 for i, tier in enumerate(self.tiers) if system in tier), None)

    def compared(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self._compared

    @functools.cached_property
    def _compared(self) -> frozenset[frozenset[str]]:
        """The pairs as unordered pairs of names, made once (``compared`` is asked for many pairs of a family)."""
        return frozenset(frozenset((p.a, p.b)) for p in self.pairs)

    def significant(self, a: str, b: str) -> bool:
        return b in self.beats.get(a, frozenset()) or a in self.beats.get(b, frozenset())

    @functools.cached_property
    def ranks(self) -> Ranks | None:
        """Rank (UB) and tier of every system with a value, from :attr:`beats` (:mod:`.ranks`): 1 + the number
        of systems the primary test finds significantly better, as the Conclusions decide; None without a
        primary test. Systems in value order (a tier's members read best value first)."""
        if self.primary is None:
            return None
        return ranks_of(self.order, self.beats)

    @property
    def n_significant(self) -> int:
        return sum(1 for p in self.pairs if p.significant)

    @property
    def n_decided(self) -> int:
        return sum(1 for p in self.pairs if p.significant is not None)


@dataclasses.dataclass(frozen=True)
class Decisions:
    """Every block's decisions, in the order of the descriptives (metric, then corpus)."""

    blocks: tuple[BlockDecisions, ...]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)

    def get(self, metric: str, corpus: str | None) -> BlockDecisions | None:
        return next((b for b in self.blocks if b.metric == metric and b.corpus == corpus), None)

    def _repr_html_(self) -> str | None:
        """Jupyter's display: every block's decisions (``collection.NOTEBOOK``)."""
        show = NOTEBOOK.get("BlockDecisions")
        return "\n".join(show(b) for b in self.blocks) if show is not None else None


# ---- building ---------------------------------------------------------------------------------------


def ref_of(record: Family | FriedmanRecord | RMAnovaRecord) -> TestRef:
    kind, method = record.kind, str(record.method)
    correction = record.correction if isinstance(record, PairwiseRecord) else None
    name = test_name(kind, method)
    if isinstance(record, PosthocRecord) and record.after:
        name = f"{name} after the {test_name('omnibus', record.after)}"
    return TestRef(str(record.id), kind, method, name, correction)


def families_of(records: Iterable[Record]) -> list[Family]:
    """The records of :data:`FAMILY_KINDS` with at least one pair, in order."""
    return [r for r in records if r.kind in FAMILY_KINDS and isinstance(r, (PairwiseRecord, PosthocRecord))
            and r.pairs]


def choose_primary(records: Sequence[Record]) -> tuple[Family | None, str]:
    """The record whose decisions a block's summaries follow, and the rule that chose it (module doc)."""
    fams = families_of(records)
    cv = [r for r in fams if r.kind == "cv"]
    if cv:
        return cv[0], ("the first cross-validation test of the spec (tests.cv_methods; for 5x2cv Dietterich's t "
                       "before Alpaydin's F)")
    posthoc = [r for r in fams if r.kind == "posthoc"]
    pairwise = [r for r in fams if r.kind == "pairwise"]
    across = any(r.level == "corpora" for r in records)
    if across and posthoc:
        return posthoc[0], "the post-hoc test after the omnibus test, for many data sets (level: corpora; Demšar 2006)"
    if pairwise:
        return pairwise[0], ("the spec's pairwise test on item-level data (tests.pairwise)" if not across else
                             "the spec's pairwise test (tests.pairwise): no post-hoc test ran across the corpora")
    if posthoc:
        return posthoc[0], "the post-hoc test after the omnibus test (no pairwise test ran)"
    return None, "no pairwise test compared the systems"


def better_of(p: PairRow | PosthocRow, ranks: Mapping[str, float | None], values: Mapping[str, float | None],
              higher: bool) -> str | None:
    """The system ahead in pair ``p`` by the test's own direction: the sign of its estimate of a - b and the
    metric's direction; a rank post-hoc pair by its average ranks (1 = best); else the values."""
    est = p.estimate if isinstance(p, PairRow) else None
    if est is not None and est != 0:
        return p.a if (est > 0) == higher else p.b
    rd = p.rank_difference if isinstance(p, PosthocRow) else None
    ra, rb = ranks.get(p.a), ranks.get(p.b)
    if ra is not None and rb is not None and ra != rb:
        return p.a if ra < rb else p.b
    if rd is not None and rd != 0:
        return p.a if rd < 0 else p.b
    va, vb = values.get(p.a), values.get(p.b)
    if va is None or vb is None or va == vb:
        return None
    return p.a if (va > vb) == higher else p.b


def pair_decisions(record: Family, values: Mapping[str, float | None], higher: bool) -> tuple[PairDecision, ...]:
    ranks = record.average_ranks if isinstance(record, PosthocRecord) else {}
    out = []
    for p in record.pairs:
        est = p.estimate if isinstance(p, PairRow) else None
        mde = p.mde if isinstance(p, PairRow) else None
        out.append(PairDecision(a=p.a, b=p.b, significant=p.significant, better=better_of(p, ranks, values, higher),
                                pvalue_adjusted=p.pvalue_adjusted, estimate=est,
                                mde=mde.value if mde is not None else None,
                                mde_power=mde.power if mde is not None else None))
    return tuple(out)


def beats_of(pairs: Iterable[PairDecision]) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """Who significantly beats whom, and the systems with a comparison that has no decision (or a
    significant one without a direction)."""
    beats: dict[str, set[str]] = {}
    undecided: set[str] = set()
    for p in pairs:
        if p.significant is None or (p.significant and p.better is None):
            undecided.update((p.a, p.b))
        elif p.significant:
            beats.setdefault(p.better, set()).add(p.b if p.better == p.a else p.a)  # type: ignore[arg-type]
    return {k: frozenset(v) for k, v in beats.items()}, frozenset(undecided)


def groups_of(order: Sequence[str], pairs: Sequence[PairDecision], undecided: frozenset[str]
              ) -> tuple[tuple[str, ...], ...]:
    """Maximal runs of ``order`` whose pairs were all compared and none is significant (the bars of a
    critical-difference diagram).

    A run starting at ``i`` ends at the largest ``j`` such that every system after ``i`` up to ``j`` is quiet with
    every system before it back to ``i``. ``reach[j]``, the first position from which system ``j`` is quiet with
    every system up to it, gives that in one pass: the run from ``i`` extends while ``reach[j + 1] <= i``, and its
    end never moves back as ``i`` grows, so the runs take O(k^2) for k systems (the quiet matrix), not O(k^3). A run
    ends at the same system as the one before it only when it lies inside it, and is then left out."""
    k = len(order)
    if k < 2:
        return ()
    index = {s: i for i, s in enumerate(order)}
    quiet = np.zeros((k, k), dtype=bool)
    ai, bi = [], []
    for p in pairs:
        if p.significant is False and p.a in index and p.b in index:
            ai.append(index[p.a])
            bi.append(index[p.b])
    quiet[ai, bi] = True
    quiet[bi, ai] = True
    out = [index[s] for s in undecided if s in index]
    quiet[out, :] = False
    quiet[:, out] = False
    rows = np.arange(k)[:, None]
    # the last position above j (in order) whose system is not quiet with j's; -1 when there is none
    loud = np.where(~quiet & (rows < np.arange(k)[None, :]), rows, -1).max(axis=0)
    reach = (loud + 1).tolist()
    runs, j, last = [], 0, -1
    for i in range(k):
        j = max(j, i)
        while j + 1 < k and reach[j + 1] <= i:
            j += 1
        if j > i and j != last:
            runs.append(tuple(order[i:j + 1]))
        last = j
    return tuple(runs)


def baseline_of(record: Family | None, spec_baseline: str | None) -> str | None:
    """The system every pair of the primary family is against (vs_baseline: the spec's baseline, else the
    second system of the pairs), or a post-hoc test's control; None for all pairs."""
    if record is None or not record.pairs:
        return None
    if isinstance(record, PairwiseRecord) and record.comparisons == "vs_baseline":
        common = set.intersection(*({p.a, p.b} for p in record.pairs))
        if not common:
            return None
        return str(spec_baseline if spec_baseline in common else record.pairs[0].b if record.pairs[0].b in common
                   else sorted(common)[0])
    if isinstance(record, PosthocRecord) and record.control:
        return str(record.control)
    return None


def decide(results: Results, baseline: str | None = None) -> Decisions:
    """The decisions of every (metric, corpus) that has descriptives, from ``results`` (built by the analyses or
    read back from results.json); ``baseline``: the spec's, when known (results.json does not hold it), to name
    the reference system of a family compared against the baseline."""
    return decide_records(results.records, results.metrics, baseline)


def decide_records(records: Sequence[Record], metrics: Mapping[str, MetricInfo],
                   baseline: str | None = None) -> Decisions:
    """:func:`decide` on records and their metrics."""
    by_block: dict[tuple[str | None, str | None], list[Record]] = {}
    for r in records:
        by_block.setdefault((r.metric, r.corpus), []).append(r)
    out = []
    for r in records:
        info = metrics.get(r.metric) if isinstance(r, DescriptivesRecord) else None
        if info is not None:
            out.append(block_decisions(r, by_block[(r.metric, r.corpus)], info, baseline))  # type: ignore[arg-type]
    out += [preference_decisions(r) for r in records if isinstance(r, PreferenceRecord)]
    return Decisions(tuple(out))


def decide_document(doc: Mapping[str, Any]) -> Decisions:
    """:func:`decide` on a results.json document as read (the release index and the diff read documents, and
    may meet hand-made or partial ones), read by :func:`~sigreport.results.reading.read_document`: analyses
    without an id or kind, and pairs without both systems, are left out; a metric's missing label, direction or
    decimals default to its name, higher is better and :data:`DEFAULT_DECIMALS`."""
    found = read_document(doc)
    return decide_records(found.records, found.metrics)


def block_decisions(desc: DescriptivesRecord, records: Sequence[Record], info: MetricInfo,
                    spec_baseline: str | None = None) -> BlockDecisions:
    higher, decimals = bool(info.higher_is_better), int(info.decimals)
    values = {s.system: s.mean for s in desc.systems}
    tiers = rank_systems(values, higher, decimals)
    record, reason = choose_primary(records)
    primary = ref_of(record) if record is not None else None
    pairs = pair_decisions(record, values, higher) if record is not None else ()
    beats, undecided = beats_of(pairs)
    order = tuple(s for t in tiers for s in t)
    found = disagreements(record, primary, pairs, records, values, higher) if primary is not None else ()
    runs = next((r for r in records if isinstance(r, RunsRecord)), None)
    return BlockDecisions(metric=desc.metric, corpus=desc.corpus, level=desc.level, label=info.label,
                          higher_is_better=higher, decimals=decimals, values=values, tiers=tiers, primary=primary,
                          reason=reason, pairs=pairs, beats=beats, undecided=undecided,
                          groups=groups_of(order, pairs, undecided), baseline=baseline_of(record, spec_baseline),
                          disagreements=found, record=record,
                          within_runs=within_run_spread(runs) if runs is not None else ())


PREFERENCE_LABEL = "Bradley-Terry strength"
PREFERENCE_DECIMALS = 3  # the strengths as the preference view shows them


def preference_decisions(record: PreferenceRecord) -> BlockDecisions:
    """The decisions of a Bradley-Terry analysis of preference votes (``data.preferences``), one block of the
    model like a metric's: values are the strengths (higher is better), and a system is significantly better
    than another when its bootstrap interval lies wholly above the other's (Chatbot Arena's rule,
    :func:`~sigreport.results.ranks.interval_better`), so that :attr:`BlockDecisions.ranks` is the record's
    Rank (UB) and the tiers the Conclusions read. Every pair is decided (no p-value: the intervals decide); a
    system without a finite interval leaves its pairs undecided. No other test decides these pairs."""
    systems = [s.system for s in record.systems]
    values = {s.system: s.strength for s in record.systems}
    nan = float("nan")
    bounds = [(s.ci_low, s.ci_high) for s in record.systems]
    # an interval is known when both bounds are and low <= high (a hand-made document may hold anything else)
    known = [lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi) and lo <= hi
             for lo, hi in bounds]
    low = [lo if k else nan for (lo, _), k in zip(bounds, known)]
    high = [hi if k else nan for (_, hi), k in zip(bounds, known)]
    better = interval_better(low, high)  # type: ignore[arg-type]
    pairs = []
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            a, b, va, vb = systems[i], systems[j], values[systems[i]], values[systems[j]]
            decided = known[i] and known[j]
            ahead = a if better[i, j] else b if better[j, i] else (
                None if va is None or vb is None or va == vb else a if va > vb else b)
            pairs.append(PairDecision(a=a, b=b, significant=bool(better[i, j] or better[j, i]) if decided else None,
                                      better=ahead, pvalue_adjusted=None,
                                      estimate=va - vb if va is not None and vb is not None else None))
    tiers = rank_systems(values, True, PREFERENCE_DECIMALS)
    order = tuple(s for t in tiers for s in t)
    beats, undecided = beats_of(pairs)
    level = f"{100 * record.ci_level:g}%"
    unit = "items with all their votes" if record.unit == "items" else "votes"
    reason = (f"a system is significantly better than another when its {level} bootstrap percentile interval of the "
              f"strengths ({record.n_resamples:,} replicates resampling {unit}) lies wholly above the other's "
              "(Chatbot Arena's rule)")
    primary = TestRef(str(record.id), record.kind, str(record.method), test_name(record.kind, str(record.method)))
    return BlockDecisions(metric=record.metric, corpus=record.corpus, level=None, label=PREFERENCE_LABEL,
                          higher_is_better=True, decimals=PREFERENCE_DECIMALS, values=values, tiers=tiers,
                          primary=primary, reason=reason, pairs=tuple(pairs), beats=beats, undecided=undecided,
                          groups=groups_of(order, pairs, undecided), baseline=None, disagreements=(), record=None)


def within_run_spread(runs: RunsRecord) -> tuple[RunSpread, ...]:
    """The pairs of a runs record whose difference is smaller than the spread of one system's runs."""
    sd = {s.system: s.sd for s in runs.systems}
    out = []
    for p in runs.pairs:
        est = p.estimate
        spreads = [(sd[x], x) for x in (p.a, p.b) if sd.get(x) is not None]
        if est is None or not spreads:
            continue
        widest, who = max(spreads)
        if abs(est) < widest:
            out.append(RunSpread(p.a, p.b, float(est), float(widest), who))
    return tuple(out)


# ---- disagreements ----------------------------------------------------------------------------------


def _by_pair(pairs: Iterable[PairDecision]) -> dict[frozenset[str], PairDecision]:
    return {frozenset((p.a, p.b)): p for p in pairs}


def disagreements(record: Family, primary: TestRef, pairs: tuple[PairDecision, ...], records: Sequence[Record],
                  values: Mapping[str, float | None], higher: bool) -> tuple[Disagreement, ...]:
    """Every other test of the block that decides differently from the primary one (module doc)."""
    mine = _by_pair(pairs)
    out: list[Disagreement] = []
    fams = families_of(records)
    for other in (r for r in fams if r is not record):
        out += family_disagreements(primary, mine, ref_of(other), pair_decisions(other, values, higher))
    for bayes in (r for r in records if isinstance(r, BayesianRecord)):
        out += bayesian_disagreements(primary, mine, bayes)
    for runs in (r for r in records if isinstance(r, RunsRecord)):
        out += runs_disagreements(primary, mine, runs)
    posthoc = next((r for r in fams if r.kind == "posthoc"), None)
    family = (posthoc, pair_decisions(posthoc, values, higher)) if posthoc is not None and posthoc is not record \
        else (record, pairs)
    for omnibus in (r for r in records if isinstance(r, (FriedmanRecord, RMAnovaRecord))):
        found = omnibus_disagreement(ref_of(family[0]), family[1], omnibus)
        out += [found] if found is not None else []
    return tuple(out)


def family_disagreements(primary: TestRef, mine: Mapping[frozenset[str], PairDecision], other: TestRef,
                         theirs: Iterable[PairDecision]) -> list[Disagreement]:
    """Pairs the two families decide differently: significant in one and not in the other, or significant in
    both with opposite winners."""
    out = []
    for q in theirs:
        p = mine.get(frozenset((q.a, q.b)))
        if p is None or p.significant is None or q.significant is None:
            continue
        if p.significant != q.significant or (p.significant and p.better != q.better):
            says = {True: "different", False: "not different"}
            out.append(Disagreement(kind="test", primary=primary, other=other, a=p.a, b=p.b,
                                    primary_says=says[p.significant], other_says=says[q.significant],
                                    primary_value=p.pvalue_adjusted, other_value=q.pvalue_adjusted))
    return out


def bayesian_disagreements(primary: TestRef, mine: Mapping[frozenset[str], PairDecision],
                           record: BayesianRecord) -> list[Disagreement]:
    """Bayesian decisions that contradict the primary test's: practically equivalent where the test finds a
    difference; practically better where it finds none, or the other system significantly better."""
    method = str(record.method)
    ref = TestRef(str(record.id), "bayesian", method, test_name("bayesian", method))
    out = []
    for q in record.pairs:
        p = mine.get(frozenset((q.a, q.b)))
        decision = q.decision
        if p is None or p.significant is None or decision not in ("a_better", "b_better", "equivalent"):
            continue
        ahead = q.a if decision == "a_better" else q.b if decision == "b_better" else None
        clash = (decision == "equivalent" and p.significant) or (
            ahead is not None and (not p.significant or p.better != ahead))
        if clash:
            prob = {"a_better": q.p_a_better, "b_better": q.p_b_better, "equivalent": q.p_equivalent}[decision]
            out.append(Disagreement(kind="bayesian", primary=primary, other=ref, a=q.a, b=q.b,
                                    primary_says="different" if p.significant else "not different",
                                    other_says=decision, primary_value=p.pvalue_adjusted, other_value=prob))
    return out


def runs_disagreements(primary: TestRef, mine: Mapping[frozenset[str], PairDecision], record: RunsRecord
                       ) -> list[Disagreement]:
    """Almost stochastic order over the runs against the primary test over items: it finds one system better
    where the test finds no difference (or the other one better), or it finds neither better where the test
    finds a difference. ``other_value`` is the eps_min of the claim (or the smaller of the two)."""
    ref = TestRef(str(record.id), "runs", "aso", test_name("runs", "aso"))
    out = []
    for q in record.pairs:
        p = mine.get(frozenset((q.a, q.b)))
        decision = q.decision
        if p is None or p.significant is None or not decision:
            continue
        ahead = q.a if decision == "a_better" else q.b if decision == "b_better" else None
        clash = (ahead is None and p.significant) or (ahead is not None and (not p.significant or p.better != ahead))
        if clash:
            eps = [v for v in (q.eps_min_ab, q.eps_min_ba) if v is not None]
            value = q.eps_min_ab if decision == "a_better" else q.eps_min_ba \
                if decision == "b_better" else (min(eps) if eps else None)
            out.append(Disagreement(kind="runs", primary=primary, other=ref, a=q.a, b=q.b,
                                    primary_says="different" if p.significant else "not different",
                                    other_says=decision, primary_value=p.pvalue_adjusted, other_value=value))
    return out


def omnibus_disagreement(family: TestRef, pairs: Sequence[PairDecision], omnibus: FriedmanRecord | RMAnovaRecord
                         ) -> Disagreement | None:
    """The omnibus test finds no difference while the family separates pairs, or finds one while the family
    separates none."""
    sig = omnibus.significant
    decided = [p for p in pairs if p.significant is not None]
    if sig is None or not decided:
        return None
    separated = tuple((p.a, p.b) for p in decided if p.significant)
    if bool(separated) == bool(sig):
        return None
    ps = [p.pvalue_adjusted for p in decided if p.pvalue_adjusted is not None]
    corrected = omnibus.pvalue_corrected if isinstance(omnibus, RMAnovaRecord) else None
    p_omni = corrected if corrected is not None else omnibus.pvalue  # (a hand-made document may lack it)
    method = str(omnibus.method)
    ref = TestRef(str(omnibus.id), "omnibus", method, test_name("omnibus", method))
    return Disagreement(kind="omnibus", primary=family, other=ref, a=None, b=None,
                        primary_says="different" if separated else "not different",
                        other_says="different" if sig else "not different", primary_value=min(ps) if ps else None,
                        other_value=p_omni, pairs=separated)
