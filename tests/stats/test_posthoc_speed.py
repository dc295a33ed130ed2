"""Nemenyi's p-values skip the integrals the union bounds make irrelevant and integrate repeated q once: the
same floats as integrating every pair (the reference below is the pair-by-pair computation it replaces)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from sigreport.stats.posthoc import nemenyi


def _reference_p_adjusted(r: np.ndarray, n: int) -> np.ndarray:
    k = r.size
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    ia, ib = np.triu_indices(k, 1)
    z = (r[ia] - r[ib]) / se
    p = 2 * stats.norm.sf(np.abs(z))
    p_tukey = stats.studentized_range.sf(np.abs(z) * math.sqrt(2), k, np.inf)
    return np.clip(p_tukey, p, np.minimum(1.0, len(ia) * p))


def _ranks(k: int, n: int, spread: float, seed: int, ties: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, k)) + spread * np.arange(k)[None, :]
    if ties:
        x = np.round(x)
    return stats.rankdata(x, axis=1).mean(axis=0)


@pytest.mark.parametrize("k, n, spread, ties", [(3, 10, 0.5, False), (8, 50, 0.1, True), (20, 1000, 0.02, False),
                                                (30, 20_000, 0.3, False), (12, 5000, 1.0, True)])
def test_nemenyi_p_values_equal_pair_by_pair_integrals(k: int, n: int, spread: float, ties: bool) -> None:
    r = _ranks(k, n, spread, k * n, ties)
    got = np.array([np.nan if p.pvalue_adjusted is None else p.pvalue_adjusted for p in nemenyi(r, n).pairs])
    want = _reference_p_adjusted(r, n)
    assert got.tobytes() == want.tobytes()
    if n >= 5000 and spread >= 0.3:
        assert (want == 0).any()  # the case where integrals are skipped is exercised


@pytest.mark.parametrize("k", [2, 3, 7, 20, 100])
def test_studentized_range_sf_equals_scipy_stats_exactly(k: int) -> None:
    # expected: scipy.stats.studentized_range.sf(q, k, np.inf) of the installed scipy, value by value
    from sigreport.stats.posthoc import _studentized_range_sf_inf

    rng = np.random.default_rng(k)
    q = np.concatenate([rng.uniform(0, 8, 300), rng.exponential(1.0, 50), [1e-300, 1e-9, 0.5, 3.3, 7.0, 12.0, 40.0,
                                                                           0.0, -0.0, -1.0, np.inf, np.nan]])
    got = _studentized_range_sf_inf(q, k)
    want = np.asarray(stats.studentized_range.sf(q, k, np.inf), dtype=np.float64)
    assert got.tobytes() == want.tobytes()
