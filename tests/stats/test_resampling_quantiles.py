"""The engine's quantiles by selection (``resampling._quantiles``) equal the sorted path they replace, bit for bit.

The reference is the engine's own former computation, ``_quantiles_sorted(np.sort(cols, axis=0), valid, q)``
(linear interpolation between order statistics, numpy's default quantile; itself checked against
``numpy.quantile`` and scipy.stats.bootstrap in tests/stats/test_resampling.py). Equality is exact: the same
bytes, so -0.0 and 0.0 differ and NaN equals NaN.
"""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats.resampling import _quantiles, _quantiles_sorted


def reference(cols: np.ndarray, valid: np.ndarray, qs: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    srt = np.sort(cols, axis=0)
    return [_quantiles_sorted(srt, valid, q) for q in qs]


def assert_same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes() or (np.array_equal(g, w, equal_nan=True)
                                               and np.array_equal(np.signbit(g), np.signbit(w))), (g, w)


def columns(rng: np.random.Generator, rows: int, cols: int, kind: str) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal((rows, cols))
    if kind == "ties":  # few distinct values, zeros of both signs among them
        return rng.choice(np.array([-0.0, 0.0, 0.25, -0.25, 1.0]), size=(rows, cols))
    if kind == "zeros":
        return rng.choice(np.array([-0.0, 0.0]), size=(rows, cols))
    if kind == "inf":
        x = rng.standard_normal((rows, cols))
        x[rng.random((rows, cols)) < 0.05] = np.inf
        x[rng.random((rows, cols)) < 0.05] = -np.inf
        return x
    x = rng.standard_normal((rows, cols))  # "nan": some replicates undefined
    x[rng.random((rows, cols)) < 0.1] = np.nan
    return x


@pytest.mark.parametrize("kind", ["normal", "ties", "zeros", "inf", "nan"])
@pytest.mark.parametrize("rows", [1, 2, 3, 32, 999, 10_000])
def test_percentile_quantiles_equal_the_sorted_path(kind, rows):
    rng = np.random.default_rng(rows * 7 + len(kind))
    for cols in (1, 5, 190):
        x = columns(rng, rows, cols, kind)
        full = np.full(cols, rows)
        counted = np.count_nonzero(np.isfinite(x) | np.isinf(x), axis=0)
        for level in (0.95, 0.9, 0.5, 0.999, 1e-9):
            lev = (1 - level) / 2
            for qs in ((np.full(cols, lev), np.full(cols, 1 - lev)), (np.full(cols, 1 - level),),
                       (np.full(cols, 0.0), np.full(cols, 1.0))):
                for valid in (full, counted):
                    with np.errstate(invalid="ignore"):  # inf - inf between infinite order statistics, as before
                        assert_same(_quantiles(x, valid, qs), reference(x, valid, qs))


def test_column_specific_quantiles_and_counts_take_the_sorted_path_with_the_same_result():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2000, 40))
    q = rng.random(40)  # BCa: a different quantile per column
    valid = np.full(40, 2000)
    assert_same(_quantiles(x, valid, (q, 1 - q)), reference(x, valid, (q, 1 - q)))
    q_nan = q.copy()
    q_nan[3] = np.nan
    assert_same(_quantiles(x, valid, (q_nan,)), reference(x, valid, (q_nan,)))
    fewer = valid.copy()
    fewer[7] = 0
    assert_same(_quantiles(x, fewer, (q,)), reference(x, fewer, (q,)))


def test_no_columns():
    x = np.zeros((100, 0))
    assert_same(_quantiles(x, np.zeros(0, dtype=np.int64), (np.zeros(0),)),
                reference(x, np.zeros(0, dtype=np.int64), (np.zeros(0),)))


def test_the_input_is_left_as_it_was():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((500, 9))
    before = x.copy()
    _quantiles(x, np.full(9, 500), (np.full(9, 0.025), np.full(9, 0.975)))
    assert np.array_equal(x, before)


@pytest.mark.parametrize("kind", ["normal", "ties", "zeros"])
def test_overwriting_columns_held_pair_by_pair_gives_the_same_quantiles(kind):
    rng = np.random.default_rng(7)
    x = columns(rng, 10_000, 190, kind)
    held = np.ascontiguousarray(x.T).T  # (B, P) held column by column, as the engine holds replicate differences
    qs = (np.full(190, 0.025), np.full(190, 0.975))
    want = reference(x, np.full(190, 10_000), qs)
    assert_same(_quantiles(held, np.full(190, 10_000), qs, overwrite=True), want)
    if kind == "normal":
        assert not np.array_equal(held, x)  # it was partitioned in place (x, C-ordered, would have been copied)
    assert np.array_equal(np.sort(held, axis=0), np.sort(x, axis=0))
