"""A family's paired t tests and effect sizes computed together equal the pair-by-pair functions, bit for bit.

The reference is :func:`sigreport.stats.pairwise.paired_t` and :func:`paired_effect_sizes` on one pair at a time
(themselves checked against R's ``t.test(paired = TRUE)`` and ``effectsize`` in tests/stats/test_pairwise*.py);
equality is of ``repr``, so -0.0 and 0.0 differ, NaN equals NaN and a float never stands in for a numpy scalar.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sigreport.stats.differences import describe_differences_many
from sigreport.stats.pairwise import (paired_effect_sizes, paired_effect_sizes_family, paired_t,
                                      paired_t_family)


def family(n: int, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.round(0.5 + 0.01 * np.arange(k)[None, :] + rng.standard_normal((n, 1)) * 0.1
                 + rng.standard_normal((n, k)) * 0.05, 4)
    if k >= 4:
        x[:, 1] = x[:, 0]  # identical systems: p = 1, no effect size
        x[:, 3] = x[:, 2] + 0.25  # constant differences
    return x


CASES = list(itertools.product([1, 2, 3, 5, 12, 29, 30, 200], ["two-sided", "greater", "less"], [0.05, 0.2]))


@pytest.mark.parametrize("n,alternative,alpha", CASES)
def test_paired_t_family_equals_paired_t(n, alternative, alpha):
    x = family(n, 7, n)
    pairs = list(itertools.combinations(range(7), 2)) + [(5, 0), (2, 6)]
    diffs = describe_differences_many(x, pairs)
    for level in (0.95, 0.9):
        for given in (diffs, None):
            got = paired_t_family(x, pairs, alternative, alpha, level, differences=given)
            want = [paired_t(x[:, i], x[:, j], alternative, alpha, level, differences=dd)
                    for (i, j), dd in zip(pairs, given or [None] * len(pairs))]
            assert [repr(g) for g in got] == [repr(w) for w in want]


def test_paired_t_family_rejects_what_paired_t_rejects():
    x = family(10, 3, 1)
    with pytest.raises(ValueError):
        paired_t_family(x, [(0, 1)], "sideways")
    with pytest.raises(ValueError):
        paired_t_family(x, [(0, 1)], differences=[])
    assert paired_t_family(x, []) == []


@pytest.mark.parametrize("n", [3, 4, 9, 30, 500])
def test_paired_effect_sizes_family_equals_one_pair_at_a_time(n):
    x = family(n, 8, 100 + n)
    x[:, 5] = 0.3  # a constant system: d_av of (5, 6) uses one SD
    x[:, 6] = 0.3  # two constant systems: differences constant
    pairs = list(itertools.combinations(range(8), 2))
    for level in (0.95, 0.8):
        got = paired_effect_sizes_family(x, pairs, level, describe_differences_many(x, pairs))
        want = [paired_effect_sizes(x[:, i], x[:, j], level) for i, j in pairs]
        assert [repr(g) for g in got] == [repr(w) for w in want]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, 30, 1000, 10_001])
def test_describe_columns_equals_describe_column_by_column(n):
    from sigreport.stats.pairwise import describe, describe_columns

    rng = np.random.default_rng(n)
    for x in (rng.standard_normal((n, 9)) * 1e3 + 1e6, np.round(rng.random((n, 4)), 2), np.zeros((n, 3)),
              rng.standard_normal((n, 0))):
        if n and x.shape[1]:
            x[:, 0] = -0.0  # a column of negative zeros
        for level in (0.95, 0.5):
            got = describe_columns(x, level)
            want = [describe(x[:, j], level) for j in range(x.shape[1])]
            assert [repr(g) for g in got] == [repr(w) for w in want]
    x = rng.standard_normal((max(n, 3), 3))
    x[1, 1] = np.nan
    assert [repr(g) for g in describe_columns(x)] == [repr(describe(x[:, j])) for j in range(3)]
