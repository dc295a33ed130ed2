"""Post-hoc tests on Friedman average ranks (Demšar 2006, section 3.2.2; García & Herrera 2008).

All procedures compare average ranks R_j (rank 1 = best, as :func:`sigreport.stats.omnibus.friedman`
returns them) of k systems over N items through

    z = (R_a - R_b) / SE,  SE = sqrt(k (k + 1) / (6 N)),

which is approximately standard normal for one pair under the null hypothesis. A positive z means
system ``a`` has the larger average rank (the worse one when rank 1 is best).

* :func:`nemenyi` - all k(k-1)/2 pairs. Two systems differ when |R_a - R_b| >= CD with
  CD = q_alpha SE and q_alpha = q(1 - alpha; k, inf) / sqrt(2), the studentized range quantile
  for k means and infinite degrees of freedom. The family-wise (Tukey-type single-step) p-value of
  a pair is P(Q_{k,inf} >= sqrt(2) |z|) (kept within its union bounds in the far tail).
* :func:`bonferroni_dunn` - each system against a control, q_alpha = z(1 - alpha / (2 (k - 1))),
  CD = q_alpha SE, Bonferroni-adjusted p = min(1, (k - 1) p).
* :func:`rank_step` - against a control with Holm's step-down or Hochberg's step-up adjustment
  of the two-sided normal p-values (no single critical difference exists).
* :func:`all_pairs` - all k(k-1)/2 pairs with the two-sided normal p-values adjusted by Holm,
  Shaffer's static procedure (:func:`shaffer_adjust`) or Bergmann-Hommel
  (:func:`bergmann_hommel_adjust`), after García & Herrera (2008, JMLR 9:2677-2694, sec. 2.2-2.3)
  and scmamp's ``postHocTest(..., test = "friedman", correct = ...)``. Both logically
  constrained procedures use that with k systems not every combination of pairwise null
  hypotheses can be true at once (a = b and b = c imply a = c).

Tests check scmamp's vignette ("Statistical assessment of the differences", friedmanPost,
adjustShaffer, adjustBergmannHommel on García & Herrera's data), Demšar's Table 5 (q_alpha for
k = 2..10 at alpha 0.05 and 0.10), his example (k = 4, N = 14: CD = 1.254 Nemenyi, 1.168
Bonferroni-Dunn) and R 4.2's ``qtukey``/``ptukey``, ``qnorm`` and ``p.adjust``.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from sigreport.stats.correction import adjust
from sigreport.stats.lazy import scipy_stats as sps
from sigreport.stats.result import finite_or_none, is_significant
from sigreport.stats.tails import norm_sf
from sigreport.stats.tails import studentized_range_sf_inf as _studentized_range_sf_inf

STEP_METHODS = ("holm", "hochberg")
ALL_PAIRS_METHODS = ("holm", "shaffer", "bergmann_hommel")
#: Largest number of systems for which Bergmann-Hommel's exhaustive search runs (the number of
#: exhaustive sets is the Bell number B_k - 1: 115,974 at k = 10, 678,569 at k = 11).
#: benchmarks/bench_bergmann_hommel.py measures its time, which grows with that number: the limit keeps
#: one family under a second.
BERGMANN_HOMMEL_MAX_K = 10


@dataclasses.dataclass(frozen=True, kw_only=True)
class PosthocPair:
    """One comparison of systems ``a`` and ``b`` (column indices).

    ``statistic`` is z = (R_a - R_b) / SE (see the module docstring); ``rank_difference`` is
    R_a - R_b; ``pvalue`` is the unadjusted two-sided normal p-value of z; ``pvalue_adjusted``
    is the family-wise p-value of the procedure (studentized range for Nemenyi, Bonferroni,
    Holm or Hochberg); ``significant`` is the procedure's decision at ``alpha`` (for Nemenyi and
    Bonferroni-Dunn: |R_a - R_b| >= critical difference).
    """

    a: int
    b: int
    statistic: float | None
    rank_difference: float | None
    pvalue: float | None
    pvalue_adjusted: float | None
    significant: bool | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class PosthocResult:
    """Result of a post-hoc procedure on average ranks.

    ``critical_difference`` and ``q_alpha`` are None for the step procedures (Holm, Hochberg).
    ``control`` is the control system's index, or None for all-pairs procedures.
    """

    method: str
    critical_difference: float | None
    q_alpha: float | None
    control: int | None
    alpha: float
    n: int
    k: int
    pairs: tuple[PosthocPair, ...]
    warnings: tuple[str, ...] = ()


def _check(average_ranks: np.ndarray, n: int, alpha: float, control: int | None = None) -> np.ndarray:
    r = np.asarray(average_ranks, dtype=float)
    if r.ndim != 1:
        raise ValueError("average_ranks must be a 1-d array (one average rank per system)")
    if not np.all(np.isfinite(r)):
        raise ValueError("average_ranks must be finite")
    k = r.size
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n (number of items) must be a positive integer; got {n!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    if k >= 1 and (abs(r.sum() - k * (k + 1) / 2) > 1e-6 * k * k or r.min() < 1 - 1e-9 or r.max() > k + 1e-9):
        raise ValueError(
            f"average_ranks do not look like average within-item ranks of {k} systems "
            f"(each in [1, k], summing to k(k+1)/2 = {k * (k + 1) / 2:g})"
        )
    if control is not None and (isinstance(control, bool) or int(control) != control or not 0 <= control < k):
        raise ValueError(f"control must be a system index in 0..{k - 1}; got {control!r}")
    return r


def _se(k: int, n: int) -> float:
    return math.sqrt(k * (k + 1) / (6.0 * n))


@functools.lru_cache(maxsize=256)
def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Nemenyi q_alpha = studentized range quantile q(1 - alpha; k, inf) / sqrt(2) (Demšar Table 5a).

    Cached per (k, alpha): the quantile is a numerical inversion of a numerical integral, and
    a report asks for the same one once per metric and corpus."""
    if k < 2:
        raise ValueError("the studentized range needs k >= 2")
    return float(sps.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def bonferroni_dunn_q(k: int, alpha: float = 0.05) -> float:
    """Bonferroni-Dunn q_alpha = z(1 - alpha / (2 (k - 1))) (Demšar Table 5b)."""
    if k < 2:
        raise ValueError("a comparison with a control needs k >= 2")
    return float(sps.norm.isf(alpha / (2 * (k - 1))))


def _too_few(method: str, control: int | None, alpha: float, n: int, k: int) -> PosthocResult:
    return PosthocResult(method=method, critical_difference=None, q_alpha=None, control=control, alpha=alpha, n=int(n),
                         k=k, pairs=(), warnings=(f"only {k} system(s): a post-hoc comparison needs at least two",))


def nemenyi(average_ranks: np.ndarray, n: int, alpha: float = 0.05) -> PosthocResult:
    """Nemenyi test of all pairs of systems (Demšar 2006, sec. 3.2.2).

    Pairs are (a, b) with a < b in lexicographic order. See the module docstring for the
    statistic, CD and p-values.
    """
    r = _check(average_ranks, n, alpha)
    k = r.size
    if k < 2:
        return _too_few("nemenyi", None, alpha, n, k)
    se = _se(k, n)
    q = nemenyi_q(k, alpha)
    cd = q * se
    ia, ib = np.triu_indices(k, 1)
    diff = r[ia] - r[ib]
    z = diff / se
    p = 2 * norm_sf(np.abs(z))
    # scipy's studentized range sf has ~1e-14 absolute error far in the tail; keep it inside the
    # exact bounds P(|Z_a - Z_b| >= q) <= P(range >= q) <= (number of pairs) P(|Z_a - Z_b| >= q).
    p_tukey = studentized_range_sf(np.abs(z) * math.sqrt(2), k, p == 0)
    p_adj = np.clip(p_tukey, p, np.minimum(1.0, len(ia) * p))
    sig = np.abs(diff) >= cd
    pairs = tuple(
        PosthocPair(a=int(i), b=int(j), statistic=float(zz), rank_difference=float(dd), pvalue=float(pp),
                    pvalue_adjusted=finite_or_none(pa), significant=bool(s))
        for i, j, zz, dd, pp, pa, s in zip(ia, ib, z, diff, p, p_adj, sig)
    )
    return PosthocResult(method="nemenyi", critical_difference=float(cd), q_alpha=q, control=None, alpha=alpha,
                         n=int(n), k=k, pairs=pairs, warnings=())


def studentized_range_sf(q: np.ndarray, k: int, known_zero: np.ndarray) -> np.ndarray:
    """``scipy.stats.studentized_range.sf(q, k, inf)`` where it matters, one numerical integral per distinct q.

    ``known_zero`` marks the pairs whose normal p-value is 0 (|z| above ~38): the union bounds clip their
    family-wise p-value to [0, 0] whatever the integral gives (it is a finite value >= 0 there, 0 or
    ~1e-16; tests/stats/test_posthoc_speed.py checks the whole result against the pair-by-pair call), so
    it is not computed; repeated q (tied rank differences) are integrated once. At 100 systems a family
    has 4,950 pairs, and the integral was most of the Nemenyi test's time.
    """
    out = np.zeros(q.shape)
    need = ~np.asarray(known_zero, dtype=bool)
    if need.any():
        distinct, where = np.unique(q[need], return_inverse=True)
        out[need] = _studentized_range_sf_inf(distinct, k)[where]
    return out


def _versus_control(r: np.ndarray, n: int, control: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    k = r.size
    others = np.array([i for i in range(k) if i != control], dtype=int)
    diff = r[others] - r[control]
    z = diff / _se(k, n)
    p = 2 * norm_sf(np.abs(z))
    return others, diff, z, p


def bonferroni_dunn(average_ranks: np.ndarray, n: int, control: int, alpha: float = 0.05) -> PosthocResult:
    """Bonferroni-Dunn test of every system against ``control`` (Demšar 2006, sec. 3.2.2).

    Pairs are (a = i, b = control) for each other system i in index order; z = (R_i - R_c)/SE.
    """
    r = _check(average_ranks, n, alpha, control)
    k = r.size
    if k < 2:
        return _too_few("bonferroni_dunn", int(control), alpha, n, k)
    q = bonferroni_dunn_q(k, alpha)
    cd = q * _se(k, n)
    others, diff, z, p = _versus_control(r, n, control)
    p_adj = adjust(p, "bonferroni")
    sig = np.abs(diff) >= cd
    pairs = tuple(
        PosthocPair(a=int(i), b=int(control), statistic=float(zz), rank_difference=float(dd), pvalue=float(pp),
                    pvalue_adjusted=float(pa), significant=bool(s))
        for i, zz, dd, pp, pa, s in zip(others, z, diff, p, p_adj, sig)
    )
    return PosthocResult(method="bonferroni_dunn", critical_difference=float(cd), q_alpha=q, control=int(control),
                         alpha=alpha, n=int(n), k=k, pairs=pairs, warnings=())


def rank_step(
    average_ranks: np.ndarray, n: int, control: int, method: str = "holm", alpha: float = 0.05
) -> PosthocResult:
    """Every system against ``control`` with Holm's step-down or Hochberg's step-up procedure.

    z = (R_i - R_c)/SE and two-sided normal p-values as in Demšar (2006, sec. 3.2.2), adjusted
    as R's ``p.adjust`` (via :func:`sigreport.stats.correction.adjust`); a pair is significant
    when its adjusted p-value is <= alpha, which is the step procedure's decision.
    ``critical_difference`` and ``q_alpha`` are None.
    """
    if method not in STEP_METHODS:
        raise ValueError(f"unknown step method {method!r}; known: {', '.join(STEP_METHODS)}")
    r = _check(average_ranks, n, alpha, control)
    k = r.size
    if k < 2:
        return _too_few(method, int(control), alpha, n, k)
    others, diff, z, p = _versus_control(r, n, control)
    p_adj = adjust(p, method)
    pairs = tuple(
        PosthocPair(a=int(i), b=int(control), statistic=float(zz), rank_difference=float(dd), pvalue=float(pp),
                    pvalue_adjusted=float(pa), significant=bool(is_significant(pa, alpha)))
        for i, zz, dd, pp, pa in zip(others, z, diff, p, p_adj)
    )
    return PosthocResult(method=method, critical_difference=None, q_alpha=None, control=int(control), alpha=alpha,
                         n=int(n), k=k, pairs=pairs, warnings=())


# ---------------------------------------------------------------------------------------------
# All pairs with logically constrained corrections (García & Herrera 2008)
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def shaffer_true_counts(k: int) -> tuple[int, ...]:
    """S(k): the possible numbers of simultaneously true pairwise hypotheses among k systems.

    Shaffer (1986), as García & Herrera (2008, p. 2680): S(0) = S(1) = {0};
    S(k) = union over j = 1..k of {C(j, 2) + x : x in S(k - j)} (j systems equal, the others
    split further). Sorted ascending; the largest is C(k, 2).
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    if k <= 1:
        return (0,)
    out: set[int] = set()
    for j in range(1, k + 1):
        out.update(j * (j - 1) // 2 + x for x in shaffer_true_counts(k - j))
    return tuple(sorted(out))


def _pair_pvalues(pvalues: np.ndarray, k: int) -> np.ndarray:
    p = np.asarray(pvalues, dtype=float)
    m = k * (k - 1) // 2
    if p.shape != (m,):
        raise ValueError(
            f"expected {m} p-values, one per pair (a, b), a < b, in np.triu_indices({k}, 1) order; "
            f"got shape {p.shape}"
        )
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p-values must lie in [0, 1] (no NaN)")
    return p


def shaffer_adjust(pvalues: np.ndarray, k: int) -> np.ndarray:
    """Shaffer's static (S1) adjusted p-values of all k(k-1)/2 pairwise hypotheses.

    ``pvalues`` are in the order of ``np.triu_indices(k, 1)``. With p_(1) <= ... <= p_(m) and
    t_i = max{s in S(k): s <= m - i + 1} (the most hypotheses that can still be true once i - 1
    are rejected), APV_(i) = min(1, max_{j <= i} t_j p_(j)) (García & Herrera 2008, p. 2680;
    scmamp ``adjustShaffer``). Never larger than Holm's, which uses m - i + 1.
    """
    p = _pair_pvalues(pvalues, k)
    m = p.size
    if m == 0:
        return p.copy()
    s = np.array(shaffer_true_counts(k))
    remaining = m - np.arange(m)  # m - i + 1 for i = 1..m
    t = s[np.searchsorted(s, remaining, side="right") - 1]
    order = np.argsort(p, kind="stable")
    adj_sorted = np.minimum(1.0, np.maximum.accumulate(t * p[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out


def _set_partitions(k: int) -> np.ndarray:
    """Every partition of k items as restricted growth strings, shape (Bell(k), k).

    Row r labels item j with the block number (first item in block 0, each new block numbered
    one above the current maximum). Built position by position with array operations.
    """
    labels = np.zeros((1, 1), dtype=np.int8)
    for _ in range(1, k):
        top = labels.max(axis=1) + 1  # a new item joins any existing block or opens block `top`
        counts = top + 1
        rows = np.repeat(labels, counts, axis=0)
        starts = np.cumsum(counts) - counts
        new = (np.arange(rows.shape[0]) - np.repeat(starts, counts)).astype(np.int8)
        labels = np.hstack([rows, new[:, None]])
    return labels


@functools.lru_cache(maxsize=2)
def _exhaustive_sets(k: int) -> tuple[np.ndarray, np.ndarray]:
    """(sets x pairs) membership of every nonempty exhaustive set, and each set's size."""
    parts = _set_partitions(k)
    ia, ib = np.triu_indices(k, 1)
    same = parts[:, ia] == parts[:, ib]  # pair inside one block
    size = same.sum(axis=1)
    keep = size > 0  # the all-singletons partition holds no hypothesis
    same, size = same[keep], size[keep]
    same.setflags(write=False)
    size.setflags(write=False)
    return same, size


def bergmann_hommel_adjust(pvalues: np.ndarray, k: int) -> np.ndarray:
    """Bergmann-Hommel adjusted p-values of all k(k-1)/2 pairwise hypotheses.

    An exhaustive set is a set of pairwise null hypotheses that can all be true together: the
    pairs inside the blocks of a partition of the k systems (one block of equal systems each).
    APV_i = min(1, max{|I| min_{j in I} p_j : I exhaustive, i in I}) (Bergmann & Hommel 1988;
    García & Herrera 2008, p. 2681), then made monotone in the order of the raw p-values (a
    running maximum), as scmamp's ``adjustBergmannHommel`` does. All Bell(k) - 1 partitions are
    enumerated at once (vectorised over partitions and pairs), which is why k is limited to
    :data:`BERGMANN_HOMMEL_MAX_K`; above it a ValueError says so.
    """
    if k > BERGMANN_HOMMEL_MAX_K:
        raise ValueError(
            f"Bergmann-Hommel's exhaustive search is limited to {BERGMANN_HOMMEL_MAX_K} systems "
            f"(got {k}: {k * (k - 1) // 2} pairs and over a million sets of hypotheses); use "
            "Shaffer's procedure or Holm instead"
        )
    p = _pair_pvalues(pvalues, k)
    m = p.size
    if m == 0:
        return p.copy()
    same, size = _exhaustive_sets(k)
    order = np.argsort(p, kind="stable")
    # min p over each set: the first of its pairs in ascending p order (argmax finds the first True)
    min_p = p[order][np.argmax(same[:, order], axis=1)]
    value = size * min_p
    # max over the sets holding pair i: the first such set in descending value order
    by_value = np.argsort(-value, kind="stable")
    adj = value[by_value][np.argmax(same[by_value], axis=0)]
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, adj[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out


def all_pairs(
    average_ranks: np.ndarray, n: int, method: str = "holm", alpha: float = 0.05
) -> PosthocResult:
    """All pairs of systems after Friedman: z tests on average ranks with a family-wise adjustment.

    z = (R_a - R_b) / sqrt(k (k + 1) / (6 N)) and two-sided normal p-values for every pair
    (a, b), a < b, in ``np.triu_indices`` order (García & Herrera 2008, sec. 2.1; scmamp's
    ``friedmanPost``), adjusted by ``method``: 'holm' (R's ``p.adjust``), 'shaffer'
    (:func:`shaffer_adjust`) or 'bergmann_hommel' (:func:`bergmann_hommel_adjust`, k <=
    :data:`BERGMANN_HOMMEL_MAX_K`, else ValueError). A pair is significant when its adjusted
    p-value is <= alpha. ``critical_difference`` and ``q_alpha`` are None.
    """
    if method not in ALL_PAIRS_METHODS:
        raise ValueError(f"unknown all-pairs method {method!r}; known: {', '.join(ALL_PAIRS_METHODS)}")
    r = _check(average_ranks, n, alpha)
    k = r.size
    if k < 2:
        return _too_few(method, None, alpha, n, k)
    if method == "bergmann_hommel" and k > BERGMANN_HOMMEL_MAX_K:
        bergmann_hommel_adjust(np.zeros(k * (k - 1) // 2), k)  # raises the one clear message
    se = _se(k, n)
    ia, ib = np.triu_indices(k, 1)
    diff = r[ia] - r[ib]
    z = diff / se
    p = np.minimum(1.0, 2 * norm_sf(np.abs(z)))
    if method == "holm":
        p_adj = adjust(p, "holm")
    elif method == "shaffer":
        p_adj = shaffer_adjust(p, k)
    else:
        p_adj = bergmann_hommel_adjust(p, k)
    pairs = tuple(
        PosthocPair(a=int(i), b=int(j), statistic=float(zz), rank_difference=float(dd), pvalue=float(pp),
                    pvalue_adjusted=float(pa), significant=bool(is_significant(pa, alpha)))
        for i, j, zz, dd, pp, pa in zip(ia, ib, z, diff, p, p_adj)
    )
    return PosthocResult(method=method, critical_difference=None, q_alpha=None, control=None, alpha=alpha, n=int(n),
                         k=k, pairs=pairs, warnings=())
