"""Ranks with honest ties: Rank (UB) and tiers, from a "better-than" matrix of significant decisions.

One rule for every ranked display (the main table's rank column, the tiers of the Conclusions, the leaderboard
figure, results.json ``rank_ub`` and ``tier``), and reusable by any method that decides "i is significantly better
than j" (the primary pairwise family here; a Bradley-Terry fit's intervals elsewhere). Call it with a boolean
matrix; nothing here knows which test made it.

* **Rank (UB)** (Chatbot Arena's "rank upper bound"): ``rank_ub[j] = 1 + #{i : better[i, j]}``, one plus the
  number of systems significantly better than ``j``. Systems nobody beats share rank 1; the rank is an upper
  bound on the position a system could hold in the true order that the decisions allow.
* **Tiers**: a layering of the better-than graph. Tier 1 holds the systems no system beats (exactly the systems of
  rank_ub 1); remove them; tier 2 holds the systems no *remaining* system beats; and so on. By construction
  (i) no system beats another of its own tier (a tier is never separated inside), and (ii) every system of tier
  k + 1 is significantly worse than at least one system of tier k. Tiers are not a partition by rank_ub values:
  two systems of rank 2 can differ significantly (A beaten by C only, B beaten by A only), which would break (i).
  A cycle of decisions (i beats j beats k beats i; possible with non-transitive pairwise tests, never seen here)
  leaves no unbeaten system among those that remain: they then all share the next tier (``Ranks.cycle``).

Entry points for other modules (helper ``bt`` and the rest)::

    rank_ub(better: np.ndarray) -> np.ndarray            # int array, 1-based
    tiers(better: np.ndarray) -> tuple[np.ndarray, bool]  # int array, 1-based; True when a cycle was met
    ranks_of(systems: Sequence[str], beats: Mapping[str, Collection[str]]) -> Ranks
    interval_better(low, high) -> np.ndarray              # Chatbot Arena's rule on intervals (below)

``better[i, j]`` is True when system ``i`` is significantly better than system ``j`` (diagonal False); both
functions are whole-matrix numpy (the tier loop runs once per tier, never per pair).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence

import numpy as np

__all__ = ["LEADERBOARD_MIN", "RANKED_MIN", "TIERS_MIN", "Ranks", "rank_ub", "ranks_of", "tiers", "better_matrix", "interval_better"]

RANKED_MIN = 3
"""Systems from which a block is ranked: the main table's Rank (UB) column (``outputs.main_table.rank: ub``) and
results.json ``rank_ub`` and ``tier`` of its descriptives (with two systems the rank says no more than the pair)."""
TIERS_MIN = 5
"""Systems from which the Conclusions read as tiers instead of sentences about the best system and its pairs."""
LEADERBOARD_MIN = 6
"""Systems from which the key figure is the leaderboard (every value with its interval, ordered, tier marked)."""


def _square(better: np.ndarray) -> np.ndarray:
    b = np.asarray(better, dtype=bool)
    if b.ndim != 2 or b.shape[0] != b.shape[1]:
        raise ValueError(f"a better-than matrix must be square, got shape {b.shape}")
    if b.diagonal().any():
        raise ValueError("a better-than matrix must have a False diagonal (no system is better than itself)")
    if (b & b.T).any():
        raise ValueError("a better-than matrix must not say both i better than j and j better than i")
    return b


def rank_ub(better: np.ndarray) -> np.ndarray:
    """1 + the number of systems significantly better than each system (column sums of ``better``)."""
    b = _square(better)
    return 1 + b.sum(axis=0).astype(np.int64)


def tiers(better: np.ndarray) -> tuple[np.ndarray, bool]:
    """Each system's tier (1 = unbeaten; module doc) and whether a cycle of decisions was met.

    Each step takes the systems no remaining system beats; with a cycle, the systems of the cycles nothing
    outside beats (the source components of the better-than graph: a system all of whose betters it reaches
    back through the decisions), so that a cycle shares one tier and a system below it stays below."""
    b = _square(better)
    n = b.shape[0]
    reach = closure(b)
    mutual = reach & reach.T
    cycle = bool((mutual & ~np.eye(n, dtype=bool)).any())
    tier = np.zeros(n, dtype=np.int64)
    remaining = np.ones(n, dtype=bool)
    k = 0
    while remaining.any():
        k += 1
        idx = np.flatnonzero(remaining)
        # x leads when every remaining system that reaches it is reached back by it (no path through a removed
        # system joins two remaining ones: a removed one was in a source component with whatever reached it)
        leads = ~(reach[np.ix_(idx, idx)] & ~mutual[np.ix_(idx, idx)]).any(axis=0)
        top = idx[leads]
        tier[top] = k
        remaining[top] = False
    return tier, cycle


def closure(better: np.ndarray) -> np.ndarray:
    """``reach[i, j]``: j is reached from i by one or more steps of ``better`` (repeated squaring). The squares
    are float32 products of 0/1 matrices: BLAS, and exact (each entry a count of at most n paths of two steps,
    exact in float32 below 2^24 systems), where numpy's integer product has no BLAS (1.8 s at 1,000 systems)."""
    reach = np.asarray(better, dtype=bool)
    if reach.shape[0] >= 1 << 24:  # pragma: no cover - counts beyond float32's integers
        raise ValueError("closure: at most 2^24 - 1 systems")
    while True:
        step = reach.astype(np.float32)
        more = reach | ((step @ step) > 0)
        if (more == reach).all():
            return reach
        reach = more


def better_matrix(systems: Sequence[str], beats: Mapping[str, Collection[str]]) -> np.ndarray:
    """The better-than matrix of ``systems`` from ``beats`` (system -> systems it is significantly better than;
    names outside ``systems`` are ignored)."""
    index = {s: i for i, s in enumerate(systems)}
    b = np.zeros((len(systems), len(systems)), dtype=bool)
    for winner, losers in beats.items():
        i = index.get(winner)
        if i is None:
            continue
        cols = [index[x] for x in losers if x in index]
        b[i, cols] = True
    return b


def interval_better(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """The better-than matrix of intervals by Chatbot Arena's rule: ``better[i, j]`` when system i's interval
    lies wholly above system j's (``low[i] > high[j]``); a missing bound (NaN) separates nothing. The preference
    record's ``rank_ub`` is :func:`rank_ub` of it (:mod:`sigreport.analyses.preferences`)."""
    lo, hi = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    with np.errstate(invalid="ignore"):
        b = lo[:, None] > hi[None, :]
    np.fill_diagonal(b, False)  # an interval of zero width (low == high) is never above itself; NaN: False
    return b


@dataclasses.dataclass(frozen=True)
class Ranks:
    """Rank (UB) and tier of each system (in the order given), and the tiers' members (best tier first, each in
    the order given); ``cycle``: the decisions held a cycle (module doc)."""

    systems: tuple[str, ...]
    rank_ub: Mapping[str, int]
    tier: Mapping[str, int]
    cycle: bool = False

    @property
    def members(self) -> tuple[tuple[str, ...], ...]:
        """The systems of tier 1, tier 2, ..."""
        top = max(self.tier.values(), default=0)
        return tuple(tuple(s for s in self.systems if self.tier[s] == k) for k in range(1, top + 1))


def ranks_of(systems: Sequence[str], beats: Mapping[str, Collection[str]]) -> Ranks:
    """:class:`Ranks` of ``systems`` from who significantly beats whom."""
    systems = tuple(systems)
    b = better_matrix(systems, beats)
    r = rank_ub(b)
    t, cycle = tiers(b)
    return Ranks(systems, {s: int(x) for s, x in zip(systems, r)}, {s: int(x) for s, x in zip(systems, t)}, cycle)
