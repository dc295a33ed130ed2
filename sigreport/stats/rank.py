"""Rank-based paired tests: Wilcoxon signed-ranks and the sign test (Demšar 2006, sections 3.1.3-3.1.4).

Both work on the differences d = a - b, rounded to ``decimals`` places first, so that values that
differ only by floating-point noise (0.1 - 0.3 versus 0.2 - 0.4) count as tied or as zero.

Wilcoxon (``wilcoxon``)
    The |d| are ranked (average ranks for ties); R+ is the rank sum of the positive differences,
    R- of the negative ones. Zero differences are handled by ``zero_method``:

    * ``'split'`` (Demšar 2006): zeros are ranked with the others and half of their rank
      sum goes to R+, half to R-. Demšar: "if there is an odd number of them, one is ignored"; we
      read this as dropping one zero difference before ranking, so the ranked sample is N = n - 1
      and the remaining (even number of) zeros are split. Demšar's (2006) worked example has two zeros
      and reproduces R+ = 93, R- = 12, T = 12 with N = 14. Its normal approximation uses the
      conditional variance below, in which the zeros' halves are fixed; Demšar's formula
      N(N+1)(2N+1)/24 treats their ranks as if their signs were random too (``'zsplit'``).
    * ``'zsplit'`` (scipy's ``wilcoxon(zero_method='zsplit')``, scipy gh-2263): every zero is kept and
      half of their rank sum goes to each sum (an odd one is not dropped); the normal approximation
      uses the unconditional mean N(N+1)/4 and variance N(N+1)(2N+1)/24 - sum(t^3 - t)/48 over all N
      differences, the zeros one tie group: Demšar's formula with the tie correction, and scipy's
      ``method='asymptotic'`` to 1e-12. Its exact mode is the conditional law, as for ``'split'``.
    * ``'pratt'`` (Pratt 1959): zeros are ranked with the others, then their ranks are dropped.
    * ``'wilcox'`` (Wilcoxon 1945, R's ``wilcox.test``): zeros are dropped before ranking.

    ``statistic`` is always Demšar's T = min(R+, R-), whatever the alternative; R+ and R- are in
    ``extra``. The null distribution is the sign-flip (permutation) distribution of R+ given the
    observed ranks: each nonzero difference is positive or negative with probability 1/2 and the
    zeros' share is fixed. ``mode='auto'`` uses it exactly when there are no ties and no zeros
    among the ranked differences and N <= 50 (the textbook exact distribution, as R's
    ``psignrank``); otherwise the normal approximation with the conditional mean and variance
    E = c + sum(r)/2, Var = sum(r^2)/4 over the nonzero ranks r (c is the zeros' fixed share;
    ``'zsplit'`` adds the zeros' ranks to Var).
    For ``'wilcox'`` this is R's tie-corrected variance n(n+1)(2n+1)/24 - sum(t^3 - t)/48; for
    ``'pratt'`` it is the conditional variance used by coin's ``wilcoxsign_test`` (and scipy's
    Cureton correction). The continuity correction of R's ``wilcox.test`` (``correct = TRUE``) is
    applied when ``correction`` is true. ``mode='exact'`` computes the exact conditional
    distribution even with ties and zeros (ranks are multiples of 1/2, so a convolution over
    doubled ranks is exact); this matches coin's ``wilcoxsign_test(distribution = "exact")``.

    Estimate: the Hodges-Lehmann pseudo-median (median of the Walsh averages (d_i + d_j)/2,
    i <= j) of all n rounded differences, with the distribution-free confidence interval from the
    order statistics of the Walsh averages (Hollander & Wolfe 1999, sec. 3.3), as R's
    ``wilcox.test(conf.int = TRUE)`` computes in its exact case. (In its approximate case R
    instead inverts the normal statistic numerically; we keep the order-statistic interval.)
    Effect size: the matched-pairs rank-biserial correlation (R+ - R-) / (R+ + R-) (Kerby 2014).

    Tests: Demšar's (2006) example and Faria's (2017) table of critical T; R 4.2
    ``wilcox.test`` (exact and with continuity correction), coin 1.4 ``wilcoxsign_test``
    (Pratt zeros, asymptotic and exact), and brute-force enumeration of the sign-flip
    distribution for ``'split'``.

Sign test (``sign_test``)
    Wins (d > 0), losses (d < 0) and ties (d = 0). Demšar (2006, sec. 3.1.4): ties are split
    evenly between the two systems; if there is an odd number of them, one is ignored. The
    statistic is the number of successes of a, wins + floor(ties / 2), out of
    n_used = wins + losses + 2 floor(ties / 2), with the exact binomial(n_used, 1/2) p-value
    (two-sided as R's ``binom.test``). Tests: R 4.2 ``binom.test``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from sigreport.stats.lazy import scipy_stats as sps
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none

ALTERNATIVES = ("two-sided", "greater", "less")
ZERO_METHODS = ("split", "zsplit", "pratt", "wilcox")
SPLITS = ("split", "zsplit")  # zero differences' ranks halved between R+ and R-
#: ``'normal'`` is the same as ``'approx'`` (the name the spec uses).
MODES = ("auto", "exact", "approx", "normal")

#: Largest number of ranked differences for which ``mode='auto'`` uses the exact distribution.
EXACT_AUTO_MAX_N = 50
#: Largest number of nonzero differences for which the exact distribution is computed at all
#: (the convolution costs O(N^3)); above it ``mode='exact'`` falls back to the normal
#: approximation with a warning.
EXACT_MAX_N = 400
#: Walsh averages are materialised up to this many differences; above it order statistics are
#: found by bisection on the value (O(n log n) per step) without building the n(n+1)/2 averages.
WALSH_MATERIALIZE_MAX_N = 2000


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def _check_common(a: np.ndarray, b: np.ndarray, alternative: str, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; known: {', '.join(ALTERNATIVES)}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("a and b must be 1-d arrays of the same length")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must be finite (drop or impute missing pairs before testing)")
    return a, b


def _differences(a: np.ndarray, b: np.ndarray, decimals: int | None) -> np.ndarray:
    d = a - b
    if decimals is not None:
        d = np.round(d, decimals)
    return d + 0.0  # turn -0.0 into 0.0


def _conv_pmf(scores: np.ndarray) -> np.ndarray:
    """pmf of K = sum of s_i B_i, B_i iid Bernoulli(1/2), for positive integer scores s_i.

    Each step convolves with the two-point law of one score; the loop is over the N scores (a
    sequential recursion), the work inside is vectorised.
    """
    total = int(scores.sum())
    pmf = np.zeros(total + 1)
    pmf[0] = 1.0
    top = 0
    for s in scores.tolist():
        shifted = pmf[: top + 1].copy()
        pmf[: top + 1] *= 0.5
        pmf[s : s + top + 1] += 0.5 * shifted
        top += s
    return pmf


@functools.lru_cache(maxsize=32)
def _signrank_cdf(n: int) -> np.ndarray:
    """cdf of the untied signed-rank statistic V (ranks 1..n), P(V <= v) for v = 0..n(n+1)/2."""
    cdf = np.cumsum(_conv_pmf(np.arange(1, n + 1)))
    cdf.setflags(write=False)
    return cdf


def wilcoxon_critical_t(n: int, alpha: float = 0.05, alternative: str = "two-sided") -> int | None:
    """Critical value of Demšar's T = min(R+, R-) for N = n untied, nonzero differences.

    The largest t with P(V <= t) <= alpha/2 (two-sided) or <= alpha (one-sided) under the exact
    null distribution of the signed-rank statistic V; reject when T <= t (one-sided: when the sum
    opposite to the alternative is <= t). ``None`` when no t qualifies (N too small to reject).
    Exact for n <= ``EXACT_MAX_N``; above, the normal approximation with continuity correction.
    Tests reproduce the table of critical values in Faria (2017) (N = 6..25, three levels).
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}; known: {', '.join(ALTERNATIVES)}")
    if n < 0:
        raise ValueError("n must be >= 0")
    level = alpha / 2 if alternative == "two-sided" else alpha
    if n == 0:
        return None
    if n <= EXACT_MAX_N:
        cdf = _signrank_cdf(n)
        ok = np.nonzero(cdf <= level)[0]
        return int(ok[-1]) if ok.size else None
    mean = n * (n + 1) / 4
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    t = math.floor(mean - 0.5 + sps.norm.ppf(level) * sd)
    return t if t >= 0 else None


def _walsh_order_stats(d: np.ndarray, ks: np.ndarray, materialize_max_n: int = WALSH_MATERIALIZE_MAX_N) -> np.ndarray:
    """The k-th smallest (1-based) Walsh averages (d_i + d_j)/2, i <= j, for each k in ``ks``."""
    x = np.sort(np.asarray(d, dtype=float))
    n = x.size
    ks = np.asarray(ks, dtype=np.int64)
    if n <= materialize_max_n:
        i, j = np.triu_indices(n)
        w = np.sort(x[i] + x[j])
        return w[ks - 1] / 2.0
    idx = np.arange(n)

    def count_le(t: float) -> int:
        # pairs i <= j with x_i + x_j <= t
        return int(np.maximum(np.searchsorted(x, t - x, side="right") - idx, 0).sum())

    def largest_sum_le(t: float) -> float:
        j = np.searchsorted(x, t - x, side="right") - 1
        ok = j >= idx
        return float(np.max(x[ok] + x[j[ok]]))

    scale = max(float(np.max(np.abs(x))), 1e-300)
    out = np.empty(ks.size)
    for m, k in enumerate(ks.tolist()):  # a handful of order statistics, each by bisection
        lo, hi = 2 * x[0] - scale, 2 * x[-1]  # count_le(lo) = 0 < k <= count_le(hi) = M
        while hi - lo > 1e-14 * scale:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if count_le(mid) >= k:
                hi = mid
            else:
                lo = mid
        out[m] = largest_sum_le(hi) / 2.0
    return out


def _hodges_lehmann(
    d: np.ndarray, alpha: float, alternative: str
) -> tuple[float | None, float | None, float | None, float, float, list[str]]:
    """Pseudo-median of the Walsh averages and its order-statistic confidence interval.

    With M = n(n+1)/2 sorted Walsh averages W_(1..M) and q the smallest value with
    P(V <= q) >= alpha/2 (alpha for one-sided) under the untied signed-rank law of n, the
    interval is [W_(q), W_(M-q+1)] (q = 1 when q would be 0), exactly as R's ``wilcox.test``.
    Returns (estimate, low, high, level, achieved level, warnings): the level is ``1 - alpha`` unless the
    interval cannot reach it (R's rule), the achieved level the interval's exact coverage.
    """
    n = d.size
    warnings: list[str] = []
    if n == 0:
        return None, None, None, 1 - alpha, 1 - alpha, warnings
    m_total = n * (n + 1) // 2
    level = alpha / 2 if alternative == "two-sided" else alpha
    if n <= EXACT_MAX_N:
        cdf = _signrank_cdf(n)
        q = max(1, int(np.searchsorted(cdf, level, side="left")))  # smallest v with cdf[v] >= level
        achieved_tail = float(cdf[q - 1])  # P(V <= q - 1): the interval misses with this chance per side
    else:  # normal approximation of the signed-rank law, with continuity correction
        mean = n * (n + 1) / 4
        sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        q = max(1, math.ceil(mean - 0.5 + sps.norm.ppf(level) * sd))
        achieved_tail = float(sps.norm.cdf((q - 0.5 - mean) / sd))
    achieved_alpha = 2 * achieved_tail if alternative == "two-sided" else achieved_tail
    half = m_total // 2
    med_ks = [half, half + 1] if m_total % 2 == 0 else [half + 1]
    ks = np.array(med_ks + [q, m_total - q + 1])
    vals = _walsh_order_stats(d, ks)
    estimate = float(np.mean(vals[: len(med_ks)]))
    low, high = float(vals[-2]), float(vals[-1])
    if alternative == "greater":
        high = math.inf
    elif alternative == "less":
        low = -math.inf
    ci_level = 1 - alpha
    if achieved_alpha - alpha > alpha / 2:  # R's rule for "requested conf.level not achievable"
        ci_level = 1 - achieved_alpha
        warnings.append(
            f"with {n} items the Hodges-Lehmann interval cannot reach {1 - alpha:.0%} confidence; "
            f"it spans all Walsh averages and has confidence {ci_level:.3g}"
        )
    return estimate, low, high, ci_level, 1 - achieved_alpha, warnings


def _normal_p(z: float, alternative: str) -> float:
    if alternative == "greater":
        return float(sps.norm.sf(z))
    if alternative == "less":
        return float(sps.norm.cdf(z))
    return float(min(1.0, 2 * min(sps.norm.cdf(z), sps.norm.sf(z))))


def _z_critical(alpha: float, alternative: str) -> float:
    """Boundary of the rejection region for z: |z| >= c (two-sided), z >= c (greater), z <= c (less)."""
    if alternative == "two-sided":
        return float(sps.norm.ppf(1 - alpha / 2))
    if alternative == "greater":
        return float(sps.norm.ppf(1 - alpha))
    return float(sps.norm.ppf(alpha))


# ---------------------------------------------------------------------------------------------
# Wilcoxon signed-ranks
# ---------------------------------------------------------------------------------------------


def wilcoxon(
    a: np.ndarray,
    b: np.ndarray,
    alternative: str = "two-sided",
    zero_method: str = "split",
    decimals: int | None = 12,
    alpha: float = 0.05,
    mode: str = "auto",
    correction: bool = True,
    ci_level: float | None = None,
) -> PairedTestResult:
    """Wilcoxon signed-ranks test of a - b (Demšar 2006, sec. 3.1.3; see the module docstring).

    Parameters
    ----------
    a, b : paired scores, 1-d, same length, finite.
    alternative : 'two-sided', 'greater' (a > b) or 'less'.
    zero_method : 'split' (Demšar's zeros, conditional variance), 'zsplit' (scipy's: every zero split,
        unconditional variance), 'pratt' or 'wilcox' (zeros dropped, as R).
    decimals : the differences are rounded to this many decimals before anything else
        (``None``: no rounding).
    alpha : level of ``critical_value``, and of the confidence interval (level 1 - alpha) unless ``ci_level``.
    mode : 'auto', 'exact' (exact sign-flip distribution, also with ties/zeros) or 'approx'
        (alias 'normal': the normal approximation).
    correction : continuity correction of the normal approximation (R's ``correct = TRUE``).
    ci_level : level of the Hodges-Lehmann interval (default ``1 - alpha``).

    Result fields
    -------------
    ``statistic`` = T = min(R+, R-) (always, also for one-sided tests). ``pvalue`` from the
    exact or the normal null distribution of R+. ``critical_value``: exact mode: the largest T
    with P(T <= t) <= alpha (two-sided; reject when T <= t; one-sided: reject when the sum
    opposite to the alternative, R- for 'greater', R+ for 'less', is <= t); normal mode: the
    boundary for ``extra['z']`` (|z| >= c, z >= c, z <= c). ``estimate``: Hodges-Lehmann
    pseudo-median with its CI (``ci_low``/``ci_high`` None on the unbounded side of a one-sided
    interval). ``effect_size``: rank-biserial (R+ - R-)/(R+ + R-).
    ``extra``: r_plus, r_minus, zero_method, exact (bool), z (None when exact; positive when
    a > b), n_zeros (zero differences after rounding), n_ranked (Demšar's N: differences that
    entered the ranking), continuity_correction (bool), ci_level_achieved (the coverage the
    order-statistic interval reaches under the signed-rank law, at least its level: the law is discrete).
    """
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"unknown zero_method {zero_method!r}; known: {', '.join(ZERO_METHODS)}")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    a, b = _check_common(a, b, alternative, alpha)
    d = _differences(a, b, decimals)
    n = int(d.size)
    used, n_zeros = _ranked_differences(d, zero_method)
    extra: dict[str, object] = {
        "r_plus": None,
        "r_minus": None,
        "zero_method": zero_method,
        "exact": False,
        "z": None,
        "n_zeros": n_zeros,
        "n_ranked": int(used.size),
        "continuity_correction": False,
    }
    hl = _hodges_lehmann(d, alpha if ci_level is None else 1 - ci_level, alternative)
    extra["ci_level_achieved"] = hl[4]
    warnings = list(hl[5])
    if n == 0:
        warnings.append("no paired items: the Wilcoxon test cannot be computed")
        return _wilcoxon_result(n=n, alternative=alternative, hl=hl, statistic=None, pvalue=None, critical=None,
                                effect=None, warnings=warnings, extra=extra)
    return _signed_rank_test(n=n, used=used, zero_method=zero_method, decimals=decimals, alternative=alternative,
                             alpha=alpha, mode=mode, correction=correction, hl=hl, warnings=warnings, extra=extra)


def _signed_rank_test(
    n: int,
    used: np.ndarray,
    zero_method: str,
    decimals: int | None,
    alternative: str,
    alpha: float,
    mode: str,
    correction: bool,
    hl: tuple[float | None, float | None, float | None, float, float, list[str]],
    warnings: list[str],
    extra: dict[str, object],
) -> PairedTestResult:
    """The test proper on ``n >= 1`` differences, ``used`` of them ranked: rank sums, T, the rank-biserial
    effect, and the p-value and critical value from the exact or the normal law of R+ (``extra`` and
    ``warnings`` are completed in place)."""
    scores2, zero_share2, rp2, rm2 = _signed_rank_sums(used, zero_method)
    r_plus, r_minus = rp2 / 2, rm2 / 2
    extra["r_plus"], extra["r_minus"] = r_plus, r_minus
    t_stat = min(r_plus, r_minus)
    effect = (r_plus - r_minus) / (r_plus + r_minus) if r_plus + r_minus > 0 else None
    m = int(scores2.size)
    if m == 0:
        warnings.append(_all_zero_message(n, decimals))
        return _wilcoxon_result(n=n, alternative=alternative, hl=hl,
                                statistic=t_stat if zero_method in SPLITS else None, pvalue=1.0, critical=None,
                                effect=effect, warnings=warnings, extra=extra)

    use_exact = _use_exact(mode, used, m, warnings)
    critical: float | None
    if use_exact:
        extra["exact"] = True
        pvalue, p_best, critical = _exact_signed_rank_p(scores2, rp2, zero_share2, alternative, alpha)
    else:
        extra["continuity_correction"] = bool(correction)
        k = int(used.size) - m  # zsplit: the zeros' ranks, (k + 1) / 2 each, count in the variance as if random
        z, pvalue, p_best, critical = _normal_signed_rank_p(scores2, rp2, zero_share2, alternative, alpha,
                                                             correction, k * ((k + 1) / 2) ** 2 / 4
                                                             if zero_method == "zsplit" else 0.0)
        extra["z"] = z
    if p_best > alpha:
        warnings.append(
            f"with {m} nonzero differences the smallest attainable p-value is {p_best:.3g}, above "
            f"alpha = {alpha:g}: the test cannot reject at this level whatever the data"
        )
        if use_exact:
            critical = None
    return _wilcoxon_result(n=n, alternative=alternative, hl=hl, statistic=t_stat, pvalue=pvalue, critical=critical,
                            effect=effect, warnings=warnings, extra=extra)


def _ranked_differences(d: np.ndarray, zero_method: str) -> tuple[np.ndarray, int]:
    """The differences that enter the ranking under ``zero_method``, and the number of zero differences."""
    zeros = d == 0
    n_zeros = int(zeros.sum())
    if zero_method == "wilcox":
        return d[~zeros], n_zeros
    if zero_method == "split" and n_zeros % 2 == 1:
        return np.delete(d, np.flatnonzero(zeros)[0]), n_zeros  # Demšar: an odd zero is ignored
    return d, n_zeros


def _signed_rank_sums(used: np.ndarray, zero_method: str) -> tuple[np.ndarray, int, int, int]:
    """Doubled ranks of the nonzero differences (their signs are random under H0), the zeros' fixed doubled
    share of each sum ('split' and 'zsplit' only), and the doubled R+ and R-.

    Doubled ranks are integers (average ranks are multiples of 1/2), so the sums are exact.
    """
    ranks2 = np.rint(2 * sps.rankdata(np.abs(used), method="average")).astype(np.int64)
    pos, neg, zer = used > 0, used < 0, used == 0
    zero_share2 = int(ranks2[zer].sum()) // 2 if zero_method in SPLITS else 0  # fixed share of each sum
    rp2 = int(ranks2[pos].sum()) + zero_share2
    rm2 = int(ranks2[neg].sum()) + zero_share2
    return ranks2[~zer], zero_share2, rp2, rm2


def _all_zero_message(n: int, decimals: int | None) -> str:
    """The warning of a paired test whose differences are all zero."""
    return (
        f"all {n} differences are zero"
        + (f" after rounding to {decimals} decimals" if decimals is not None else "")
        + ": the systems do not differ on any item, so there is no evidence of a difference (p = 1)"
    )


def _use_exact(mode: str, used: np.ndarray, m: int, warnings: list[str]) -> bool:
    """Whether the exact sign-flip law is used (module docstring: ``mode``, ties, zeros, N); a warning is
    appended when the exact law was asked for but ``m`` nonzero differences exceed ``EXACT_MAX_N``."""
    nonzero = used != 0
    has_ties = np.unique(np.abs(used[nonzero])).size < m
    has_zeros = bool((~nonzero).any())
    if mode == "exact":
        use_exact = True
    elif mode in ("approx", "normal"):
        use_exact = False
    else:
        use_exact = (not has_ties) and (not has_zeros) and int(used.size) <= EXACT_AUTO_MAX_N
    if use_exact and m > EXACT_MAX_N:
        warnings.append(
            f"the exact distribution was requested but {m} nonzero differences exceed the limit of "
            f"{EXACT_MAX_N}; the normal approximation is used instead"
        )
        use_exact = False
    return use_exact


def _exact_signed_rank_p(
    scores2: np.ndarray, rp2: int, zero_share2: int, alternative: str, alpha: float
) -> tuple[float, float, float | None]:
    """p-value, smallest attainable p-value and critical T from the exact conditional law of R+."""
    level = alpha / 2 if alternative == "two-sided" else alpha
    pmf = _conv_pmf(scores2)  # law of K = R+ (doubled) minus the zeros' share
    cdf = np.cumsum(pmf)
    sf = np.cumsum(pmf[::-1])[::-1]  # P(K >= k), summed from the tail for accuracy
    k_obs = rp2 - zero_share2
    lower, upper = float(min(cdf[k_obs], 1.0)), float(min(sf[k_obs], 1.0))
    if alternative == "two-sided":
        pvalue = min(1.0, 2 * min(lower, upper))
        p_best = min(1.0, 2 * float(pmf[0]))
    else:
        pvalue = upper if alternative == "greater" else lower
        p_best = float(pmf[0])
    ok = np.nonzero((cdf <= level) & (pmf > 0))[0]
    critical = (int(ok[-1]) + zero_share2) / 2 if ok.size else None
    return pvalue, p_best, critical


def _normal_signed_rank_p(
    scores2: np.ndarray, rp2: int, zero_share2: int, alternative: str, alpha: float, correction: bool,
    zeros_var: float = 0.0,
) -> tuple[float, float, float, float]:
    """z, p-value, smallest attainable p-value and critical z from the normal approximation of R+ with its
    conditional mean and variance (module docstring), plus ``zeros_var`` ('zsplit': the zeros' share of the
    unconditional variance), with R's continuity correction when ``correction``."""
    mean2 = zero_share2 + scores2.sum() / 2  # E[R+] in doubled units
    sd = math.sqrt(float(np.sum(scores2.astype(float) ** 2)) / 4 + 4 * zeros_var) / 2  # sd of R+
    diff = (rp2 - mean2) / 2

    def z_of(delta: float) -> float:
        if not correction:
            cc = 0.0
        elif alternative == "two-sided":
            cc = 0.5 * float(np.sign(delta))
        else:
            cc = 0.5 if alternative == "greater" else -0.5
        return (delta - cc) / sd

    z = z_of(diff)
    pvalue = _normal_p(z, alternative)
    # Most extreme attainable configuration (all signs in the alternative's direction).
    extreme = -(scores2.sum() / 2) / 2 if alternative != "greater" else (scores2.sum() / 2) / 2
    p_best = _normal_p(z_of(extreme), alternative)
    return float(z), pvalue, p_best, _z_critical(alpha, alternative)


def _wilcoxon_result(
    n: int,
    alternative: str,
    hl: tuple[float | None, float | None, float | None, float, float, list[str]],
    statistic: float | None,
    pvalue: float | None,
    critical: float | None,
    effect: float | None,
    warnings: list[str],
    extra: dict[str, object],
) -> PairedTestResult:
    """The Wilcoxon result record, with the Hodges-Lehmann estimate and interval ``hl``."""
    estimate, ci_low, ci_high, hl_level = hl[0], hl[1], hl[2], hl[3]
    return PairedTestResult(
        method="wilcoxon",
        n=n,
        statistic=finite_or_none(statistic),
        df=None,
        pvalue=finite_or_none(pvalue),
        alternative=alternative,
        estimate=finite_or_none(estimate),
        ci_low=finite_or_none(ci_low),
        ci_high=finite_or_none(ci_high),
        ci_level=hl_level,
        critical_value=finite_or_none(critical),
        effect_size=EffectSize(name="rank_biserial", value=finite_or_none(effect)),
        warnings=tuple(warnings),
        extra=extra,
    )


# ---------------------------------------------------------------------------------------------
# Sign test
# ---------------------------------------------------------------------------------------------


def _median_ci(d: np.ndarray, alpha: float, alternative: str) -> tuple[float | None, float | None, float]:
    """Distribution-free CI of the median from order statistics (the sign-test interval).

    Two-sided: [d_(k), d_(n-k+1)] with k the largest integer such that P(B <= k - 1) <= alpha/2,
    B ~ binomial(n, 1/2); coverage 1 - 2 P(B <= k - 1) >= 1 - alpha. One-sided: the same with
    alpha and an unbounded side. When no k >= 1 qualifies the interval is unbounded and the
    returned level is 1 (with a warning from the caller).
    """
    n = d.size
    level = alpha / 2 if alternative == "two-sided" else alpha
    x = np.sort(d)
    cdf = sps.binom.cdf(np.arange(n + 1), n, 0.5)
    ok = np.nonzero(cdf <= level)[0]  # candidate k - 1 values
    if ok.size == 0:
        return None, None, 1.0
    k = int(ok[-1]) + 1
    tail = float(cdf[k - 1])
    lo, hi = float(x[k - 1]), float(x[n - k])
    if alternative == "greater":
        return lo, math.inf, 1 - tail
    if alternative == "less":
        return -math.inf, hi, 1 - tail
    return lo, hi, 1 - 2 * tail


def sign_test(
    a: np.ndarray,
    b: np.ndarray,
    alternative: str = "two-sided",
    decimals: int | None = 12,
    alpha: float = 0.05,
    ci_level: float | None = None,
) -> PairedTestResult:
    """Sign test of a - b with Demšar's (2006, sec. 3.1.4) treatment of ties.

    ``statistic``: successes of a = wins + floor(ties/2) out of ``extra['n_used']`` =
    wins + losses + 2 floor(ties/2) (ties split evenly, an odd one ignored). ``pvalue``: exact
    binomial(n_used, 1/2), two-sided as R's ``binom.test``. ``critical_value``: for 'two-sided'
    and 'greater' the smallest count w with P(B >= w) <= alpha/2 (resp. alpha): a is
    significantly better when statistic >= w (two-sided: also significantly worse when
    statistic <= n_used - w); for 'less' the largest c with P(B <= c) <= alpha (reject when
    statistic <= c). None when no count qualifies. ``estimate``: median difference with the
    order-statistic (sign-test) interval asked for at ``ci_level`` (default 1 - alpha); the result's
    ``ci_level`` is the interval's actual coverage (>= the level asked for, discrete), also in
    ``extra['ci_level_achieved']``. ``effect_size``: 'proportion_of_wins' = statistic / n_used
    (ties counted half) with the Clopper-Pearson interval at ``ci_level`` (R's ``binom.test``).
    ``extra``: wins, losses, ties, n_used, ci_level_achieved.
    """
    a, b = _check_common(a, b, alternative, alpha)
    interval = 1 - alpha if ci_level is None else float(ci_level)  # the level the median's interval is asked at
    d = _differences(a, b, decimals)
    n = int(d.size)
    wins, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
    ties = n - wins - losses
    half = ties // 2
    successes = wins + half
    n_used = wins + losses + 2 * half
    extra: dict[str, object] = {"wins": wins, "losses": losses, "ties": ties, "n_used": n_used}
    warnings: list[str] = []

    if n == 0:
        warnings.append("no paired items: the sign test cannot be computed")
        return PairedTestResult(method="sign", n=0, statistic=None, df=None, pvalue=None, alternative=alternative,
                                estimate=None, ci_low=None, ci_high=None, ci_level=interval, critical_value=None,
                                effect_size=EffectSize(name="proportion_of_wins", value=None), warnings=tuple(warnings),
                                extra=extra)

    estimate = float(np.median(d))
    lo, hi, achieved = _median_ci(d, 1 - interval, alternative)
    extra["ci_level_achieved"] = achieved
    if lo is None:
        warnings.append(
            f"with {n} items no order-statistic interval for the median reaches {interval:.0%} confidence"
        )

    if wins + losses == 0:
        warnings.append(_all_zero_message(n, decimals))
        return PairedTestResult(method="sign", n=n, statistic=float(successes) if n_used else None, df=None, pvalue=1.0,
                                alternative=alternative, estimate=estimate, ci_low=finite_or_none(lo),
                                ci_high=finite_or_none(hi), ci_level=achieved, critical_value=None,
                                effect_size=EffectSize(name="proportion_of_wins", value=0.5 if n_used else None),
                                warnings=tuple(warnings), extra=extra)

    bt = sps.binomtest(successes, n_used, 0.5, alternative=alternative)
    # Two-sided Clopper-Pearson interval whatever the alternative (the effect size is descriptive).
    ci = sps.binomtest(successes, n_used, 0.5).proportion_ci(confidence_level=interval, method="exact")
    effect = EffectSize(name="proportion_of_wins", value=successes / n_used, ci_low=float(ci.low),
                        ci_high=float(ci.high))
    critical = _sign_critical(n_used, alternative, alpha, warnings)
    return PairedTestResult(
        method="sign",
        n=n,
        statistic=float(successes),
        df=None,
        pvalue=finite_or_none(bt.pvalue),
        alternative=alternative,
        estimate=estimate,
        ci_low=finite_or_none(lo),
        ci_high=finite_or_none(hi),
        ci_level=achieved,
        critical_value=critical,
        effect_size=effect,
        warnings=tuple(warnings),
        extra=extra,
    )


def _sign_critical(n_used: int, alternative: str, alpha: float, warnings: list[str]) -> float | None:
    """The sign test's critical count (see :func:`sign_test`), or None with a warning appended when no count
    of ``n_used`` items can reach ``alpha``."""
    level = alpha / 2 if alternative == "two-sided" else alpha
    cdf = sps.binom.cdf(np.arange(n_used + 1), n_used, 0.5)
    ok = np.nonzero(cdf <= level)[0]  # c with P(B <= c) <= level; by symmetry w = n_used - c
    if ok.size == 0:
        p_best = min(1.0, (2.0 if alternative == "two-sided" else 1.0) * 0.5**n_used)
        warnings.append(
            f"with {n_used} usable items the smallest attainable p-value is {p_best:.3g}, above "
            f"alpha = {alpha:g}: the sign test cannot reject at this level whatever the data"
        )
        return None
    c = int(ok[-1])
    return float(c) if alternative == "less" else float(n_used - c)
