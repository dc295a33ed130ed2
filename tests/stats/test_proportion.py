"""Proportion intervals (sigreport.stats.proportion) against statsmodels, R and published values.

* Wilson, Clopper-Pearson, Jeffreys and Wald against ``statsmodels.stats.proportion.proportion_confint(x, n,
  alpha, method=...)`` ("wilson", "beta", "jeffreys", "normal") over n = 1 .. 10^6 and x = 0, 1, middle, n - 1, n,
  at three levels (Jeffreys between the boundaries: at x = 0 and x = n sigreport applies Brown, Cai and DasGupta's
  2001 modification, the lower limit 0 and the upper 1, which statsmodels does not).
* Fixed values from R's base stats (prop.test without continuity correction is Wilson's interval, binom.test
  Clopper and Pearson's, qbeta Jeffreys'), the call beside them: Debian packages none of binom, PropCIs, DescTools.
* Newcombe's (1998, Statistics in Medicine 17:2635-2650) method 10 for paired proportions against his Table II
  example and the published examples ratesci's tests pin (``ratesci::moverpairci(x, contrast = "RD",
  type = "wilson", corc = TRUE)``, which implements method 10).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from sigreport.stats import proportion

SM_METHOD = {"wilson": "wilson", "clopper_pearson": "beta", "jeffreys": "jeffreys", "wald": "normal"}
NS = [1, 2, 3, 5, 10, 20, 50, 100, 1000, 10_000, 1_000_000]


def sweep(n: int) -> np.ndarray:
    return np.unique(np.array([0, 1, n // 2, n - 1, n]).clip(0, n))


@pytest.mark.parametrize("method", proportion.NAMES)
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_against_statsmodels_over_n_and_counts(method: str, level: float) -> None:
    for n in NS:
        x = sweep(n)
        ci = proportion.proportion_ci(x, n, level, method)
        low, high = proportion_confint(x, n, alpha=1 - level, method=SM_METHOD[method])
        inner = (x > 0) & (x < n) if method == "jeffreys" else np.ones(x.shape, bool)
        np.testing.assert_allclose(ci.low[inner], np.asarray(low)[inner], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ci.high[inner], np.asarray(high)[inner], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ci.estimate, x / n)
        assert np.all(ci.low >= 0) and np.all(ci.high <= 1) and np.all(ci.low <= ci.estimate + 1e-15)
        assert np.all(ci.high >= ci.estimate - 1e-15)


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_jeffreys_boundary_modification(level: float) -> None:
    """Brown, Cai and DasGupta (2001, sec. 4.1.2): at x = 0 the lower limit is 0, at x = n the upper is 1; the
    other limit is the plain beta quantile (statsmodels' value)."""
    for n in NS:
        ci = proportion.proportion_ci(np.array([0, n]), n, level, "jeffreys")
        low, high = proportion_confint(np.array([0, n]), n, alpha=1 - level, method="jeffreys")
        assert ci.low[0] == 0.0 and ci.high[1] == 1.0
        np.testing.assert_allclose([ci.high[0], ci.low[1]], [high[0], low[1]], rtol=1e-9)


@pytest.mark.parametrize("method", [m for m in proportion.NAMES if m != "wald"])
def test_never_zero_width_and_inside_unit_interval(method: str) -> None:
    """At 0% and 100% and everywhere else, for n = 1 .. 10^6: positive width, bounds in [0, 1]."""
    for n in NS:
        x = np.arange(n + 1) if n <= 100 else sweep(n)
        ci = proportion.proportion_ci(x, n, 0.95, method)
        assert np.all(ci.high - ci.low > 0), (method, n)
        assert np.all(ci.low >= 0) and np.all(ci.high <= 1)


def test_wald_zero_width_at_the_boundaries_is_declared() -> None:
    ci = proportion.proportion_ci(np.array([0, 50]), 50, 0.95, "wald")
    assert np.all(ci.high - ci.low == 0)
    assert proportion.interval("wald").zero_width_possible
    assert not any(d.zero_width_possible for d in proportion.INTERVALS if d.name != "wald")


# R 4.2.2, base stats (Debian r-base-core; binom, PropCIs and DescTools are not packaged by Debian), x = 0, 1, 7, 20
# of n = 20, printed with options(digits = 10):
#   wilson:          prop.test(x, 20, correct = FALSE)$conf.int
#   clopper_pearson: binom.test(x, 20)$conf.int
#   jeffreys:        qbeta(c(0.025, 0.975), x + 0.5, 20 - x + 0.5) (then Brown et al.'s 0 at x = 0, 1 at x = n)
R_BASE = {
    "wilson": ([0.0, 0.008881448801, 0.1811918241, 0.8388748419], [0.1611251581, 0.236131193447, 0.5671457233, 1.0]),
    "clopper_pearson": ([0.0, 0.001265089498, 0.1539092048, 0.8315665290],
                        [0.1684334710, 0.248732762772, 0.5921885345, 1.0]),
    "jeffreys": ([0.0, 0.005449032581, 0.1722762136, 0.8833610171], [0.1166389829, 0.210818636249, 0.5677660938, 1.0]),
}


@pytest.mark.parametrize("method", sorted(R_BASE))
def test_against_r(method: str) -> None:
    low, high = R_BASE[method]
    ci = proportion.proportion_ci(np.array([0, 1, 7, 20]), 20, 0.95, method)
    np.testing.assert_allclose(ci.low, low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ci.high, high, rtol=1e-9, atol=1e-12)


def wilson_effective(p: np.ndarray, n_eff: float, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson on an effective sample size as the clustered analysis asks for it: count p * n_eff of n_eff."""
    m = np.full(p.shape, float(n_eff))
    ci = proportion.proportion_ci(p * m, m, level, "wilson")
    return ci.low, ci.high


def test_wilson_effective_n() -> None:
    """With deff = 1 the design-effect version is Wilson's; a larger design effect widens it (n_eff = n/deff)."""
    p = np.array([0.0, 0.3, 1.0])
    lo1, hi1 = wilson_effective(p, 100, 0.95)
    ref = proportion.proportion_ci(np.array([0, 30, 100]), 100, 0.95, "wilson")
    np.testing.assert_allclose(lo1, ref.low, atol=1e-15)
    np.testing.assert_allclose(hi1, ref.high, atol=1e-15)
    lo3, hi3 = wilson_effective(p, 100 / 3, 0.95)
    assert np.all(hi3 - lo3 > hi1 - lo1)
    # statsmodels on the (fractional) effective counts: wilson with x = p n_eff, n = n_eff
    low, high = proportion_confint(p * 100 / 3, 100 / 3, alpha=0.05, method="wilson")
    np.testing.assert_allclose(lo3, low, atol=1e-12)
    np.testing.assert_allclose(hi3, high, atol=1e-12)


# (a = both right, b = only the first, c = only the second, d = neither) -> method 10's 95% limits
NEWCOMBE = [
    ((20, 12, 2, 16), (0.0562, 0.3292), 4),  # Newcombe (1998) Table II example; moverpairci(c(20, 12, 2, 16), ...)
    ((1, 1, 7, 12), (-0.507, -0.026), 3),  # Fagerland, Lydersen and Laake (2014), Bentur et al.'s data
    ((8, 3, 1, 2), (-0.1574, 0.4136), 4),  # Tang, M.-L. et al. (2010)'s example (MOVER Wilson = method 10)
    ((7, 25, 2, 68), (0.133, 0.318), 3),  # Chang et al. (2024)'s example, their interval (method 10, as ratesci notes)
]


@pytest.mark.parametrize("table,limits,digits", NEWCOMBE)
def test_newcombe_paired_published(table: tuple[int, int, int, int], limits: tuple[float, float],
                                   digits: int) -> None:
    r = proportion.newcombe_paired_counts(*table, 0.95)
    a, b, c, d = table
    assert float(r.estimate) == pytest.approx((b - c) / (a + b + c + d))
    assert float(r.low) == pytest.approx(limits[0], abs=0.6 * 10 ** -digits)
    assert float(r.high) == pytest.approx(limits[1], abs=0.6 * 10 ** -digits)


def test_newcombe_from_scores_equals_counts_and_is_vectorised() -> None:
    """Items x pairs of 0/1 scores give the 2x2 counts' interval, every pair at once."""
    a, b, c, d = 20, 12, 2, 16
    first = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    second = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    r = proportion.newcombe_paired(np.column_stack([first, second]), np.column_stack([second, first]), 0.95)
    ref = proportion.newcombe_paired_counts(a, b, c, d, 0.95)
    np.testing.assert_allclose(r.low[0], ref.low)
    np.testing.assert_allclose(r.high[0], ref.high)
    # swapping the systems flips the interval
    np.testing.assert_allclose(r.low[1], -ref.high)
    np.testing.assert_allclose(r.high[1], -ref.low)


@pytest.mark.parametrize("n", [1, 2, 5, 20, 100, 10_000])
def test_newcombe_degenerate_tables(n: int) -> None:
    """Both at 0%, both at 100%, no discordant pair, all discordant: inside [-1, 1], containing the estimate,
    and of positive width (never "+- 0")."""
    tables = [(0, 0, 0, n), (n, 0, 0, 0), (n // 2, 0, 0, n - n // 2), (0, n, 0, 0), (0, 0, n, 0),
              (0, n - n // 2, n // 2, 0)]
    for t in tables:
        r = proportion.newcombe_paired_counts(*t, 0.95)
        assert -1 <= float(r.low) <= float(r.estimate) <= float(r.high) <= 1, t
        assert float(r.high) - float(r.low) > 0, t


def test_unknown_interval_raises() -> None:
    with pytest.raises(KeyError):
        proportion.interval("agresti_coull")
    with pytest.raises(ValueError):
        proportion.proportion_ci(np.array([3]), 2, 0.95)


def test_is_binary() -> None:
    assert proportion.is_binary(np.array([[0, 1], [1, 1.0]]))
    assert not proportion.is_binary(np.array([0, 0.5]))
    assert not proportion.is_binary(np.array([]))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 5000), frac=st.floats(0, 1), level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
       method=st.sampled_from(proportion.NAMES))
def test_properties(n: int, frac: float, level: float, method: str) -> None:
    """Inside [0, 1], containing the estimate, nested in the level, mirrored under x -> n - x."""
    x = np.array([round(frac * n)])
    ci = proportion.proportion_ci(x, n, level, method)
    assert 0 <= ci.low[0] <= ci.estimate[0] <= ci.high[0] <= 1
    wider = proportion.proportion_ci(x, n, min(level + 0.009, 0.999), method)
    assert wider.low[0] <= ci.low[0] + 1e-12 and wider.high[0] >= ci.high[0] - 1e-12
    mirror = proportion.proportion_ci(n - x, n, level, method)
    assert mirror.low[0] == pytest.approx(1 - ci.high[0], abs=1e-9)
    assert mirror.high[0] == pytest.approx(1 - ci.low[0], abs=1e-9)


def test_every_declared_interval_is_documented() -> None:
    """The spec's allowed values are the declarations' names (one list); docs/spec.md and docs/methods.md name
    each of them."""
    from typing import get_args

    from conftest import ROOT
    from sigreport.spec import ProportionMethod

    assert get_args(ProportionMethod) == proportion.NAMES and proportion.DEFAULT == "wilson"
    for doc in ("spec.md", "methods.md"):
        text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
        assert all(f"`{name}`" in text for name in proportion.NAMES), doc
