"""Intervals for proportions: one system's accuracy on 0/1-scored items, and the paired difference of two.

A metric whose per-item scores are all 0 or 1 is a proportion; its mean's t interval is then the Wald interval
(with a t quantile), of zero width at 0% and 100% at any n and too narrow below a few hundred items (Brown, Cai
and DasGupta 2001). ``tests.proportion_ci`` chooses one of :data:`INTERVALS` for each system's accuracy:

* ``wilson`` (default): the score interval of Wilson (1927), recommended by Brown, Cai and DasGupta (2001) for
  every n; equal to ``statsmodels.stats.proportion.proportion_confint(x, n, method="wilson")``.
* ``clopper_pearson``: the exact interval of Clopper and Pearson (1934) from beta quantiles, conservative;
  ``method="beta"`` there.
* ``jeffreys``: the equal-tailed interval of the Jeffreys Beta(1/2, 1/2) posterior, with Brown, Cai and
  DasGupta's (2001, sec. 4.1.2) boundary modification (lower limit 0 at x = 0, upper 1 at x = n); between the
  boundaries ``method="jeffreys"`` there.
* ``wald``: p +- z sqrt(p(1 - p)/n) clipped to [0, 1] (``method="normal"``), for comparison only: of zero width
  at 0% and 100%, which the analysis says in a warning.

Every interval is computed for all systems at once (arrays of counts) and lies in [0, 1]; all but Wald's have
positive width for every n >= 1 and every count. :func:`proportion_ci` takes fractional counts and sizes, so
that clustered items get any interval on an effective sample size (the count p * n_eff); :func:`korn_graubard_n` is the effective sample
size a clustered analysis uses, with Korn and Graubard's (1998) cap at n and degrees-of-freedom adjustment
(z/t_{G-1})^2, which keeps the interval's coverage with few clusters (docs/methods.md, "Beside the peers").

The paired difference of two proportions on the same items (two systems' accuracies) gets Newcombe's (1998,
Statistics in Medicine 17:2635-2650) method 10: the square-and-add (MOVER) combination of the two Wilson
intervals with the phi correlation correction (:func:`newcombe_paired`); its tests compare it with Newcombe's
Table II example (a, b, c, d = 20, 12, 2, 16: 0.0562 to 0.3292), Fagerland, Lydersen and Laake (2014)'s Bentur
data (1, 1, 7, 12: -0.507 to -0.026) and Tang et al. (2010)'s (8, 3, 1, 2: -0.1574 to 0.4136), values that
``ratesci::moverpairci(x, contrast = "RD", type = "wilson", corc = TRUE)`` reproduces.

The declarations (:data:`INTERVALS`) are the one place a proportion interval is named: the spec's allowed
values, docs and the methods paragraph read them. This module imports numpy and scipy inside its functions
only: the spec imports the declarations.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProportionInterval:
    """One interval for a proportion: its spec name, display name, reference key (the methods paragraph's
    bibliography), its sentence there, whether it can be of zero width (then a warning says so), and the function
    ``(counts, n, level) -> (low, high)`` over arrays. ``methods_phrase`` names the intervals in the methods
    paragraph, whose citation of ``reference`` follows it."""

    name: str
    display: str
    reference: str
    citation: str  # in-text: "Wilson 1927"
    methods_phrase: str
    zero_width_possible: bool
    compute: Callable[[Any, Any, float], tuple[Any, Any]]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProportionCI:
    """A proportion interval for several systems: arrays of estimates and bounds, the method and its level."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    method: str


def _z(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2))


def _arrays(counts: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    x = np.asarray(counts, dtype=np.float64)
    m = np.broadcast_to(np.asarray(n, dtype=np.float64), x.shape)
    if np.any(m <= 0) or np.any(x < 0) or np.any(x > m):
        raise ValueError("proportion intervals need 0 <= count <= n and n > 0")
    return x, m


def wilson(counts: Any, n: Any, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's (1927) score interval: the p with |p_hat - p| <= z sqrt(p(1 - p)/n), in closed form. ``n`` may
    be fractional (an effective sample size: :func:`korn_graubard_n`)."""
    import numpy as np

    x, m = _arrays(counts, n)
    z = _z(level)
    p = x / m
    denom = 1 + z * z / m
    center = (p + z * z / (2 * m)) / denom
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / denom
    low, high = np.clip(center - half, 0, 1), np.clip(center + half, 0, 1)
    # at 0 and n the bound is 0 (1) mathematically: set it exactly, not to rounding error
    return np.where(x == 0, 0.0, low), np.where(x == m, 1.0, high)


def clopper_pearson(counts: Any, n: Any, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper and Pearson's (1934) exact interval: the alpha/2 quantile of Beta(x, n - x + 1) and the
    1 - alpha/2 one of Beta(x + 1, n - x); 0 at x = 0 and 1 at x = n."""
    import numpy as np
    from scipy.special import betaincinv

    x, m = _arrays(counts, n)
    a = (1 - level) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = betaincinv(np.where(x > 0, x, 1.0), m - x + 1, a)
        high = betaincinv(x + 1, np.where(x < m, m - x, 1.0), 1 - a)
    return np.where(x > 0, low, 0.0), np.where(x < m, high, 1.0)


def jeffreys(counts: Any, n: Any, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The equal-tailed Jeffreys interval, Beta(x + 1/2, n - x + 1/2) quantiles, with Brown, Cai and DasGupta's
    (2001) modification at the boundaries: the lower limit 0 at x = 0, the upper 1 at x = n."""
    import numpy as np
    from scipy.special import betaincinv

    x, m = _arrays(counts, n)
    a = (1 - level) / 2
    low = betaincinv(x + 0.5, m - x + 0.5, a)
    high = betaincinv(x + 0.5, m - x + 0.5, 1 - a)
    return np.where(x > 0, low, 0.0), np.where(x < m, high, 1.0)


def wald(counts: Any, n: Any, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The Wald interval p +- z sqrt(p(1 - p)/n), clipped to [0, 1]: of zero width at 0% and 100%."""
    import numpy as np

    x, m = _arrays(counts, n)
    p = x / m
    half = _z(level) * np.sqrt(p * (1 - p) / m)
    return np.clip(p - half, 0, 1), np.clip(p + half, 0, 1)


INTERVALS: tuple[ProportionInterval, ...] = (
    ProportionInterval(
        name="wilson", citation="Wilson 1927", display="Wilson score interval", reference="wilson1927",
        methods_phrase="Wilson score intervals",
        zero_width_possible=False, compute=wilson),
    ProportionInterval(
        name="clopper_pearson", citation="Clopper and Pearson 1934", display="Clopper-Pearson exact interval", reference="clopper1934",
        methods_phrase="Clopper-Pearson exact intervals",
        zero_width_possible=False, compute=clopper_pearson),
    ProportionInterval(
        name="jeffreys", citation="Brown, Cai and DasGupta 2001", display="Jeffreys interval", reference="brown2001",
        methods_phrase="equal-tailed Jeffreys intervals with the boundary modification",
        zero_width_possible=False, compute=jeffreys),
    ProportionInterval(
        name="wald", citation="Brown, Cai and DasGupta 2001", display="Wald interval", reference="brown2001",
        methods_phrase="Wald intervals p \u00b1 z\u221a(p(1 \u2212 p)/n), which undercover", zero_width_possible=True, compute=wald),
)
"""The proportion intervals ``tests.proportion_ci`` names (the first is the default)."""

NAMES: tuple[str, ...] = tuple(d.name for d in INTERVALS)
DEFAULT = NAMES[0]

APPLIES: tuple[str, ...] = (
    "binary_items: each system's interval of a metric whose per-item scores are all 0 or 1 (detected, or "
    "metrics.M.binary: true)",
    "clustered_items: on Korn and Graubard's effective n, min((n - 1)/deff, n) (z/t_{G-1})^2 (korn_graubard_n)",
    "not: a macro average over strata (metrics.M.average: macro: the stratified t interval), answers averaged "
    "per question (data.columns.sample), scores averaged over runs, corpus-level metrics (the t or bootstrap "
    "interval)",
)
"""Where every interval of :data:`INTERVALS` applies (``sigreport methods``), as the analysis decides it
(``sigreport.analyses.scores.is_proportion``, ``clustered_proportion_rows``)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairedProportionInterval:
    """The declaration of a binary metric's pairwise interval: its ``ci_method`` name, display name, reference
    key, where it applies and the function (:func:`newcombe_paired`)."""

    name: str
    display: str
    reference: str
    applies: tuple[str, ...]
    compute: Callable[..., Any]


def interval(name: str) -> ProportionInterval:
    """The declaration of ``name``; an unknown name raises."""
    for d in INTERVALS:
        if d.name == name:
            return d
    raise KeyError(f"unknown proportion interval {name!r}; known: {', '.join(NAMES)}")


def proportion_ci(counts: Any, n: Any, level: float, method: str = DEFAULT) -> ProportionCI:
    """Every system's proportion (``counts / n``) with its ``method`` interval at ``level``."""
    import numpy as np

    x, m = _arrays(counts, n)
    low, high = interval(method).compute(x, m, level)
    return ProportionCI(estimate=x / m, low=np.asarray(low, dtype=np.float64),
                        high=np.asarray(high, dtype=np.float64), level=level, method=method)


def korn_graubard_n(n: Any, design_effect: Any, clusters: Any, level: float) -> np.ndarray:
    """The degrees-of-freedom-adjusted effective sample size of Korn and Graubard (1998, Survey Methodology 24:
    193-201) for the interval of a proportion from ``n`` clustered 0/1 items in ``clusters`` clusters:
    ``n* = min(p(1 - p)/v, n) * (z / t_{G-1})^2`` with ``v`` the CR1 variance of the proportion, z and t the
    two-sided ``level`` quantiles. For 0/1 scores ``p(1 - p)/v = (n - 1)/deff`` (the design effect
    ``deff = v/(s^2/n)`` uses ``s^2 = n p(1 - p)/(n - 1)``); where the design effect is undefined (NaN: a
    proportion of 0 or 1, or clusters that cancel exactly) the items count as they are, ``n``. Any interval of
    :data:`INTERVALS` on ``n*`` with the count ``p n*`` is Korn and Graubard's; Wilson's on ``n*`` equals Wilson's
    with the critical value t_{G-1} on ``min(p(1 - p)/v, n)``, i.e. Inspect AI's ``ci_wilson(cluster=...)``."""
    import numpy as np

    m = np.asarray(n, dtype=np.float64)
    deff = np.asarray(design_effect, dtype=np.float64)
    ok = np.isfinite(deff) & (deff > 0)
    size = np.where(ok, np.minimum((m - 1) / np.where(ok, deff, 1.0), m), m)
    G = np.asarray(clusters, dtype=np.float64)
    from sigreport.stats.lazy import scipy_special as special

    q = 0.5 + level / 2
    return size * (_z(level) / special.stdtrit(G - 1, q)) ** 2


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairedProportionDifference:
    """Newcombe's method 10 interval of p_a - p_b on paired 0/1 items, one entry per pair (arrays): the 2x2
    counts (``both``: a and b right; ``only_a``; ``only_b``; ``neither``), the difference, its bounds and phi (the
    corrected correlation the interval used)."""

    both: np.ndarray
    only_a: np.ndarray
    only_b: np.ndarray
    neither: np.ndarray
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    phi: np.ndarray
    level: float


def newcombe_paired(a: np.ndarray, b: np.ndarray, level: float) -> PairedProportionDifference:
    """Newcombe's (1998) method 10 for paired proportions, vectorised over pairs: ``a`` and ``b`` are items x
    pairs of 0/1 scores (a's and b's), the interval of mean(a) - mean(b) at ``level``.

    With Wilson limits (l1, u1) of p1 = mean(a) and (l2, u2) of p2 = mean(b), and phi the correlation of the 2x2
    table corrected as Newcombe does (AD - BC reduced by n/2 when it exceeds n/2, to 0 when it lies in [0, n/2];
    0 when a margin is empty): the lower limit is D - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2),
    the upper D + sqrt((u1 - p1)^2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)^2)."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim == 1:
        a, b = a[:, None], b[:, None]
    n = float(a.shape[0])
    both = np.sum(a * b, axis=0)
    only_a = np.sum(a * (1 - b), axis=0)
    only_b = np.sum((1 - a) * b, axis=0)
    neither = n - both - only_a - only_b
    return newcombe_paired_counts(both, only_a, only_b, neither, level)


def newcombe_paired_counts(both: Any, only_a: Any, only_b: Any, neither: Any, level: float
                           ) -> PairedProportionDifference:
    """:func:`newcombe_paired` from the 2x2 counts of each pair (arrays): Newcombe's a, b, c, d."""
    import numpy as np

    A, B, C, D = (np.asarray(v, dtype=np.float64) for v in (both, only_a, only_b, neither))
    n = A + B + C + D
    p1, p2 = (A + B) / n, (A + C) / n
    l1, u1 = wilson(A + B, n, level)
    l2, u2 = wilson(A + C, n, level)
    margins = (A + B) * (C + D) * (A + C) * (B + D)
    cross = A * D - B * C
    corrected = np.where(cross > n / 2, cross - n / 2, np.where(cross >= 0, 0.0, cross))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(margins > 0, corrected / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
    diff = p1 - p2
    lower = diff - np.sqrt(np.maximum((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    upper = diff + np.sqrt(np.maximum((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return PairedProportionDifference(both=A, only_a=B, only_b=C, neither=D, estimate=diff,
                                      low=np.clip(lower, -1, 1), high=np.clip(upper, -1, 1), phi=phi, level=level)


NEWCOMBE_PAIRED = "newcombe_paired"
"""The ``ci_method`` of a binary metric's pairwise intervals (Newcombe 1998, method 10)."""

NEWCOMBE = PairedProportionInterval(
    name=NEWCOMBE_PAIRED, display="Newcombe's score interval for paired proportions (method 10)",
    reference="newcombe1998", compute=newcombe_paired, applies=(
        "binary_items: each pair's interval of the difference of proportions, beside the paired t test, the "
        "bootstrap, the bootstrap-t or the permutation test (their p-values stay theirs), two-sided alternatives",
        "not: clustered_items (the clustered paired t's interval), a test estimating something else (Wilcoxon's "
        "Hodges-Lehmann estimate, the sign test's median), a one-sided alternative (the test's own interval)"))
"""The pairwise proportion interval's declaration (``sigreport methods``)."""


def is_binary(scores: np.ndarray) -> bool:
    """Every value 0 or 1 (and at least one value): a proportion."""
    import numpy as np

    s = np.asarray(scores)
    return bool(s.size) and bool(np.all((s == 0) | (s == 1)))
