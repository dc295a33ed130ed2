"""Agreement coefficients: the seed's kappa examples, R (vcd 1.4.11, psych 2.2.9), Fleiss (1971) via
irr's port pyirr 0.84.1.2 and irrCAC 0.4.4, Krippendorff (2011) and the krippendorff 0.9.0 package."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigreport.stats.agreement import (
    agreement_matrix,
    cohen_kappa,
    cohen_kappa_from_matrix,
    fleiss_kappa,
    krippendorff_alpha,
    landis_koch,
    pairwise_kappa_matrix,
)

nan = np.nan

# Seed 004 (digest example 7): ten sentences, C = 0, S = 1.
ANN1 = np.array([0, 1, 0, 0, 0, 1, 1, 0, 1, 0])  # C S C C C S S C S C
ANN2 = np.array([0, 1, 0, 0, 1, 1, 0, 0, 1, 0])  # C S C C S S C C S C
# Seed 004: rows annotator 2, columns annotator 1.
SEED3 = np.array([[25, 2, 5], [3, 26, 5], [1, 3, 30]])
# An asymmetric ordinal 4 x 4 table for weighted kappa.
M4 = np.array([[22, 5, 2, 0], [6, 18, 7, 1], [1, 8, 20, 4], [0, 2, 5, 12]])

# Fleiss (1971) Table 1, as R irr's `diagnoses` (30 patients x 6 psychiatrists); code = category - 1
# (1 Depression, 2 Personality Disorder, 3 Schizophrenia, 4 Neurosis, 5 Other).
DIAGNOSES = np.array([
    [3, 3, 3, 3, 3, 3], [1, 1, 1, 4, 4, 4], [1, 2, 2, 2, 2, 4], [4, 4, 4, 4, 4, 4], [1, 1, 1, 3, 3, 3],
    [0, 0, 2, 2, 2, 2], [2, 2, 2, 2, 4, 4], [0, 0, 2, 2, 2, 3], [0, 0, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4],
    [0, 3, 3, 3, 3, 3], [0, 1, 3, 3, 3, 3], [1, 1, 1, 2, 2, 2], [0, 3, 3, 3, 3, 3], [1, 1, 3, 3, 3, 4],
    [2, 2, 2, 2, 2, 4], [0, 0, 0, 3, 4, 4], [0, 0, 0, 0, 0, 1], [1, 1, 3, 3, 3, 3], [0, 2, 2, 4, 4, 4],
    [4, 4, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [1, 1, 3, 4, 4, 4], [0, 0, 3, 3, 3, 3], [0, 3, 3, 3, 3, 4],
    [1, 1, 1, 1, 1, 3], [0, 0, 0, 0, 4, 4], [1, 1, 3, 3, 3, 3], [0, 2, 2, 2, 2, 2], [4, 4, 4, 4, 4, 4],
])

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers x 12 units
# (rows here are units, columns observers A-D; NaN = missing).
KRIPP_2011 = np.array([
    [1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, 3, nan, nan],
])
# 16 units x 4 coders, ordinal 1..5, with missing ratings and two units with a single rating.
MISSING16 = np.array([
    [1, 1, 2, 1], [4, 4, 3, 5], [5, nan, nan, nan], [nan, 4, nan, nan], [2, 3, nan, nan], [5, 5, 4, 5],
    [1, 2, 2, 1], [nan, 5, 4, 5], [3, 3, nan, 1], [1, 1, 1, 1], [3, 2, 4, nan], [nan, nan, 5, 5],
    [nan, 3, nan, 4], [3, 4, 5, 3], [4, nan, nan, 4], [3, 3, 4, 5],
])


# ------------------------------------------------------------------------------------ Cohen


def test_seed_ten_sentences():
    # Seed 004 / digest example 7: P(A) = 0.8, P(E) = 0.52, kappa = 0.583 (= 0.28/0.48 = 7/12).
    r = cohen_kappa(ANN1, ANN2, 2, annotators=("ann1", "ann2"))
    assert r.observed_agreement == pytest.approx(0.8, abs=1e-12)
    assert r.expected_agreement == pytest.approx(0.52, abs=1e-12)
    assert r.value == pytest.approx(7 / 12, abs=1e-12)
    assert round(r.value, 3) == 0.583
    assert r.measure == "cohen_kappa" and r.level == "nominal" and r.n_items == 10
    assert r.annotators == ("ann1", "ann2")
    assert r.interpretation == "moderate"
    # R 4.x, vcd 1.4.11: k <- Kappa(table(a, b)) with a, b the two rows of letters ->
    # Unweighted value 0.583333333333333, ASE 0.26237688176823; confint(k) -> lwr 0.0690840946916788, upr 1
    # (psych 2.2.9 cohen.kappa(cbind(a, b))$var.kappa = 0.0688416280864197 = 0.26237688176823^2).
    assert r.se == pytest.approx(0.26237688176823, rel=1e-12)
    assert r.ci_low == pytest.approx(0.0690840946916788, rel=1e-12)
    assert r.ci_high == 1.0  # clipped, as vcd and psych do
    assert r.ci_method == "wald" and r.ci_level == 0.95


def test_seed_three_class_matrix():
    # Seed 004: [[25,2,5],[3,26,5],[1,3,30]] -> P(A) = 0.81, P(E) = 0.3342, kappa = 0.7146
    # (the report rounds P(E) to 0.33 and prints 0.72; unrounded 0.4758/0.6658).
    r = cohen_kappa_from_matrix(SEED3)
    assert r.observed_agreement == pytest.approx(0.81, abs=1e-12)
    assert r.expected_agreement == pytest.approx(0.3342, abs=1e-12)
    assert r.value == pytest.approx(0.4758 / 0.6658, abs=1e-12)
    assert round(r.value, 4) == 0.7146
    # Rows annotator 2 or annotator 1: the same kappa.
    assert cohen_kappa_from_matrix(SEED3.T).value == pytest.approx(r.value, abs=1e-15)
    # The matrix rebuilt from item labels is the table itself.
    rows, cols = np.nonzero(SEED3 >= 0)
    a = np.repeat(rows, SEED3.ravel())
    b = np.repeat(cols, SEED3.ravel())
    assert agreement_matrix(a, b, 3).tolist() == SEED3.tolist()
    assert cohen_kappa(a, b, 3, n_resamples=0).value == pytest.approx(r.value, abs=1e-15)


@pytest.mark.parametrize(
    ("table", "weights", "value", "ase", "lwr", "upr"),
    [
        # R 4.x, vcd 1.4.11: m3 <- matrix(c(25,2,5, 3,26,5, 1,3,30), 3, byrow=TRUE);
        # k1 <- Kappa(m3); k2 <- Kappa(m3, weights="Fleiss-Cohen"); confint(k1); confint(k2)
        (SEED3, None, 0.71462901772304, 0.0587364568163587, 0.599507677783485, 0.829750357662595),
        (SEED3, "linear", 0.71985656656208, 0.0618372174444057, 0.598657847466873, 0.841055285657287),
        (SEED3, "quadratic", 0.725029726516052, 0.0718836224812806, 0.584140415374468, 0.865919037657636),
        # Same calls with m4 <- matrix(c(22,5,2,0, 6,18,7,1, 1,8,20,4, 0,2,5,12), 4, byrow=TRUE)
        (M4, None, 0.50853930200488, 0.0619002187018459, 0.387217102714109, 0.629861501295650),
        (M4, "linear", 0.636953995488413, 0.0521044671065511, 0.534831116525921, 0.739076874450906),
        (M4, "quadratic", 0.754175730983371, 0.0462358411137484, 0.663555147605508, 0.844796314361234),
    ],
)
def test_kappa_and_ase_against_vcd(table, weights, value, ase, lwr, upr):
    r = cohen_kappa_from_matrix(table, weights=weights, n_resamples=0)
    assert r.value == pytest.approx(value, rel=1e-12)
    assert r.se == pytest.approx(ase, rel=1e-10)
    assert r.ci_low == pytest.approx(lwr, rel=1e-10)
    assert r.ci_high == pytest.approx(upr, rel=1e-10)
    assert r.measure == ("cohen_kappa" if weights is None else f"weighted_kappa_{weights}")


def test_unweighted_variance_against_psych():
    # R 4.x, psych 2.2.9: cohen.kappa(m3)$var.kappa = 0.00344997135933998; cohen.kappa(m4)$var.kappa =
    # 0.00383163707533635 (Fleiss, Cohen & Everitt 1969). psych's var.weighted (0.00518499018099792 and
    # 0.00144525045850227) is not used: it sums row weights as p_i. * sum_j w_ij (see module docstring).
    assert cohen_kappa_from_matrix(SEED3, n_resamples=0).se ** 2 == pytest.approx(0.00344997135933998, rel=1e-10)
    assert cohen_kappa_from_matrix(M4, n_resamples=0).se ** 2 == pytest.approx(0.00383163707533635, rel=1e-10)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_bootstrap_interval_agrees_with_asymptotic_se(weights):
    # n = 1000 (the seed's table x 10): the percentile bootstrap interval and the Wald interval from
    # the Fleiss-Cohen-Everitt SE estimate the same spread. Measured width ratios are 1.00-1.01; with
    # 20000 resamples the Monte Carlo error of the width is about 1 %, so 3 % is the tolerance.
    r = cohen_kappa_from_matrix(SEED3 * 10, weights=weights, n_resamples=20000, seed=1)
    boot_width = r.bootstrap_ci_high - r.bootstrap_ci_low
    assert boot_width == pytest.approx(r.ci_high - r.ci_low, rel=0.03)
    assert r.bootstrap_ci_low < r.value < r.bootstrap_ci_high


def test_missing_ratings_are_dropped_with_a_count():
    a = np.append(ANN1, [-1, 0, -1])
    b = np.append(ANN2, [1, -1, -1])
    r = cohen_kappa(a, b, 2, annotators=("x", "y"), n_resamples=0)
    assert r.value == pytest.approx(7 / 12, abs=1e-12) and r.n_items == 10
    assert any("3 of 13 items lack a rating from x or y" in w for w in r.warnings)


def test_same_seed_same_bootstrap():
    a = cohen_kappa(ANN1, ANN2, 2, n_resamples=500, seed=3)
    b = cohen_kappa(ANN1, ANN2, 2, n_resamples=500, seed=3)
    c = cohen_kappa(ANN1, ANN2, 2, n_resamples=500, seed=4)
    assert a == b
    assert (a.bootstrap_ci_low, a.bootstrap_ci_high) != (c.bootstrap_ci_low, c.bootstrap_ci_high)


ratings_pair = st.integers(2, 5).flatmap(
    lambda k: st.tuples(
        st.just(k),
        st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, k - 1)), min_size=2, max_size=40),
    )
)


@settings(max_examples=80, deadline=None)
@given(ratings_pair, st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_symmetric_in_annotators(data, weights):
    k, pairs = data
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    r = cohen_kappa(a, b, k, weights=weights, n_resamples=0)
    s = cohen_kappa(b, a, k, weights=weights, n_resamples=0)
    for field in ("value", "observed_agreement", "expected_agreement", "se", "ci_low", "ci_high"):
        x, y = getattr(r, field), getattr(s, field)
        assert (x is None and y is None) or x == pytest.approx(y, rel=1e-9, abs=1e-12), field
    if r.value is None:
        assert r.warnings  # never a silent None
    else:
        assert -1.0 - 1e-12 <= r.value <= 1.0 + 1e-12


@settings(max_examples=60, deadline=None)
@given(ratings_pair, st.sampled_from([None, "linear", "quadratic"]))
def test_identical_ratings_give_one(data, weights):
    k, pairs = data
    a = np.array([p[0] for p in pairs])
    r = cohen_kappa(a, a, k, weights=weights, n_resamples=50)
    if len(set(a.tolist())) >= 2:
        assert r.value == pytest.approx(1.0, abs=1e-12)
        assert r.se == pytest.approx(0.0, abs=1e-7)
        assert r.interpretation == "almost perfect"
    else:
        assert r.value is None and r.warnings


def test_one_label_used_by_everyone_is_undefined_with_reason():
    r = cohen_kappa(np.zeros(8, int), np.zeros(8, int), 3, labels=["C", "S", "O"])
    assert r.value is None and r.se is None and r.interpretation is None
    assert r.observed_agreement == 1.0 and r.expected_agreement == 1.0
    assert any("same label 'C'" in w and "P(E) = 1" in w for w in r.warnings)


def test_single_item_and_annotator_without_ratings():
    one = cohen_kappa(np.array([0]), np.array([1]), 2)
    assert one.value == 0.0 and any("Only one item" in w for w in one.warnings)
    empty = cohen_kappa(np.array([0, 1, 1]), np.array([-1, -1, -1]), 2)
    assert empty.value is None and empty.n_items == 0
    assert any("No item was rated by both" in w for w in empty.warnings)


def test_pairwise_matrix_matches_single_pairs():
    x = DIAGNOSES[:, :4].copy()
    x[0, 1] = -1
    x[5, 3] = -1
    results = pairwise_kappa_matrix(x, 5, weights="linear", annotators=["a", "b", "c", "d"], n_resamples=0)
    assert [r.annotators for r in results] == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"),
                                               ("c", "d")]
    names = "abcd"
    for r in results:
        i, j = names.index(r.annotators[0]), names.index(r.annotators[1])
        single = cohen_kappa(x[:, i], x[:, j], 5, weights="linear", annotators=r.annotators, n_resamples=0)
        assert r == single


def test_pairwise_with_an_empty_annotator():
    x = np.column_stack([ANN1, ANN2, np.full(10, -1)])
    res = pairwise_kappa_matrix(x, 2, n_resamples=100)
    assert res[0].value == pytest.approx(7 / 12, abs=1e-12)
    assert res[1].value is None and res[2].value is None
    assert all(r.warnings for r in res[1:])


# ------------------------------------------------------------------------------------ Fleiss


def test_fleiss_1971_diagnoses():
    # Fleiss (1971), Table 1 data: kappa = .430. R irr::kappam.fleiss(diagnoses): Kappa = 0.43, z = 17.7.
    # pyirr 0.84.1.2 (port of irr): kappam_fleiss(DIAGNOSES) -> value 0.43024452006014074,
    # statistic 17.651830582991366, so se under H0 = value / z = 0.024373932099411154
    # (Fleiss, Nee & Landis 1979).
    # irrCAC 0.4.4: CAC(pd.DataFrame(DIAGNOSES).astype(float), digits=12).fleiss() ->
    # se 0.054198935515, pa 0.555555555556, pe 0.219938271605 (Gwet's non-null SE).
    r = fleiss_kappa(DIAGNOSES, 5, n_resamples=0)
    assert r.value == pytest.approx(0.43024452006014074, rel=1e-12)
    assert round(r.value, 3) == 0.430
    assert r.se_null == pytest.approx(0.024373932099411154, rel=1e-10)
    assert round(r.value / r.se_null, 1) == 17.7
    assert r.se == pytest.approx(0.054198935515, abs=1e-12)
    assert r.observed_agreement == pytest.approx(0.555555555556, abs=1e-12)
    assert r.expected_agreement == pytest.approx(0.219938271605, abs=1e-12)
    z = 1.959963984540054  # scipy.stats.norm.ppf(0.975)
    assert r.ci_low == pytest.approx(r.value - z * r.se, rel=1e-12)
    assert r.measure == "fleiss_kappa" and r.n_items == 30 and len(r.annotators) == 6
    assert r.interpretation == "moderate" and r.warnings == ()


def test_fleiss_missing_uses_complete_items_and_drops_empty_annotators():
    # Items 0, 5 and 12 lose a rating; a seventh annotator rated nothing.
    x = np.column_stack([DIAGNOSES, np.full(30, -1)])
    x[0, 2] = x[5, 0] = x[12, 5] = -1
    # pyirr 0.84.1.2: kappam_fleiss on the 27 complete rows -> value 0.41756385068762264,
    # statistic 16.109228938562463 (se0 = 0.025920784432335763);
    # irrCAC 0.4.4 CAC(same rows).fleiss() -> se 0.056542294094, pa 0.548148148148, pe 0.224203627496.
    r = fleiss_kappa(x, 5, annotators=[f"r{i}" for i in range(7)], n_resamples=0)
    assert r.value == pytest.approx(0.41756385068762264, rel=1e-12)
    assert r.se_null == pytest.approx(0.025920784432335763, rel=1e-10)
    assert r.se == pytest.approx(0.056542294094, abs=1e-12)
    assert r.n_items == 27 and r.annotators == tuple(f"r{i}" for i in range(6))
    text = " ".join(r.warnings)
    assert "without any rating were left out: r6" in text
    assert "3 of 30 items were not rated by all 6 annotators" in text


def test_fleiss_two_raters():
    # pyirr 0.84.1.2 kappam_fleiss(DIAGNOSES[:, :2]) -> 0.6431226765799257, se0 = 0.1004978784342568;
    # irrCAC 0.4.4 -> se 0.108586225147.
    r = fleiss_kappa(DIAGNOSES[:, :2], 5, n_resamples=0)
    assert r.value == pytest.approx(0.6431226765799257, rel=1e-12)
    assert r.se_null == pytest.approx(0.1004978784342568, rel=1e-10)
    assert r.se == pytest.approx(0.108586225147, abs=1e-12)


def test_fleiss_bootstrap_seeded_and_sane():
    a = fleiss_kappa(DIAGNOSES, 5, n_resamples=2000, seed=11)
    b = fleiss_kappa(DIAGNOSES, 5, n_resamples=2000, seed=11)
    assert a == b
    assert a.bootstrap_ci_low < a.value < a.bootstrap_ci_high
    # 30 items: the bootstrap interval width and the Wald width from Gwet's SE are of the same size.
    ratio = (a.bootstrap_ci_high - a.bootstrap_ci_low) / (a.ci_high - a.ci_low)
    assert 0.8 < ratio < 1.2


def test_fleiss_degenerate():
    same = fleiss_kappa(np.full((5, 3), 2), 4, labels=["a", "b", "c", "d"])
    assert same.value is None and any("every rating is the label 'c'" in w for w in same.warnings)
    one_annotator = fleiss_kappa(np.column_stack([np.arange(5) % 2, np.full(5, -1)]), 2)
    assert one_annotator.value is None and any("at least two annotators" in w for w in one_annotator.warnings)
    single = fleiss_kappa(np.array([[0, 1, 1]]), 2, n_resamples=10)
    assert single.value is not None and single.se is None
    assert any("Only one item" in w for w in single.warnings)
    none_complete = fleiss_kappa(np.array([[0, -1], [-1, 1]]), 2)
    assert none_complete.value is None and none_complete.warnings


# ------------------------------------------------------------------------------------ Krippendorff


@pytest.mark.parametrize(
    ("level", "published", "package"),
    [
        # Krippendorff (2011), section C: alpha = .743 (nominal), .815 (ordinal), .849 (interval).
        # krippendorff 0.9.0: krippendorff.alpha(reliability_data=KRIPP_2011.T, level_of_measurement=level)
        ("nominal", 0.743, 0.743421052631579),
        ("ordinal", 0.815, 0.8153875037548814),
        ("interval", 0.849, 0.8491071428571428),
    ],
)
def test_krippendorff_2011_example(level, published, package):
    r = krippendorff_alpha(KRIPP_2011, level, annotators=["A", "B", "C", "D"], n_resamples=0)
    assert round(r.value, 3) == published
    assert r.value == pytest.approx(package, rel=1e-12)
    assert r.n_items == 11  # unit 12 has one value only
    assert any("1 of 12 items have fewer than two ratings" in w for w in r.warnings)
    assert r.measure == "krippendorff_alpha" and r.level == level


def test_krippendorff_2011_nominal_agreements():
    # Nominal alpha = 1 - (n - 1) * sum_{c != k} o_ck / (n^2 - sum_c n_c^2) (Krippendorff 2011, section C).
    # Counted by hand from KRIPP_2011: pairable values per value 1..5 are n_c = (9, 13, 10, 5, 3), n = 40;
    # the disagreeing ordered pairs / (m_u - 1) are unit 2: 6/3, unit 6: 12/3, unit 8: 6/3, total 8.
    # So alpha = 1 - 39 * 8 / 1216 = .743, D_o = 8/40 and D_e = 1216/(40 * 39).
    r = krippendorff_alpha(KRIPP_2011, "nominal", n_resamples=0)
    assert r.value == pytest.approx(1 - 39 * 8 / (1600 - (81 + 169 + 100 + 25 + 9)), rel=1e-12)
    assert r.observed_agreement == pytest.approx(1 - 8 / 40, rel=1e-12)
    assert r.expected_agreement == pytest.approx(1 - 1216 / (40 * 39), rel=1e-12)


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        # krippendorff 0.9.0: krippendorff.alpha(reliability_data=MISSING16.T, level_of_measurement=level)
        ("nominal", 0.23916666666666675),
        ("ordinal", 0.7378544061302682),
        ("interval", 0.7584313725490197),
    ],
)
def test_krippendorff_missing_data_against_package(level, expected):
    x = np.column_stack([MISSING16, np.full(16, nan)])  # a fifth coder without ratings
    r = krippendorff_alpha(x, level, annotators=["a", "b", "c", "d", "e"], n_resamples=0)
    assert r.value == pytest.approx(expected, rel=1e-12)
    assert r.annotators == ("a", "b", "c", "d") and r.n_items == 14
    assert any("left out: e" in w for w in r.warnings)


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        # Values 1..5 of MISSING16 mapped to 0, 0.5, 2, 2.5, 10; krippendorff 0.9.0 as above ->
        ("nominal", 0.23916666666666675),
        ("ordinal", 0.7378544061302682),
        ("interval", 0.5192118226600986),
    ],
)
def test_krippendorff_unequal_interval_values(level, expected):
    mapped = np.select([MISSING16 == v for v in (1, 2, 3, 4, 5)], [0.0, 0.5, 2.0, 2.5, 10.0], default=nan)
    r = krippendorff_alpha(mapped, level, values=[0.0, 0.5, 2.0, 2.5, 10.0, 20.0], n_resamples=0)
    assert r.value == pytest.approx(expected, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=3, max_size=3), min_size=2, max_size=15))
def test_krippendorff_ordinal_invariant_under_monotone_recoding(rows):
    x = np.array([[nan if v is None else v for v in row] for row in rows], dtype=float)
    a = krippendorff_alpha(x, "ordinal", n_resamples=0)
    b = krippendorff_alpha(np.exp(x) + 5, "ordinal", n_resamples=0)
    c = krippendorff_alpha(np.exp(x) + 5, "nominal", n_resamples=0)
    d = krippendorff_alpha(x, "nominal", n_resamples=0)
    if a.value is None:
        assert b.value is None and a.warnings
    else:
        assert b.value == pytest.approx(a.value, rel=1e-9, abs=1e-12)
        assert c.value == pytest.approx(d.value, rel=1e-9, abs=1e-12)
        assert a.value <= 1.0 + 1e-12


def test_krippendorff_bootstrap():
    a = krippendorff_alpha(KRIPP_2011, "interval", n_resamples=1000, seed=5)
    b = krippendorff_alpha(KRIPP_2011, "interval", n_resamples=1000, seed=5)
    assert a == b
    assert a.ci_method == "bootstrap_percentile"
    assert a.ci_low == a.bootstrap_ci_low and a.ci_high == a.bootstrap_ci_high
    assert a.ci_low < a.value <= a.ci_high and a.se > 0


def test_krippendorff_degenerate():
    same = krippendorff_alpha(np.array([[1.0, 1.0], [1.0, 1.0], [1.0, nan]]), "nominal")
    assert same.value is None and any("same value" in w for w in same.warnings)
    lonely = krippendorff_alpha(np.array([[1.0, nan], [nan, 2.0]]), "interval")
    assert lonely.value is None and lonely.n_items == 0 and lonely.warnings
    # One unit with values 1, 2, 2: o_12 = o_21 = 1*2/(3-1) = 1, o_22 = 2*1/2 = 1, n_c = (1, 2), n = 3;
    # D_o = 2/3 and D_e = 2*1*2/(3*2) = 2/3, so alpha = 0 at every level (two values: ordinal and interval
    # differ from nominal by a common factor). krippendorff 0.9.0:
    # krippendorff.alpha(reliability_data=[[1.0], [2.0], [2.0]], level_of_measurement="ordinal") -> 0.0
    single = krippendorff_alpha(np.array([[1.0, 2.0, 2.0]]), "ordinal", n_resamples=50)
    assert single.value == pytest.approx(0.0, abs=1e-12) and single.n_items == 1
    assert any("Only one item" in w for w in single.warnings)
    with pytest.raises(ValueError):
        krippendorff_alpha(KRIPP_2011, "ratio")
    with pytest.raises(ValueError):
        krippendorff_alpha(KRIPP_2011, "nominal", values=[1, 2, 3])
    with pytest.raises(ValueError):
        krippendorff_alpha(KRIPP_2011, "nominal", n_labels=5)  # codes 0..4, but the data hold 5


def test_krippendorff_label_codes():
    # The 2011 example as codes 0..4 of five declared labels (plus one never used): same alpha.
    r = krippendorff_alpha(KRIPP_2011 - 1, "ordinal", n_labels=6, n_resamples=0)
    assert r.value == pytest.approx(0.8153875037548814, rel=1e-12)  # krippendorff 0.9.0, see above


# ------------------------------------------------------------------------------------ Landis & Koch


@pytest.mark.parametrize(
    ("value", "band"),
    [
        (-0.01, "poor"), (0.0, "slight"), (0.2, "slight"), (0.2000001, "fair"), (0.4, "fair"),
        (0.41, "moderate"), (0.6, "moderate"), (0.61, "substantial"), (0.8, "substantial"),
        (0.81, "almost perfect"), (1.0, "almost perfect"), (None, None), (math.nan, None),
    ],
)
def test_landis_koch(value, band):
    # Landis & Koch (1977) as in seed 004 / the seed README: < 0 poor, 0.00-0.20 slight, 0.21-0.40 fair,
    # 0.41-0.60 moderate, 0.61-0.80 substantial, 0.81-1.00 almost perfect (upper bounds inclusive).
    assert landis_koch(value) == band
