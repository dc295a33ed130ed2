"""Pair statistics of a leaderboard (a family of many systems) from whole-matrix algebra, not from pairs.

A family of k systems has k(k - 1)/2 pairs: 499,500 at k = 1,000. Making each pair's differences
``x[:, a] - x[:, b]`` is a (pairs x items) array, 40 GB at 10,000 items, and a Python step per pair on
top. Every statistic a pair's row needs from its differences is a function of the systems' means and
one covariance matrix:

    mean(x_a - x_b) = m_a - m_b,   var(x_a - x_b) = S_aa + S_bb - 2 S_ab,

with S the (k x k) sample covariance (ddof 1) of the centred scores: one (k x n) @ (n x k) product.
The same floats are not promised (a sum in another order), only the same values to rounding:
``tests/stats/test_leaderboard.py`` compares every pair of a random 30-system family with
``scipy.stats.ttest_rel`` at 1e-10. Where the covariance formula would cancel (two systems whose
scores nearly coincide: var(x_a - x_b) below 1e-8 of S_aa + S_bb, or an SD within 1e-9 of the scores'
size), the pair's differences are made and summed directly, so that identical or near-identical
systems get the same "constant differences" verdicts as one pair at a time.

Families of at most :data:`LARGE_FAMILY` systems never come here (their pairs are computed one
difference vector at a time, bit for bit as before: the examples' goldens, the 24-system leaderboard among them,
are unchanged); the analyses choose, the report's methods say so.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from sigreport.stats.lazy import scipy_special as special
from sigreport.stats.pairwise import DifferenceSummary, PairedEffectSizes, hedges_j, paired_t, t_critical, t_ppf
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none

LARGE_FAMILY = 40
"""Families of more systems than this (780 pairs; all pairs of them or every system against a baseline) get their
pair statistics from :func:`difference_moments`. Below it one pair at a time costs little (the 1M-row reports'
20-system families, the 24-system leaderboard example), and their results stay the floats they always were."""

SHAPIRO_ITEMS = 30
"""From this many items a leaderboard's pairs get no Shapiro-Wilk test: it needs each pair's sorted differences
(a sort of n values per pair, 499,500 sorts of 10,000 at k = 1,000), and the paired t reads it only to warn
under 30 items. Below it the pairs are made one by one as in a small family (a (pairs x n) array of few items)."""

NO_SHAPIRO = (f"Shapiro-Wilk of the pairs' differences not run: a family of more than {LARGE_FAMILY} systems with "
              f"{SHAPIRO_ITEMS} or more items (the paired t reads it only to warn under {SHAPIRO_ITEMS} items)")


def is_leaderboard(k: int, n: int) -> bool:
    """Whether a family of ``k`` systems on ``n`` items takes this module's path (:data:`LARGE_FAMILY`,
    :data:`SHAPIRO_ITEMS`)."""
    return k > LARGE_FAMILY and n >= SHAPIRO_ITEMS

CANCELLATION = 1e-8
"""var(x_a - x_b) at most this share of S_aa + S_bb: the covariance formula has lost digits; made directly."""

_DIRECT_BLOCK = 256  # pairs made directly per block (256 x 10,000 doubles: 20 MB)


@dataclasses.dataclass(frozen=True, kw_only=True)
class DifferenceMoments:
    """Every pair's n, mean and SD (ddof 1) of ``x[:, a] - x[:, b]``, and which pairs' differences are
    constant (SD at most 1e-12 of max(1, max |d|), the rule of :func:`sigreport.stats.pairwise.paired_t`),
    or within rounding of constant (:func:`sigreport.stats.power.varies`: SD at most 1e-12 of max |d|)."""

    n: int
    mean: np.ndarray
    sd: np.ndarray
    constant: np.ndarray
    rounding: np.ndarray


def covariance(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(column means, sample covariance with ddof 1) of an (items x systems) matrix, in one product."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    mean = x.mean(axis=0)
    xc = x - mean
    return mean, (xc.T @ xc) / (n - 1)


def difference_moments(x: np.ndarray, a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray
                       ) -> DifferenceMoments:
    """The mean and SD of every pair's differences from the covariance matrix (module docstring), pairs
    where it would cancel made directly."""
    x = np.asarray(x, dtype=np.float64)
    pa, pb = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    n = x.shape[0]
    if n < 2:
        raise ValueError("difference_moments needs at least 2 items")
    m, S = covariance(x)
    diag = np.diagonal(S)
    mean = m[pa] - m[pb]
    scale = diag[pa] + diag[pb]
    var = scale - 2.0 * S[pa, pb]
    amax = np.max(np.abs(x), axis=0)
    bound = amax[pa] + amax[pb]  # at least max |d|
    sd = np.sqrt(np.maximum(var, 0.0))
    direct = (var <= CANCELLATION * scale) | (sd <= 1e-9 * np.maximum(1.0, bound)) | ~np.isfinite(var)
    constant = np.zeros(pa.size, dtype=bool)
    rounding = np.zeros(pa.size, dtype=bool)
    which = np.flatnonzero(direct)
    xt = np.ascontiguousarray(x.T) if which.size else x
    for s0 in range(0, which.size, _DIRECT_BLOCK):
        idx = which[s0:s0 + _DIRECT_BLOCK]
        d = xt[pa[idx]] - xt[pb[idx]]  # row r: exactly x[:, a] - x[:, b]
        mean[idx] = d.mean(axis=1)
        sd[idx] = d.std(axis=1, ddof=1)
        top = np.max(np.abs(d), axis=1)
        constant[idx] = sd[idx] <= 1e-12 * np.maximum(1.0, top)
        rounding[idx] = ~(sd[idx] > 1e-12 * top)
    return DifferenceMoments(n=n, mean=mean, sd=sd, constant=constant, rounding=rounding)


def paired_t_arrays(moments: DifferenceMoments, alternative: str, ci_level: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(t, p, ci_low, ci_high) of every pair's paired t test from its moments (NaN where the differences are
    constant): the formulas of :func:`sigreport.stats.pairwise.paired_t` on arrays."""
    n = moments.n
    df = n - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        se = moments.sd / math.sqrt(n)
        t = np.where(moments.constant, np.nan, moments.mean / se)
    if alternative == "two-sided":
        p = 2 * special.stdtr(df, -np.abs(t))
        h = t_ppf(0.5 + ci_level / 2, df) * se
        lo, hi = moments.mean - h, moments.mean + h
    elif alternative == "greater":
        p = special.stdtr(df, -t)
        lo, hi = moments.mean - t_ppf(ci_level, df) * se, np.full(t.shape, np.inf)
    else:
        p = special.stdtr(df, t)
        lo, hi = np.full(t.shape, -np.inf), moments.mean + t_ppf(ci_level, df) * se
    return t, p, lo, hi


def noncentral_t_cis_normal(t: np.ndarray, df: float, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The interval of the noncentrality of observed t's by the normal approximation of the noncentral t
    (Hedges and Olkin 1985, eq. 5.15: T ~ N(ncp, 1 + ncp^2 / (2 df)), the variance at the observed t):
    ``t -/+ z sqrt(1 + t^2 / (2 df))``. Used for a leaderboard's effect-size intervals, where the exact
    inversion (a Brent search per bound on the noncentral t's cdf) is most of the analysis: at 10,000 items
    the two agree to about 1e-4 of the interval's width."""
    t = np.asarray(t, dtype=np.float64)
    z = float(special.ndtri(0.5 + level / 2))
    half = z * np.sqrt(1.0 + t * t / (2.0 * df))
    return t - half, t + half


def difference_summaries(moments: DifferenceMoments) -> list[DifferenceSummary]:
    """Each pair's :class:`~sigreport.stats.pairwise.DifferenceSummary` from its moments, without Shapiro-Wilk
    (:data:`NO_SHAPIRO`, said once on the record); constant differences worded as one pair at a time."""
    n = moments.n
    root = math.sqrt(n)
    out = []
    for m, sd, c in zip(moments.mean.tolist(), moments.sd.tolist(), moments.constant.tolist()):
        out.append(DifferenceSummary(n=n, mean=m, sd=sd, se=sd / root, shapiro_w=None, shapiro_pvalue=None,
                                     warnings=("Shapiro-Wilk is undefined: the differences are constant",) if c
                                     else ()))
    return out


def moments_of(differences: Sequence[DifferenceSummary]) -> DifferenceMoments:
    """The moments back from :func:`difference_summaries` (constant: the pairs with that warning)."""
    n = differences[0].n if differences else 0
    mean = np.array([d.mean for d in differences], dtype=np.float64)
    sd = np.array([d.sd for d in differences], dtype=np.float64)
    constant = np.array([bool(d.warnings) for d in differences], dtype=bool)
    return DifferenceMoments(n=n, mean=mean, sd=sd, constant=constant, rounding=constant.copy())


def paired_t_family(x: np.ndarray, pairs: Sequence[tuple[int, int]], alternative: str, alpha: float,
                    ci_level: float, moments: DifferenceMoments) -> list[PairedTestResult]:
    """Every pair's paired t test from the family's moments (:func:`paired_t_arrays`); a pair with constant
    differences (or a non-finite t) goes through :func:`~sigreport.stats.pairwise.paired_t` itself."""
    n = moments.n
    df = n - 1
    t, p, lo, hi = paired_t_arrays(moments, alternative, ci_level)
    crit = t_critical(alpha, df, alternative)
    extra = {"shapiro_pvalue": None, "normality_rejected": None}
    out = []
    rows = zip(pairs, moments.mean.tolist(), moments.sd.tolist(), t.tolist(), p.tolist(), lo.tolist(), hi.tolist())
    for (i, j), m_k, sd_k, t_k, p_k, lo_k, hi_k in rows:
        if not math.isfinite(t_k):
            r = paired_t(x[:, i], x[:, j], alternative, alpha, ci_level)
            out.append(dataclasses.replace(r, extra={**r.extra, "shapiro_pvalue": None, "normality_rejected": None}))
            continue
        out.append(PairedTestResult(method="paired_t", n=n, statistic=t_k, df=float(df), pvalue=p_k,
                                    alternative=alternative, estimate=m_k, ci_low=finite_or_none(lo_k),
                                    ci_high=finite_or_none(hi_k), ci_level=ci_level, critical_value=crit,
                                    effect_size=EffectSize(name="d_z", value=m_k / sd_k), warnings=(),
                                    extra=dict(extra)))
    return out


NORMAL_CI = "normal_approximation"
"""``ci_method`` of a leaderboard's effect-size intervals (:func:`noncentral_t_cis_normal`)."""


def effect_sizes_family(x: np.ndarray, pairs: Sequence[tuple[int, int]], ci_level: float,
                        moments: DifferenceMoments) -> list[PairedEffectSizes]:
    """d_z, g_z, d_av, g_av (Lakens 2013; the formulas of :class:`~sigreport.stats.pairwise.PairedEffectSizes`) of
    every pair from its moments and each system's SD, in array operations, with the intervals of
    :func:`noncentral_t_cis_normal` (``ci_method`` :data:`NORMAL_CI`)."""
    n = moments.n
    sds = np.asarray(x, dtype=np.float64).std(axis=0, ddof=1)
    pa = np.fromiter((i for i, _ in pairs), dtype=np.int64, count=len(pairs))
    pb = np.fromiter((j for _, j in pairs), dtype=np.int64, count=len(pairs))
    sd_av = (sds[pa] + sds[pb]) / 2
    ok = ~moments.constant & (moments.sd > 0)
    j = hedges_j(n - 1)
    root = math.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dz = np.where(ok, moments.mean / moments.sd, np.nan)
        lo, hi = noncentral_t_cis_normal(dz * root, n - 1, ci_level)
        lo, hi = lo / root, hi / root
        ratio = moments.sd / sd_av
        dav = moments.mean / sd_av
        cols = [dz, lo, hi, j * dz, lo * j, hi * j, dav, lo * ratio, hi * ratio, j * moments.mean / sd_av,
                lo * (ratio * j), hi * (ratio * j)]  # each as _effect_sizes groups it
    values = [[v if math.isfinite(v) else None for v in c.tolist()] for c in cols]
    why = ("the differences have zero variance: d_z is undefined",)
    both = ("both systems' scores are constant: d_av is undefined",)
    out = []
    for k, (ok_k, av_k) in enumerate(zip(ok.tolist(), sd_av.tolist())):
        if not ok_k:
            out.append(PairedEffectSizes(n=n, d_z=EffectSize(name="d_z", value=None),
                                         g_z=EffectSize(name="g_z", value=None),
                                         d_av=EffectSize(name="d_av", value=None),
                                         g_av=EffectSize(name="g_av", value=None), ci_level=ci_level,
                                         ci_method=NORMAL_CI, warnings=why))
            continue
        v = [c[k] for c in values]
        if av_k > 0:
            d_av = EffectSize(name="d_av", value=v[6], ci_low=v[7], ci_high=v[8])
            g_av = EffectSize(name="g_av", value=v[9], ci_low=v[10], ci_high=v[11])
            warn: tuple[str, ...] = ()
        else:
            d_av, g_av, warn = EffectSize(name="d_av", value=None), EffectSize(name="g_av", value=None), both
        out.append(PairedEffectSizes(n=n, d_z=EffectSize(name="d_z", value=v[0], ci_low=v[1], ci_high=v[2]),
                                     g_z=EffectSize(name="g_z", value=v[3], ci_low=v[4], ci_high=v[5]),
                                     d_av=d_av, g_av=g_av, ci_level=ci_level, ci_method=NORMAL_CI, warnings=warn))
    return out
