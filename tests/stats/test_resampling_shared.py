"""A pre-drawn resample (``draw_resample``) is exactly the replicates ``paired_resampling`` draws itself.

No external reference is needed: the claim is an identity (same rows, so the same result to the bit),
checked against the engine's own stream (``_weights``) and its own output without a resample.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest

from sigreport.stats import resampling as rs
from sigreport.stats.result import to_jsonable


def _engine_rows(kind: str, n_rows: int, n: int, seed: int) -> np.ndarray:
    seeds = np.random.SeedSequence(seed).spawn(-(-n_rows // rs._STREAM_BLOCK))
    return rs._weights(kind, 0, n_rows, n, np.float64, seeds, threading.local()).copy()


@pytest.mark.parametrize("kind, n", [("bootstrap", 40), ("bootstrap", 1500), ("permutation", 40),
                                     ("permutation", 1500)])
def test_drawn_rows_are_the_engine_stream(kind: str, n: int) -> None:
    r = rs.draw_resample(kind, 100, n, seed=9)  # 100 rows: three full stream blocks and a partial one
    assert r.weights.dtype == np.uint8 and r.weights.shape == (100, n) and (r.n_rows, r.n) == (100, n)
    assert np.array_equal(r.weights, _engine_rows(kind, 100, n, 9))
    if kind == "bootstrap":
        assert np.all(r.weights.sum(axis=1, dtype=np.int64) == n)  # Multinomial(n, 1/n) rows
    else:
        assert set(np.unique(r.weights)) <= {0, 1} and 0.4 < r.weights.mean() < 0.6
    assert not np.array_equal(r.weights, rs.draw_resample(kind, 100, n, seed=10).weights)


def _data(n: int, integral: bool) -> np.ndarray:
    rng = np.random.default_rng(n)
    if integral:
        return rng.integers(0, 6, size=(n, 4, 3))
    item = rng.standard_normal((n, 1))
    return (0.5 + 0.1 * item + 0.1 * rng.standard_normal((n, 4)) + np.linspace(0, 0.01, 4)[None, :])[:, :, None]


CASES = [(m, "mean", False) for m in ("bootstrap", "bootstrap_t", "permutation")] + \
    [(m, "f_beta", True) for m in ("bootstrap", "permutation")] + [("bootstrap", "ratio", True)]


@pytest.mark.parametrize("method, metric, integral", CASES)
@pytest.mark.parametrize("n", [25, 1100])
def test_a_given_resample_gives_the_result_of_drawing_it(method: str, metric: str, integral: bool, n: int) -> None:
    x = _data(n, integral)
    if metric == "ratio":
        x = x[:, :, :2] + 1
    m = {"mean": rs.mean_metric(), "f_beta": rs.f_beta_metric(), "ratio": rs.ratio_metric()}[metric]
    pairs = list(itertools.combinations(range(4), 2))
    kind = rs.resample_kind(method, n, 300)
    assert kind == ("permutation" if method == "permutation" else "bootstrap")
    drawn = rs.draw_resample(kind, 300, n, seed=21)
    for alternative, ci in (("two-sided", "percentile"), ("less", "bca")):
        if method == "bootstrap_t":
            ci = "studentized"
        own = rs.paired_resampling(x, m, pairs, method, 300, 21, alternative, ci_method=ci)
        given = rs.paired_resampling(x, m, pairs, method, 300, 21, alternative, ci_method=ci, resample=drawn)
        assert to_jsonable(given) == to_jsonable(own)
        assert any(p.pvalue is not None and 1 / 301 < p.pvalue < 1 for p in own.pairs)


def test_resample_kind() -> None:
    assert rs.resample_kind("bootstrap_t", 10, 999) == "bootstrap"
    assert rs.resample_kind("bootstrap", 10, 999) == "bootstrap"
    assert rs.resample_kind("permutation", 10, 999) == "permutation"
    assert rs.resample_kind("permutation", 9, 999) is None  # 2**9 <= 999: exact enumeration, nothing drawn
    assert rs.resample_kind("bootstrap", 1, 999) is None and rs.resample_kind("bootstrap_t", 2, 999) is None
    with pytest.raises(ValueError, match="unknown method"):
        rs.resample_kind("jackknife", 10, 999)


def test_a_resample_that_does_not_match_the_call_is_refused() -> None:
    x = _data(30, False)
    drawn = rs.draw_resample("bootstrap", 200, 30, seed=1)
    rs.paired_resampling(x, rs.mean_metric(), [(0, 1)], "bootstrap", 200, 1, resample=drawn)  # matches
    bad = [("permutation", 200, 1, drawn), ("bootstrap", 199, 1, drawn), ("bootstrap", 200, 2, drawn),
           ("bootstrap", 200, 1, rs.draw_resample("bootstrap", 200, 31, seed=1)),
           ("bootstrap", 200, 1, rs.draw_resample("permutation", 200, 30, seed=1))]
    for method, b, seed, r in bad:
        with pytest.raises(ValueError, match="does not match"):
            rs.paired_resampling(x, rs.mean_metric(), [(0, 1)], method, b, seed, resample=r)
    small = _data(8, False)
    with pytest.raises(ValueError, match="draws no replicates"):
        rs.paired_resampling(small, rs.mean_metric(), [(0, 1)], "permutation", 999, 1,
                             resample=rs.draw_resample("permutation", 999, 8, seed=1))
    with pytest.raises(ValueError, match="unknown resample kind"):
        rs.draw_resample("jackknife", 10, 10, 1)
    with pytest.raises(ValueError, match="at least one row"):
        rs.draw_resample("bootstrap", 0, 10, 1)
