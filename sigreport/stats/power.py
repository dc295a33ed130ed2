"""Power of the paired comparisons: the smallest true difference a test detects with a given power (the
minimum detectable effect, MDE), and the number of items a study needs to detect a given difference.

A comparison that is not significant says nothing by itself about whether a difference was detectable
(Card et al. 2020, "With little power comes great responsibility"). For each pair sigreport reports the
MDE at the level the pair is tested at and the variance of its paired differences.

Paired t test (closed form). With n items, paired differences of standard deviation s and a true mean
difference delta, t = mean / (s / sqrt(n)) follows a noncentral t distribution with n - 1 degrees of
freedom and noncentrality delta sqrt(n) / s (Cohen 1988, ch. 2). Power at level alpha:

* two-sided: P(T > c) + P(T < -c), c = t_{1 - alpha/2, n-1} (both tails, as statsmodels' ``TTestPower``;
  R's ``power.t.test`` counts the far tail only with ``strict = TRUE``);
* greater: P(T > t_{1 - alpha, n-1}); less: P(T < -t_{1 - alpha, n-1}) (the MDE is then negative).

The MDE is delta = dz * s with dz the root of power(dz) = target, for many n at once (a bracketed
Illinois search to double precision). scipy's noncentral t cdf gives NaN at scattered points deep in its
tails, which crashed the search at 447 n between 2 and 20,000 (level 0.05; GSM8K's 1,319 items at Holm's
0.005): :func:`nct_cdf` puts the tail's value (0 to double precision) there. Tested against statsmodels
``TTestPower`` (its power at every n = 2..20,000, its ``solve_power``) and R ``power.t.test(..., type =
"paired", strict = TRUE)``.

Other tests (simulation). For tests without a closed form, the power at delta is estimated by drawing
``n_sims`` data sets of n differences from the observed ones, centred on zero, scaled by sqrt(n / (n - 1))
(so their variance is s^2, not the plug-in one) and shifted by delta (a shift model: the shape and spread
of the observed differences, another mean), and counting how
often the test rejects; the MDE is found by bisection over delta on the same draws (common random
numbers: the estimated power is then monotone in delta for tests that are). Seeded; the Monte Carlo
standard error of a power near 0.8 is about sqrt(0.16 / n_sims). Beyond :data:`MAX_DRAWN` simulated values
the data sets are redrawn in blocks at each power estimate (memory bounded; the same draws every time).
Tested against the closed form for the paired t test on normal data.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable

import numpy as np

from sigreport.stats.lazy import scipy_special as special
from sigreport.stats.lazy import scipy_stats as stats
from sigreport.stats.result import rejects

ALTERNATIVES = ("two-sided", "greater", "less")
DEFAULT_POWER = 0.8


@dataclasses.dataclass(frozen=True, kw_only=True)
class MinimumDetectable:
    """The smallest true mean difference detected with probability ``power`` at level ``alpha``.

    ``mde``: in the metric's units (negative for ``alternative='less'``); ``mde_dz``: the same in standard
    deviations of the paired differences; ``method``: 'noncentral_t' or 'simulation'."""

    mde: float | None
    mde_dz: float | None
    power: float
    alpha: float
    n: int
    sd: float | None
    method: str
    warnings: tuple[str, ...] = ()


def _check(alpha: float, power: float, alternative: str) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1); given {alpha}")
    if not alpha < power < 1:
        raise ValueError(f"power must lie in (alpha, 1); given {power}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}; given {alternative!r}")


def nct_cdf(df: float | np.ndarray, nc: float | np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """P(T <= t) for T noncentral t with ``df`` degrees of freedom and noncentrality ``nc``.

    scipy's ``nctdtr`` returns NaN at scattered points deep in a tail (``nctdtr(2144, 37.0, 2.81)``, whose
    true value is below 1e-160, or ``nctdtr(1, 81.5, -63.5)``); a power or MDE search must never see one.
    There the normal approximation of Abramowitz and Stegun (1964, 26.7.10), Phi((t (1 - 1/(4 df)) - nc) /
    sqrt(1 + t^2 / (2 df))), is used, held to the exact bound Phi(-nc) (T <= t <= 0 needs Z + nc <= 0, so
    P(T <= t) <= Phi(-nc) for t <= 0, and >= Phi(-nc) for t >= 0), which the approximation misses for few
    degrees of freedom. Every NaN the MDE sweep of ``tests/stats/test_power.py`` meets (n = 2..20,000) lies
    at t <= 0 < nc with nc - t >= 8: a far tail whose value does not move the power at double precision."""
    df, nc, t = np.asarray(df, dtype=np.float64), np.asarray(nc, dtype=np.float64), np.asarray(t, dtype=np.float64)
    v = np.asarray(special.nctdtr(df, nc, t), dtype=np.float64)
    bad = np.isnan(v)
    if bad.any():
        with np.errstate(over="ignore", invalid="ignore"):
            approx = special.ndtr((t * (1 - 1 / (4 * df)) - nc) / np.sqrt(1 + t * t / (2 * df)))
        bound = special.ndtr(-nc)  # T <= t <= 0 needs Z + nc <= 0; T <= 0 <= t follows from it
        v = np.where(bad, np.where(t <= 0, np.minimum(approx, bound), np.maximum(approx, bound)), v)
    return v


ROUNDING = 1e-12  # an SD at most this share of the largest |difference| is rounding error, not variation


def varies(sd: float | None, d: np.ndarray) -> bool:
    """Whether differences ``d`` of standard deviation ``sd`` vary beyond floating-point rounding: sd above
    :data:`ROUNDING` times the largest |d|. Differences equal in decimal (0.3 - 0.1 and 0.5 - 0.3) differ
    in the 17th digit, an SD near 3e-17; dividing by it gave a standardized difference of 1e15 and NaN
    powers. (Rounding moves a double by 1.1e-16 of itself; 1e-12 leaves room for sums of many.)"""
    if sd is None or not math.isfinite(sd) or sd <= 0:
        return False
    d = np.asarray(d, dtype=np.float64)
    return bool(sd > float(rounding_sd(d))) if d.size else False


def rounding_sd(d: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The largest SD of differences ``d`` (along ``axis``) that is rounding error (:func:`varies`)."""
    return ROUNDING * np.max(np.abs(d), axis=axis)


def paired_t_power(dz: float | np.ndarray, n: int | np.ndarray, alpha: float,
                   alternative: str = "two-sided") -> np.ndarray:
    """Power of the paired t test for a standardized true difference dz = delta / s with n items (finite
    for every finite or infinite dz: :func:`nct_cdf`)."""
    dz = np.asarray(dz, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        nc = dz * np.sqrt(n)
    return _t_power(nc, n - 1, _critical(n - 1, alpha, alternative), alternative)


def _critical(df: np.ndarray, alpha: float, alternative: str) -> np.ndarray:
    """The t test's critical value c (it rejects at |T| > c two-sided, T > c greater, T < -c less)."""
    return special.stdtrit(df, 1 - alpha / 2 if alternative == "two-sided" else 1 - alpha)


def _t_power(nc: np.ndarray, df: np.ndarray, c: np.ndarray, alternative: str) -> np.ndarray:
    """P(reject) for a noncentral t statistic (module docstring: both tails two-sided)."""
    if alternative == "two-sided":
        return np.clip(1 - nct_cdf(df, nc, c) + nct_cdf(df, nc, -c), 0.0, 1.0)
    if alternative == "greater":
        return 1 - nct_cdf(df, nc, c)
    return nct_cdf(df, nc, -c)


def paired_t_mde_dz(n: int, alpha: float, power: float = DEFAULT_POWER, alternative: str = "two-sided") -> float | None:
    """The standardized MDE of the paired t test with n items (None below 2 items)."""
    if n < 2:
        _check(alpha, power, alternative)
        return None
    return float(paired_t_mde_dzs(np.array([n]), alpha, power, alternative)[0])


def paired_t_mde_dzs(n: np.ndarray, alpha: float, power: float = DEFAULT_POWER,
                     alternative: str = "two-sided", df: np.ndarray | None = None) -> np.ndarray:
    """:func:`paired_t_mde_dz` for an array of item counts (each at least 2), all at once: the smallest dz
    whose power reaches ``power``, to double precision (the power at it is ``power`` or just above).
    ``df``: the t statistic's degrees of freedom when they are not n - 1 (the clustered paired t: ``n`` the
    effective number of items n / deff, ``df`` G - 1; :func:`clustered_t_mde_dz`)."""
    _check(alpha, power, alternative)
    n = np.asarray(n, dtype=np.float64)
    if n.size and not (n >= 2).all():
        raise ValueError("every n must be at least 2")
    sign = -1.0 if alternative == "less" else 1.0
    df = n - 1 if df is None else np.broadcast_to(np.asarray(df, dtype=np.float64), n.shape).copy()
    c = _critical(df, alpha, alternative)
    guess = (c + special.stdtrit(df, power)) / np.sqrt(n)  # a central t's shift: near the root, above 0
    return sign * _increasing_root(lambda d, i: _t_power(sign * d * np.sqrt(n[i]), df[i], c[i], alternative) - power,
                                   guess)


def _increasing_root(f: Callable[[np.ndarray, np.ndarray], np.ndarray], guess: np.ndarray,
                     rtol: float = 1e-14, max_iter: int = 200) -> np.ndarray:
    """Elementwise root of an increasing function with f(0) < 0, near ``guess`` > 0 (``f(x, i)``: its values
    at x for the elements ``i``): bracketed around the guess (widened by halving and doubling), then Illinois
    steps (regula falsi with the stale end's value halved: superlinear, Dowell and Jarratt 1971), bisection
    after ``max_iter // 2`` steps. Every point tried lies inside a bracket, so no NaN and no overflow is ever
    met. Returns the upper end, where f >= 0 (the power reaches its target), once the bracket is narrower
    than ``rtol`` relative or f is 0 there to double precision."""
    every = np.arange(guess.size)
    lo, hi = guess / 1.05, guess * 1.05
    f_lo, f_hi = f(lo, every), f(hi, every)
    while (high := np.flatnonzero(f_lo >= 0)).size:  # f(0) < 0: halving lo ends
        hi[high], f_hi[high] = lo[high], f_lo[high]
        lo[high] /= 2
        f_lo[high] = f(lo[high], high)
    while (short := np.flatnonzero(f_hi < 0)).size:  # f grows without bound: doubling hi ends
        lo[short], f_lo[short] = hi[short], f_hi[short]
        hi[short] *= 2
        f_hi[short] = f(hi[short], short)
    g_lo, g_hi = f_lo.copy(), f_hi.copy()  # Illinois weights: the signs stay those of f
    side = np.zeros(guess.size, dtype=np.int8)  # the end the last step moved: -1 lo, 1 hi
    active = every
    for step in range(max_iter):
        active = active[(hi[active] - lo[active] > rtol * hi[active]) & (f_hi[active] > 1e-15)]
        if not active.size:
            break
        a, b, ga, gb = lo[active], hi[active], g_lo[active], g_hi[active]
        width = b - a
        with np.errstate(divide="ignore", invalid="ignore"):
            x = b - gb * width / (gb - ga)
        x = np.where((step >= max_iter // 2) | ~np.isfinite(x) | (x <= a) | (x >= b), a + width / 2, x)
        fx = f(x, active)
        up, last = fx < 0, side[active]
        g_hi[active] = np.where(up, np.where(last == -1, gb / 2, gb), fx)
        g_lo[active] = np.where(up, fx, np.where(last == 1, ga / 2, ga))
        lo[active], f_lo[active] = np.where(up, x, a), np.where(up, fx, f_lo[active])
        hi[active], f_hi[active] = np.where(up, b, x), np.where(up, f_hi[active], fx)
        side[active] = np.where(up, -1, 1)
    return hi


def clustered_t_mde_dz(effective_n: float, clusters: int, alpha: float, power: float = DEFAULT_POWER,
                       alternative: str = "two-sided") -> float | None:
    """The standardized MDE (in SDs of the per-item differences) of the clustered paired t test: its statistic is
    noncentral t with G - 1 df and noncentrality delta / SE_CR1 = dz * sqrt(n_eff), n_eff = n / deff (the design
    effect of the differences). None below 2 clusters or 2 effective items."""
    if clusters < 2 or not effective_n >= 2:
        _check(alpha, power, alternative)
        return None
    return float(paired_t_mde_dzs(np.array([effective_n]), alpha, power, alternative, df=np.array([clusters - 1]))[0])


def paired_t_mde(sd: float | None, n: int, alpha: float, power: float = DEFAULT_POWER,
                 alternative: str = "two-sided") -> MinimumDetectable:
    """The MDE of the paired t test for differences of standard deviation ``sd``."""
    dz = paired_t_mde_dz(n, alpha, power, alternative)
    if dz is None or sd is None or not math.isfinite(sd):
        why = "fewer than 2 items" if dz is None else "the differences have no finite standard deviation"
        return MinimumDetectable(mde=None, mde_dz=None, power=power, alpha=alpha, n=n, sd=sd, method="noncentral_t",
                                 warnings=(f"no minimum detectable difference: {why}",))
    return MinimumDetectable(mde=dz * sd, mde_dz=dz, power=power, alpha=alpha, n=n, sd=sd, method="noncentral_t")


def clustered_t_power(dz: float | np.ndarray, effective_n: float | np.ndarray, clusters: int | np.ndarray,
                      alpha: float, alternative: str = "two-sided") -> np.ndarray:
    """Power of the clustered paired t test: noncentral t with G - 1 df, noncentrality dz * sqrt(n / deff)
    (dz in SDs of the per-item differences, ``effective_n`` = n / deff)."""
    dz = np.asarray(dz, dtype=np.float64)
    df = np.asarray(clusters, dtype=np.float64) - 1
    with np.errstate(over="ignore", invalid="ignore"):
        nc = dz * np.sqrt(np.asarray(effective_n, dtype=np.float64))
    return _t_power(nc, df, _critical(df, alpha, alternative), alternative)


def clusters_needed(dz: float, design_effect: float, cluster_size: float, alpha: float,
                    power: float = DEFAULT_POWER, alternative: str = "two-sided", max_g: int = 10_000_000) -> int | None:
    """The smallest number of clusters G (of ``cluster_size`` items on average, the design effect unchanged)
    with which the clustered paired t detects a standardized difference ``dz`` (>= 0 in the alternative's
    direction) with ``power``: n_eff = G * cluster_size / deff, df = G - 1. None beyond ``max_g``."""
    _check(alpha, power, alternative)

    def enough(g: int) -> bool:
        return bool(clustered_t_power(dz, g * cluster_size / design_effect, g, alpha, alternative) >= power)

    hi = 2
    while not enough(hi):
        if hi >= max_g:
            return None
        hi = min(hi * 2, max_g)
    lo = hi // 2 if hi > 2 else 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def paired_t_sample_size(delta: float, sd: float, alpha: float, power: float = DEFAULT_POWER,
                         alternative: str = "two-sided", max_n: int = 10_000_000) -> int | None:
    """The smallest number of items with which the paired t test detects ``delta`` with ``power``
    (None when even ``max_n`` items do not suffice, or delta points against a one-sided alternative)."""
    _check(alpha, power, alternative)
    if not (sd > 0 and math.isfinite(sd) and math.isfinite(delta)) or delta == 0:
        raise ValueError("delta must be non-zero and finite, sd positive and finite")
    if (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0):
        return None
    dz = delta / sd if alternative != "two-sided" else abs(delta) / sd

    def enough(n: int) -> bool:
        return bool(paired_t_power(dz, n, alpha, alternative) >= power)

    hi = 2
    while not enough(hi):
        if hi >= max_n:
            return None
        hi = min(hi * 2, max_n)
    lo = hi // 2 if hi > 2 else 1  # enough(lo) is false (or lo = 1, below any test)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


# A test for the simulation: (n_sims, n) differences -> (n_sims,) p-values, vectorised over the rows.
PValues = Callable[[np.ndarray], np.ndarray]


def t_pvalues(d: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Paired t test p-values of each row of ``d`` (the simulation's reference test)."""
    n = d.shape[1]
    mean = d.mean(axis=1)
    se = d.std(axis=1, ddof=1) / math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    if alternative == "two-sided":
        return 2 * special.stdtr(n - 1, -np.abs(t))
    return special.stdtr(n - 1, -t) if alternative == "greater" else special.stdtr(n - 1, t)


def simulated_mde(diffs: np.ndarray, pvalues: PValues, alpha: float, power: float = DEFAULT_POWER,
                  alternative: str = "two-sided", n_sims: int = 1000, seed: int = 0,
                  rel_tol: float = 1e-3) -> MinimumDetectable:
    """The MDE of any test by simulation from the observed differences (shift model; module docstring)."""
    _check(alpha, power, alternative)
    d = np.asarray(diffs, dtype=np.float64)
    d = d[np.isfinite(d)]
    n = d.size
    sd = float(d.std(ddof=1)) if n >= 2 else None
    if n < 2 or sd is None or not varies(sd, d):
        why = "fewer than 2 items" if n < 2 else "the differences do not vary"
        return MinimumDetectable(mde=None, mde_dz=None, power=power, alpha=alpha, n=n, sd=sd, method="simulation",
                                 warnings=(f"no minimum detectable difference: {why}",))
    blocks = _draw_blocks(_centred(d), n_sims, seed)
    sign = -1.0 if alternative == "less" else 1.0

    def rate(delta: float) -> float:
        return sum(int(np.count_nonzero(rejects(pvalues(b + sign * delta), alpha))) for b in blocks()) / n_sims

    lo, hi = 0.0, sd
    while rate(hi) < power:
        lo, hi = hi, hi * 2
        if hi > 1e6 * sd:
            return MinimumDetectable(mde=None, mde_dz=None, power=power, alpha=alpha, n=n, sd=sd, method="simulation",
                                     warnings=("no minimum detectable difference: the test never reaches the power",))
    while hi - lo > rel_tol * sd:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if rate(mid) >= power else (mid, hi)
    return MinimumDetectable(mde=sign * hi, mde_dz=sign * hi / sd, power=power, alpha=alpha, n=n, sd=sd,
                             method="simulation")


MAX_DRAWN = 4_000_000  # simulated differences held at once (32 MB; a rank test's p-values need a few times that)


def _draw_blocks(centred: np.ndarray, n_sims: int, seed: int, m: int | None = None
                 ) -> Callable[[], Iterable[np.ndarray]]:
    """The simulated data sets (rows of ``m`` differences, by default as many as the pilot's, drawn with
    replacement from ``centred``), the same ones at every call (common random numbers). Up to :data:`MAX_DRAWN`
    values they are drawn once and kept; a larger simulation (one pair of 200,000 items: 10^8 values, 7 GB in a
    rank test) is redrawn block by block at each call from per-block streams of the seed, so that memory stays
    bounded."""
    n = centred.size
    m = n if m is None else int(m)
    if n_sims * m <= MAX_DRAWN:
        kept = [centred[np.random.default_rng(seed).integers(0, n, size=(n_sims, m))]]
        return lambda: kept
    rows = max(1, MAX_DRAWN // m)
    sizes = [min(rows, n_sims - start) for start in range(0, n_sims, rows)]
    streams = np.random.SeedSequence(seed).spawn(len(sizes))

    def redraw() -> Iterable[np.ndarray]:
        return (centred[np.random.default_rng(s).integers(0, n, size=(k, m))] for s, k in zip(streams, sizes))
    return redraw


def _centred(d: np.ndarray) -> np.ndarray:
    """The pilot's differences centred, and scaled so that the draws' variance is the unbiased s^2 rather than
    the plug-in (n-1)/n s^2: the null population the simulation draws from (shift model)."""
    n = d.size
    return (d - d.mean()) * math.sqrt(n / (n - 1))


def simulated_power(diffs: np.ndarray, pvalues: PValues, alpha: float, delta: float, n_sims: int = 1000,
                    seed: int = 0, n_items: int | None = None) -> float | None:
    """The power of a test (``pvalues``) to detect a true mean difference ``delta`` (signed, in the metric's
    units) with ``n_items`` items (default: the pilot's), by the simulation of :func:`simulated_mde`: data sets
    drawn with replacement from the pilot's centred differences, shifted by ``delta``. With the pilot's item
    count and the same seed the data sets are those :func:`simulated_mde` draws, so the power at its MDE is
    its target (or the next multiple of 1 / ``n_sims`` above it). None: fewer than 2 items or no variation."""
    d = np.asarray(diffs, dtype=np.float64)
    d = d[np.isfinite(d)]
    if d.size < 2 or not varies(float(d.std(ddof=1)), d):
        return None
    blocks = _draw_blocks(_centred(d), n_sims, seed, n_items)
    return sum(int(np.count_nonzero(rejects(pvalues(b + delta), alpha))) for b in blocks()) / n_sims


def simulated_sample_size(diffs: np.ndarray, pvalues: PValues, alpha: float, delta: float,
                          power: float = DEFAULT_POWER, n_sims: int = 1000, seed: Callable[[int], int] = lambda m: 0,
                          guess: int | None = None, max_n: int = 100_000) -> int | None:
    """The smallest number of items with which the test detects ``delta`` with ``power`` by the simulation of
    :func:`simulated_power` (the data sets of m items from the seed ``seed(m)``), by bisection from ``guess``
    (e.g. the closed form over the test's efficiency): doubling until the power is reached, halving until it is
    not, then bisecting. The simulated power is not exactly monotone in m (Monte Carlo error, s.e. 0.018 near
    0.8 with 500 data sets), so the count is one m whose power reaches the target while m - 1's does not, near
    the first such m. None beyond ``max_n`` items, or when the pilot's differences do not vary."""
    def enough(m: int) -> bool:
        rate = simulated_power(diffs, pvalues, alpha, delta, n_sims, seed(m), m)
        if rate is None:
            raise ValueError("the differences do not vary")
        return rate >= power

    d = np.asarray(diffs, dtype=np.float64)
    d = d[np.isfinite(d)]
    if d.size < 2 or not varies(float(d.std(ddof=1)), d):
        return None
    hi = min(max(int(guess or 2), 2), max_n)
    while not enough(hi):
        if hi >= max_n:
            return None
        hi = min(hi * 2, max_n)
    lo = hi // 2
    while lo >= 2 and enough(lo):  # the guess was high: halve until the power is not reached
        hi, lo = lo, lo // 2
    lo = max(lo, 1)  # one item: below any test
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def wilcoxon_pvalues(d: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Wilcoxon signed-rank p-values of each row of ``d`` by the normal approximation with the tie
    correction, zero differences split between the two rank sums (the ``zsplit`` form of stats.rank), no
    continuity correction: the simulation's stand-in for the exact and corrected forms, which move the MDE
    by far less than its Monte Carlo error."""
    from scipy.stats import rankdata

    n = d.shape[1]
    ranks = rankdata(np.abs(d), axis=1)
    t_plus = np.where(d > 0, ranks, 0.0).sum(axis=1) + 0.5 * np.where(d == 0, ranks, 0.0).sum(axis=1)
    mean = n * (n + 1) / 4
    ties = _tie_term(np.abs(d))
    var = n * (n + 1) * (2 * n + 1) / 24 - ties / 48
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (t_plus - mean) / np.sqrt(var)
    if alternative == "two-sided":
        return 2 * special.ndtr(-np.abs(z))
    return special.ndtr(-z) if alternative == "greater" else special.ndtr(z)


def _tie_term(a: np.ndarray) -> np.ndarray:
    """sum(t^3 - t) over the groups of tied values of each row (vectorised: group sizes by bincount)."""
    rows, n = a.shape
    s = np.sort(a, axis=1)
    starts = np.ones_like(s, dtype=bool)
    starts[:, 1:] = s[:, 1:] != s[:, :-1]
    group = np.cumsum(starts, axis=1) - 1 + (np.arange(rows) * n)[:, None]
    t = np.bincount(group.ravel(), minlength=rows * n).reshape(rows, n).astype(np.float64)
    return (t ** 3 - t).sum(axis=1)


def sign_pvalues(d: np.ndarray, alternative: str = "two-sided") -> np.ndarray:
    """Exact sign test p-values of each row of ``d`` (zero differences dropped)."""
    wins = (d > 0).sum(axis=1)
    n = wins + (d < 0).sum(axis=1)
    upper = stats.binom.sf(wins - 1, n, 0.5)  # P(W >= wins)
    lower = stats.binom.cdf(wins, n, 0.5)  # P(W <= wins)
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return np.minimum(1.0, 2 * np.minimum(upper, lower))


def two_sample_power(delta: float, sd: float, n: int, alpha: float, alternative: str = "two-sided") -> float:
    """Power of the two-sample t test (equal n per group, equal SD) for a true difference ``delta``:
    noncentral t with 2 (n - 1) degrees of freedom and noncentrality delta / (sd sqrt(2 / n))."""
    df = 2 * (n - 1)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        nc = np.float64(delta) / (sd * math.sqrt(2.0 / n))
    if alternative == "two-sided":
        c = special.stdtrit(df, 1 - alpha / 2)
        return float(np.clip(1 - nct_cdf(df, nc, c) + nct_cdf(df, nc, -c), 0.0, 1.0))
    c = special.stdtrit(df, 1 - alpha)
    return float(1 - nct_cdf(df, nc, c)) if alternative == "greater" else float(nct_cdf(df, nc, -c))


def two_sample_size(delta: float, sd: float, alpha: float, power: float = DEFAULT_POWER,
                    alternative: str = "two-sided", max_n: int = 100_000) -> int | None:
    """Runs per system (the smallest n per group) with which the two-sample t test on the systems' per-run
    values detects ``delta`` with ``power``; None beyond ``max_n``."""
    _check(alpha, power, alternative)
    if not (sd > 0 and math.isfinite(sd)) or delta == 0:
        raise ValueError("delta must be non-zero, sd positive and finite")
    d = abs(delta) if alternative == "two-sided" else delta * (1 if alternative == "greater" else -1)
    if d <= 0:
        return None
    n = 2
    while two_sample_power(d, sd, n, alpha, alternative if alternative == "two-sided" else "greater") < power:
        n += 1 if n < 64 else n // 8
        if n > max_n:
            return None
    lo = max(2, n - (n // 9 if n > 64 else 1))
    while lo < n and two_sample_power(d, sd, lo, alpha, alternative if alternative == "two-sided" else "greater") < power:
        lo += 1
    return lo
