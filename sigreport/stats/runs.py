"""Several training runs per system: almost stochastic order and a two-level bootstrap.

A system trained with several seeds gives several runs; "is A better than B" then asks about runs and
items together.

**Almost stochastic order (ASO)**, Dror, Shlomov and Reichart (2019), "Deep Dominance - How to Properly
Compare Deep Neural Models", as implemented by deep-significance (Ulmer et al. 2022, ``deepsig.aso``):
with F and G the empirical distributions of A's and B's scores (one score per run), the violation ratio

    eps_W2 = int_{V} (F^-1(t) - G^-1(t))^2 dt / int_0^1 (F^-1(t) - G^-1(t))^2 dt,  V = {t: F^-1(t) < G^-1(t)}

is the share of the squared Wasserstein distance where A is below B (0: A stochastically dominates B).
Both integrals are Riemann sums over t = dt, 2 dt, ..., 1 - dt (deepsig drops the first point from the
numerator; so does this module, so that the values are deepsig's). Its upper confidence bound

    eps_min = clip(eps_W2 + z_{conf} sigma / c, 0, 1),  c = sqrt(n m / (n + m)),

with sigma the standard deviation of c (eps*_b - eps_W2) over bootstrap replicates eps*_b (each run set
resampled with replacement, independently), is the reported value: A is "almost stochastically larger"
than B when eps_min < tau (0.5 is the weakest claim; Ulmer et al. 2022 recommend tau = 0.2). With m
comparisons the confidence is Bonferroni-adjusted, 1 - (1 - conf) / m. deepsig 1.2.8 writes
conf + (1 - conf) / m, which is Bonferroni only at m = 2: at m = 3 it tests at 2 alpha / 3 instead of
alpha / 3, and ``multi_aso`` of two systems (m = 1) sets the confidence to 1 and every eps_min to 1.
Tested against deepsig 1.2.8 on the same draws (the uniforms its seeded loop draws), at m = 1 and 2 with
its own correction and at m = 3 with the Bonferroni confidence passed to it.

**Two-level bootstrap** of the difference of means over runs and items: each replicate draws the items
with replacement (shared by the two systems: the items are paired) and, for each system separately, its
runs with replacement (run i of A has nothing to do with run i of B); the replicate's difference is
mean over drawn items and runs of A minus that of B. The percentile interval of the replicates is the
interval of the difference, with both sources of variation in it (Davison and Hinkley 1997, sec. 3.8,
the two-stage bootstrap).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from sigreport.stats.lazy import scipy_special as special

DEFAULT_DT = 0.005  # deepsig's default integration step
DEFAULT_TAU = 0.5


@dataclasses.dataclass(frozen=True, kw_only=True)
class ASOResult:
    """Almost stochastic order of A over B: ``eps_min`` (upper bound of the violation ratio at
    ``confidence``), the violation ratio itself, and the bootstrap's spread."""

    eps_min: float
    violation_ratio: float
    sigma: float
    confidence: float
    n_a: int
    n_b: int
    n_resamples: int
    warnings: tuple[str, ...] = ()


def quantiles(sorted_scores: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The empirical quantile function F^-1(t) = x_(ceil(n t)) (deepsig's ``get_quantile_function``), for
    the rows of ``sorted_scores`` (..., n) at the points t."""
    n = sorted_scores.shape[-1]
    index = np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)
    return sorted_scores[..., index]


def violation_ratio(a: np.ndarray, b: np.ndarray, dt: float = DEFAULT_DT) -> np.ndarray:
    """eps_W2 of the rows of ``a`` (..., n) over those of ``b`` (..., m): vectorised over leading axes.
    0.5 where the two distributions are equal (deepsig's choice for 0/0)."""
    t = np.arange(dt, 1, dt)
    f = quantiles(np.sort(a, axis=-1), t)
    g = quantiles(np.sort(b, axis=-1), t)
    diff = g - f
    total = np.sum(diff ** 2 * dt, axis=-1)
    diff = np.where(f >= g, 0.0, diff)
    violated = np.sum(diff[..., 1:] ** 2 * dt, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total == 0, 0.5, violated / np.where(total == 0, 1.0, total))


def aso(a: Sequence[float], b: Sequence[float], confidence: float = 0.95, n_comparisons: int = 1,
        n_resamples: int = 1000, seed: int = 0, dt: float = DEFAULT_DT,
        uniforms: tuple[np.ndarray, np.ndarray] | None = None) -> ASOResult:
    """eps_min of A over B (module docstring). ``uniforms`` ((B, n), (B, m) in [0, 1)) replace the draws
    from ``seed``: each replicate's run sets are F^-1(u), as deepsig draws them."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.size < 1 or b.size < 1 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("ASO needs at least one finite score per system")
    if not 0 < confidence < 1 or n_comparisons < 1:
        raise ValueError("confidence must lie in (0, 1) and n_comparisons be at least 1")
    conf = 1 - (1 - confidence) / n_comparisons  # Bonferroni (deepsig: conf + (1 - conf) / m; module docstring)
    if uniforms is None:
        rng = np.random.default_rng(seed)
        ua, ub = rng.random((n_resamples, a.size)), rng.random((n_resamples, b.size))
    else:
        ua, ub = (np.asarray(u, dtype=np.float64) for u in uniforms)
        n_resamples = ua.shape[0]
    sa, sb = np.sort(a), np.sort(b)
    ratio = float(violation_ratio(a, b, dt))
    replicates = violation_ratio(quantiles(sa, ua), quantiles(sb, ub), dt)
    c = np.sqrt(a.size * b.size / (a.size + b.size))
    sigma = float(np.std(c * (replicates - ratio)))
    eps = float(np.clip(ratio - sigma / c * special.ndtri(1 - conf), 0, 1))
    warnings = ()
    if min(a.size, b.size) < 5:
        warnings = (f"only {min(a.size, b.size)} run(s) for a system: almost stochastic order is unreliable with "
                    "so few scores (Dror et al. 2019 use 5 or more)",)
    return ASOResult(eps_min=eps, violation_ratio=ratio, sigma=sigma, confidence=conf, n_a=a.size, n_b=b.size,
                     n_resamples=n_resamples, warnings=warnings)


def aso_both_ways(a: Sequence[float], b: Sequence[float], confidence: float = 0.95, n_comparisons: int = 1,
                  n_resamples: int = 1000, seed: int = 0, dt: float = DEFAULT_DT) -> tuple[ASOResult, ASOResult]:
    """eps_min of A over B and of B over A from one bootstrap, as ``deepsig.multi_aso`` computes a pair: the
    violation ratio of B over A is 1 - that of A over B, and both share the replicates' spread."""
    ab = aso(a, b, confidence, n_comparisons, n_resamples, seed, dt)
    c = np.sqrt(ab.n_a * ab.n_b / (ab.n_a + ab.n_b))
    ratio = 1.0 - ab.violation_ratio
    eps = float(np.clip(ratio - ab.sigma / c * special.ndtri(1 - ab.confidence), 0, 1))
    return ab, dataclasses.replace(ab, eps_min=eps, violation_ratio=ratio, n_a=ab.n_b, n_b=ab.n_a)


@dataclasses.dataclass(frozen=True, kw_only=True)
class TwoLevelInterval:
    """The two-level bootstrap interval of mean(A) - mean(B) over runs and items."""

    estimate: float
    ci_low: float
    ci_high: float
    level: float
    se: float
    n_items: int
    n_runs: tuple[int, int]
    n_resamples: int


def two_level_bootstrap(a: np.ndarray, b: np.ndarray, level: float = 0.95, n_resamples: int = 10_000,
                        seed: int = 0) -> TwoLevelInterval:
    """Percentile interval of the difference of means of ``a`` (items, runs of A) and ``b`` (items, runs
    of B): items drawn jointly, runs drawn per system (module docstring). Vectorised: each replicate's
    mean is w' X v / (n r) with w the item counts and v the run counts."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != b.shape[0] or a.shape[0] < 2:
        raise ValueError("a and b must be (items, runs) arrays over the same two or more items")
    n = a.shape[0]
    rng = np.random.default_rng(seed)
    w = rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)  # (B, n)
    va = rng.multinomial(a.shape[1], np.full(a.shape[1], 1.0 / a.shape[1]), size=n_resamples).astype(np.float64)
    vb = rng.multinomial(b.shape[1], np.full(b.shape[1], 1.0 / b.shape[1]), size=n_resamples).astype(np.float64)
    mean_a = np.einsum("bi,ir,br->b", w, a, va) / (n * a.shape[1])
    mean_b = np.einsum("bi,ir,br->b", w, b, vb) / (n * b.shape[1])
    d = mean_a - mean_b
    tail = (1 - level) / 2
    low, high = np.quantile(d, [tail, 1 - tail])
    return TwoLevelInterval(estimate=float(a.mean() - b.mean()), ci_low=float(low), ci_high=float(high), level=level,
                            se=float(d.std(ddof=1)), n_items=n, n_runs=(a.shape[1], b.shape[1]),
                            n_resamples=n_resamples)
