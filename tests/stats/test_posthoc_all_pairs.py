"""All-pairs post-hoc after Friedman with Holm, Shaffer and Bergmann-Hommel.

Where each expected value comes from:
- GH2008: García & Herrera (2008, JMLR 9:2677-2694) Table 2 accuracies, as shipped in scmamp
  (github.com/b0rxa/scmamp, data/data_gh_2008.RData at commit 3cf4d8b9; dumped with R 4.2.2
  ``load(); write.csv(data.gh.2008)``).
- FRIEDMAN_POST: printed by scmamp's vignette "Statistical assessment of the differences"
  (inst/doc/Statistical_assessment_of_the_differences.html, commit 37074981):
  ``friedmanPost(data = data.gh.2008, control = NULL)`` (7 significant digits).
- ALIGNED_RAW / SHAFFER / BERGMANN: the same vignette: ``pv.matrix <-
  friedmanAlignedRanksPost(...)``, ``adjustShaffer(pv.matrix)``, ``adjustBergmannHommel(pv.matrix)``.
- Holm: R 4.2.2 ``p.adjust(friedmanPost values, "holm")``.
scmamp itself is not installed (not on Debian); no test runs R.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigreport.stats.correction import adjust
from sigreport.stats.omnibus import friedman
from sigreport.stats.posthoc import (
    BERGMANN_HOMMEL_MAX_K,
    _set_partitions,
    all_pairs,
    bergmann_hommel_adjust,
    shaffer_adjust,
    shaffer_true_counts,
)

# Columns C4.5, k-NN(k=1), NaiveBayes, Kernel, CN2; rows as in the RData (data set names as comments).
GH2008 = np.array([
    [0.219, 0.202, 0.249, 0.165, 0.261],  # Abalone*
    [0.803, 0.75, 0.813, 0.692, 0.798],  # Adult*
    [0.859, 0.814, 0.845, 0.542, 0.816],  # Australian
    [0.809, 0.774, 0.673, 0.275, 0.785],  # Autos
    [0.768, 0.79, 0.727, 0.872, 0.706],  # Balance
    [0.759, 0.654, 0.734, 0.703, 0.714],  # Breast
    [0.693, 0.611, 0.572, 0.689, 0.572],  # Bupa
    [0.544, 0.531, 0.558, 0.439, 0.541],  # Cleveland
    [0.945, 0.954, 0.978, 0.541, 0.858],  # Dermatology
    [0.725, 0.705, 0.739, 0.625, 0.717],  # German
    [0.674, 0.736, 0.721, 0.356, 0.704],  # Glass
    [0.801, 0.357, 0.52, 0.309, 0.52],  # Hayes-Roth
    [0.785, 0.77, 0.841, 0.659, 0.759],  # Heart
    [0.71, 0.402, 0.728, 0.12, 0.674],  # Led7Digit
    [0.691, 0.827, 0.667, 0.527, 0.638],  # Letter*
    [0.743, 0.739, 0.83, 0.549, 0.746],  # Lymphography
    [0.99, 0.482, 0.941, 0.857, 0.99],  # Mushrooms*
    [0.867, 0.098, 0.915, 0.986, 0.784],  # OptDigits*
    [0.821, 0.872, 0.815, 0.885, 0.778],  # Satimage*
    [0.893, 0.824, 0.902, 0.739, 0.885],  # SpamBase*
    [0.799, 0.655, 0.925, 0.517, 0.755],  # Splice*
    [0.845, 0.731, 0.693, 0.653, 0.704],  # Tic-tac-toe
    [0.741, 0.701, 0.591, 0.663, 0.619],  # Vehicle
    [0.799, 0.994, 0.603, 0.269, 0.621],  # Vowel
    [0.949, 0.955, 0.989, 0.77, 0.954],  # Wine
    [0.555, 0.505, 0.569, 0.312, 0.556],  # Yeast
    [0.928, 0.928, 0.945, 0.419, 0.897],  # Zoo
    [0.915, 0.857, 0.86, 0.7, 0.777],  # Car
    [0.855, 0.796, 0.857, 0.607, 0.809],  # Crx
    [0.906, 0.359, 0.895, 0.641, 0.918],  # Ion
])

# Upper triangles in np.triu_indices(5, 1) order: (0,1) (0,2) (0,3) (0,4) (1,2) (1,3) (1,4) (2,3) (2,4) (3,4)
FRIEDMAN_POST = [4.848763e-03, 8.064959e-01, 4.486991e-08, 1.276301e-02, 1.011233e-02,
                 7.963489e-03, 7.439715e-01, 1.736118e-07, 2.474467e-02, 2.880485e-03]
ALIGNED_RAW = [1.174850e-03, 3.341698e-01, 2.843421e-10, 1.845167e-02, 2.265711e-02,
               2.197407e-03, 3.742777e-01, 9.226472e-08, 1.643229e-01, 7.793722e-05]
SHAFFER = [7.049103e-03, 6.683396e-01, 2.843421e-09, 7.380668e-02, 9.062842e-02,
           1.318444e-02, 6.683396e-01, 5.535883e-07, 4.929688e-01, 4.676233e-04]
BERGMANN = [7.049103e-03, 6.683396e-01, 2.843421e-09, 5.535501e-02, 6.797132e-02,
            8.789629e-03, 6.683396e-01, 5.535883e-07, 1.643229e-01, 3.117489e-04]
# R 4.2.2: dput(p.adjust(FRIEDMAN_POST, "holm"))
HOLM = [0.033941341, 1, 4.486991e-07, 0.051052032, 0.05056167, 0.047780934, 1, 1.5625062e-06,
        0.074234016, 0.02304388]


def test_friedman_average_ranks_and_raw_pvalues_match_scmamp():
    f = friedman(GH2008)
    # R 4.2.2: colMeans(t(apply(-as.matrix(data.gh.2008), 1, rank))) = 2.1, 3.25, 2.2, 4.3333, 3.11667
    assert f.average_ranks == pytest.approx((2.1, 3.25, 2.2, 13 / 3, 3.116666666666667), rel=1e-12)
    r = all_pairs(np.array(f.average_ranks), n=30, method="holm")
    np.testing.assert_allclose([p.pvalue for p in r.pairs], FRIEDMAN_POST, rtol=1e-6)
    np.testing.assert_allclose([p.pvalue_adjusted for p in r.pairs], HOLM, rtol=2e-6)
    assert [(p.a, p.b) for p in r.pairs] == list(itertools.combinations(range(5), 2))


def test_shaffer_and_bergmann_hommel_match_scmamp_vignette():
    p = np.array(ALIGNED_RAW)
    np.testing.assert_allclose(shaffer_adjust(p, 5), SHAFFER, rtol=2e-6)
    np.testing.assert_allclose(bergmann_hommel_adjust(p, 5), BERGMANN, rtol=2e-6)


def test_all_pairs_methods_share_raw_pvalues_and_order_their_power():
    ranks = np.array(friedman(GH2008).average_ranks)
    res = {m: all_pairs(ranks, 30, m) for m in ("holm", "shaffer", "bergmann_hommel")}
    raw = [p.pvalue for p in res["holm"].pairs]
    for r in res.values():
        assert [p.pvalue for p in r.pairs] == raw
        assert all(p.significant == (p.pvalue_adjusted <= 0.05) for p in r.pairs)
    h, s, b = (np.array([p.pvalue_adjusted for p in res[m].pairs]) for m in ("holm", "shaffer", "bergmann_hommel"))
    assert np.all(s <= h + 1e-15) and np.all(b <= s + 1e-15)  # García & Herrera 2008, sec. 2.3
    np.testing.assert_allclose(s, shaffer_adjust(np.array(raw), 5), rtol=1e-15)


def test_shaffer_true_counts_match_shaffer_1986():
    # Shaffer (1986), Table 1 / García & Herrera (2008) p. 2680: S(3) = {0,1,3}, S(4) = {0,1,2,3,6},
    # S(5) = {0,1,2,3,4,6,10}
    assert shaffer_true_counts(3) == (0, 1, 3)
    assert shaffer_true_counts(4) == (0, 1, 2, 3, 6)
    assert shaffer_true_counts(5) == (0, 1, 2, 3, 4, 6, 10)


@pytest.mark.parametrize("k,bell", [(1, 1), (2, 2), (3, 5), (4, 15), (5, 52), (6, 203), (8, 4140)])
def test_set_partitions_are_the_bell_number_and_distinct(k, bell):
    parts = _set_partitions(k)
    assert parts.shape == (bell, k)  # Bell numbers, OEIS A000110
    assert len({tuple(r) for r in parts.tolist()}) == bell


def test_bergmann_hommel_refuses_above_limit_with_a_clear_message():
    k = BERGMANN_HOMMEL_MAX_K + 1
    with pytest.raises(ValueError, match=rf"limited to {BERGMANN_HOMMEL_MAX_K} systems \(got {k}"):
        bergmann_hommel_adjust(np.full(k * (k - 1) // 2, 0.5), k)
    ranks = np.arange(1, k + 1, dtype=float)
    with pytest.raises(ValueError, match="Shaffer"):
        all_pairs(ranks, 20, "bergmann_hommel")
    assert len(all_pairs(ranks, 20, "shaffer").pairs) == k * (k - 1) // 2


def _brute_bergmann_hommel(p: np.ndarray, k: int) -> np.ndarray:
    """Definition by plain loops over partitions (García & Herrera 2008, p. 2681), then monotone."""
    pairs = list(itertools.combinations(range(k), 2))
    best = np.zeros(len(pairs))
    for labels in _set_partitions(k).tolist():
        members = [i for i, (a, b) in enumerate(pairs) if labels[a] == labels[b]]
        if members:
            v = len(members) * min(p[i] for i in members)
            for i in members:
                best[i] = max(best[i], v)
    order = np.argsort(p, kind="stable")
    out = np.empty_like(best)
    out[order] = np.maximum.accumulate(np.minimum(1.0, best[order]))
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.data())
def test_bergmann_hommel_vectorised_equals_loops_and_bounds(k, data):
    m = k * (k - 1) // 2
    p = np.array(data.draw(st.lists(st.floats(1e-6, 1.0), min_size=m, max_size=m)))
    b = bergmann_hommel_adjust(p, k)
    np.testing.assert_allclose(b, _brute_bergmann_hommel(p, k), rtol=1e-13)
    s = shaffer_adjust(p, k)
    assert np.all(b >= p - 1e-15) and np.all(b <= s + 1e-15) and np.all(s <= adjust(p, "holm") + 1e-15)


def test_shaffer_with_three_systems_is_holm_after_first_step():
    # k = 3: S = {0, 1, 3}; t = (3, 1, 1): Shaffer multiplies the 2nd p by 1 where Holm uses 2.
    p = np.array([0.01, 0.04, 0.03])
    np.testing.assert_allclose(shaffer_adjust(p, 3), [0.03, 0.04, 0.03], rtol=1e-15)
    assert math.isclose(adjust(p, "holm")[2], 0.06)
