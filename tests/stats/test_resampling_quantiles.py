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


# --- _percentile_pairs: counts and percentile quantiles a few pairs at a time (reference: the whole-matrix
# functions it replaces, _count_p and _quantiles on D = (theta_t[pa] - theta_t[pb]).T) ----------------------

@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("k,rows", [(2, 50), (7, 999), (20, 10_000), (25, 333)])
def test_percentile_pairs_equal_whole_matrix_counts_and_quantiles(alternative, k, rows):
    from sigreport.stats.resampling import _count_p, _percentile_pairs

    rng = np.random.default_rng(k * rows)
    theta_t = np.round(rng.standard_normal((k, rows)) * 0.01, 3)  # rounded: ties and zero differences
    theta_t[1] = theta_t[0]  # identical systems: every difference 0
    pa, pb = (np.asarray(v, dtype=np.int64) for v in np.triu_indices(k, 1))
    pa, pb = np.concatenate([pa, pb[:3]]), np.concatenate([pb, pa[:3]])  # a few reversed pairs
    delta = np.round(rng.standard_normal(pa.size) * 0.01, 3)
    tol = 1e-10 * np.abs(delta)
    for level in (0.95, 0.9):
        lev = (1 - level) / 2 if alternative == "two-sided" else 1 - level
        qs = (np.full(pa.size, lev), np.full(pa.size, 1 - lev))
        counts, valid, quantiles = _percentile_pairs(theta_t, pa, pb, delta, tol, alternative, qs)
        d = (theta_t[pa] - theta_t[pb]).T
        want_counts, want_valid = _count_p(d.copy(), delta, tol, alternative, shifted=True)
        assert np.array_equal(counts, want_counts) and np.array_equal(valid, want_valid)
        assert_same(quantiles, _quantiles(d, want_valid, qs))


def test_percentile_pairs_decline_undefined_replicates():
    from sigreport.stats.resampling import _percentile_pairs

    theta_t = np.random.default_rng(3).standard_normal((4, 100))
    pa, pb = np.array([0, 1]), np.array([2, 3])
    qs = (np.full(2, 0.025), np.full(2, 0.975))
    theta_t[2, 5] = np.nan
    assert _percentile_pairs(theta_t, pa, pb, np.zeros(2), np.zeros(2), "two-sided", qs) is None
    theta_t[2, 5] = 1e308
    theta_t[0, 5] = -1e308  # the difference overflows to -inf
    with np.errstate(over="ignore"):
        assert _percentile_pairs(theta_t, pa, pb, np.zeros(2), np.zeros(2), "two-sided", qs) is None


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_bootstrap_results_are_the_same_with_and_without_the_blocked_path(alternative, monkeypatch):
    from sigreport.stats import resampling as R

    rng = np.random.default_rng(4)
    n, k = 300, 9
    x = np.round(0.5 + rng.standard_normal((n, 1)) * 0.1 + rng.standard_normal((n, k)) * 0.1, 3)[:, :, None]
    x[:, 2] = x[:, 1]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)] + [(3, 0)]
    counts = np.stack([x[:, :, 0] * 0 + (x[:, :, 0] > 0.5), np.ones((n, k))], axis=2)  # a ratio metric, exact
    for stats, metric in ((x, R.mean_metric()), (counts, R.ratio_metric())):
        run = lambda: R.paired_resampling(stats, metric, pairs, "bootstrap", 2000, 11, alternative)  # noqa: E731
        blocked = run()
        with monkeypatch.context() as m:
            m.setattr(R, "_percentile_pairs", lambda *a: None)
            whole = run()
        assert repr(blocked) == repr(whole)
