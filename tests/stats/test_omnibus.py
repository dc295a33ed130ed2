"""Tests of sigreport.stats.omnibus: repeated-measures ANOVA, sphericity and Friedman.

References (all values hard-coded; nothing here runs R):
- Demšar (2006), JMLR 7:1-30, Table 6 / section 3.2.2, as printed in seed 003 (slides) and the
  digest in /work/shared/seeds/README.md, worked example 5.
- R 4.2.2 (Debian r-base-core), car 3.1-1, afex 1.2-1, rstatix 0.7.2: the exact scripts are in
  the comments next to the data.
- SPSS output printed in seed 000, Tables 3-5 (24 summarizers x 100 texts).
- scipy.stats (1.17.1) ttest_rel / friedmanchisquare as independent Python implementations.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats as sps

from sigreport.stats.omnibus import (
    CORRECTION_NAMES,
    _corrected,
    _huynh_feldt,
    apply_sphericity,
    friedman,
    rm_anova,
)
from sigreport.stats.result import to_jsonable

# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------

# Seed 003 (slides translated from García & Herrera, after Demšar 2006, Table 6): AUC of
# C4.5, C4.5m, C4.5cf, C4.5cf,m on 14 data sets, as printed (3 decimals).
DEMSAR_AUC = np.array(
    [
        [0.763, 0.768, 0.771, 0.798],  # Adult
        [0.599, 0.591, 0.590, 0.569],  # Breast
        [0.954, 0.971, 0.968, 0.967],  # Wisconsin
        [0.628, 0.661, 0.654, 0.657],  # Cmc
        [0.882, 0.888, 0.886, 0.898],  # Ionosphere
        [0.936, 0.931, 0.916, 0.931],  # Iris
        [0.661, 0.668, 0.609, 0.685],  # Bupa
        [0.583, 0.583, 0.563, 0.625],  # Lung
        [0.775, 0.838, 0.866, 0.875],  # Lymphography
        [1.000, 1.000, 1.000, 1.000],  # Mushroom
        [0.940, 0.962, 0.965, 0.962],  # Tumor
        [0.619, 0.666, 0.614, 0.669],  # Rheum
        [0.972, 0.981, 0.975, 0.975],  # Voting
        [0.957, 0.978, 0.946, 0.970],  # Wine
    ]
)
VOTING = 12

# Repeated-measures data, n = 12 items x k = 4 systems. Generated once with numpy
# (default_rng(20240601): item effect + iid noise, i.e. compound symmetry; default_rng(1000): a
# common item effect plus system-specific noise with sd 0.01, 0.015, 0.03, 0.07, i.e. strongly
# non-spherical), rounded to 3 decimals and frozen here so the test does not depend on numpy's RNG.
SPHERICAL = np.array(
    [
        [0.52, 0.561, 0.569, 0.622], [0.481, 0.552, 0.618, 0.56], [0.426, 0.466, 0.436, 0.495],
        [0.405, 0.426, 0.406, 0.445], [0.508, 0.487, 0.535, 0.558], [0.553, 0.597, 0.646, 0.661],
        [0.612, 0.616, 0.64, 0.713], [0.566, 0.61, 0.59, 0.617], [0.547, 0.52, 0.55, 0.559],
        [0.602, 0.653, 0.695, 0.685], [0.587, 0.575, 0.653, 0.655], [0.463, 0.528, 0.56, 0.483],
    ]
)
NONSPHERICAL = np.array(
    [
        [0.477, 0.456, 0.475, 0.466], [0.444, 0.461, 0.457, 0.489], [0.681, 0.673, 0.701, 0.621],
        [0.699, 0.718, 0.721, 0.716], [0.526, 0.547, 0.54, 0.687], [0.387, 0.388, 0.405, 0.504],
        [0.526, 0.514, 0.535, 0.664], [0.49, 0.514, 0.502, 0.59], [0.42, 0.441, 0.482, 0.563],
        [0.648, 0.664, 0.691, 0.684], [0.595, 0.597, 0.642, 0.576], [0.367, 0.361, 0.448, 0.379],
    ]
)
# R 4.2.2, car 3.1-1, afex 1.2-1; `Y` is SPHERICAL or NONSPHERICAL typed in as
# matrix(c(...), ncol = 4, byrow = TRUE):
#   library(car); library(afex); options(digits = 15)
#   s <- summary(Anova(lm(Y ~ 1), idata = data.frame(system = factor(1:4)), idesign = ~system,
#                      type = 3), multivariate = FALSE)
#   s$univariate.tests; s$sphericity.tests; s$pval.adjustments
#   W <- s$sphericity.tests["system", "Test statistic"]; p <- 3; nd <- nrow(Y) - 1
#   chi2 <- -(nd - (2 * p^2 + p + 2) / (6 * p)) * log(W); pchisq(chi2, 5, lower.tail = FALSE)
#   stats::mauchly.test(lm(Y ~ 1), X = ~1)
#   long <- data.frame(item = factor(rep(1:nrow(Y), 4)), system = factor(rep(1:4, each = nrow(Y))),
#                      y = as.vector(Y))
#   for (cr in c("none", "GG", "HF")) print(aov_car(y ~ system + Error(item / system), data = long,
#       anova_table = list(es = "pes", correction = cr))$anova_table, digits = 15)
#   pf(F, 1, nrow(Y) - 1, lower.tail = FALSE)      # lower bound
R_RM = {
    "spherical": dict(
        ss_systems=0.0300465000000002,  # car: univariate.tests["system", "Sum Sq"]
        ss_error=0.024223000000000,  # car: "Error SS"
        F=13.6445320563102,  # car: "F value"
        p=5.91248678786235e-06,  # car: "Pr(>F)"
        pes=0.553653525460896,  # afex: anova_table$pes
        ms_error=0.000734030303030303,  # afex: anova_table$MSE (correction = "none")
        W=0.724167444451521,  # car: sphericity.tests "Test statistic"
        chi2=3.13767841012549,  # R: -(nd - (2p^2+p+2)/(6p)) * log(W) with car's W
        mauchly_p=0.678769455512313,  # R: pchisq(chi2, 5, lower.tail = FALSE)
        mauchly_p_r2=0.680162823674298,  # car / stats::mauchly.test (2nd-order term), not used
        gg=0.822878973452642,  # car: pval.adjustments "GG eps"
        p_gg=3.16006372530585e-05,  # car: "Pr(>F[GG])"
        gg_df1=2.46863692035793,  # afex correction = "GG": num Df
        gg_df2=27.1550061239372,  # afex correction = "GG": den Df
        hf_raw=1.07929775450975,  # car: "HF eps" (> 1; car warns "HF eps > 1 treated as 1")
        p_hf=5.91248678786235e-06,  # car: "Pr(>F[HF])" (= uncorrected p, HF capped at 1)
        p_lb=0.00353932489416336,  # R: pf(13.6445320563102, 1, 11, lower.tail = FALSE)
    ),
    "nonspherical": dict(
        ss_systems=0.0236101666666665,
        ss_error=0.0489848333333333,
        F=5.30188255548483,
        p=4.28396798304221e-03,
        pes=0.325231306104643,
        ms_error=0.00148438888888889,
        W=0.0452621065355166,
        chi2=30.0930495529465,
        mauchly_p=1.41394566396145e-05,
        mauchly_p_r2=1.61754664526447e-05,
        gg=0.411884327309591,
        p_gg=0.0318262450996896,
        gg_df1=1.23565298192877,
        gg_df2=13.5921828012165,
        hf_raw=0.437914102513438,
        p_hf=0.0290702165796543,
        hf_df1=1.31374230754031,  # afex correction = "HF": num Df
        hf_df2=14.4511653829435,  # afex correction = "HF": den Df
        p_lb=0.0418414369564016,  # R: pf(5.30188255548483, 1, 11, lower.tail = FALSE)
    ),
}


def pseudo(n: int, k: int, salt: int = 0) -> np.ndarray:
    """Deterministic integer-hash 'noise' in [0, 1), identical in R (exact integer arithmetic).

    R:  pseudo <- function(n, k, salt = 0) {
          i <- matrix(1:n, n, k); j <- matrix(1:k, n, k, byrow = TRUE)
          h <- ((i * 7919 + j * 104729 + i * j * 31 + salt) * 40503) %% 65536
          ((h * h + i * 613 + j * 337) %% 65521) / 65521 }
    """
    i = np.arange(1, n + 1)[:, None]
    j = np.arange(1, k + 1)[None, :]
    h = ((i * 7919 + j * 104729 + i * j * 31 + salt) * 40503) % 65536
    return ((h * h + i * 613 + j * 337) % 65521) / 65521.0


def spss_like_24x100() -> np.ndarray:
    """24 systems x 100 texts like seed 000's SPSS example: a strong common text effect with
    system-specific loadings (non-spherical), and two systems that are exact shifts of two others
    (e.g. a baseline re-run with a constant offset), so the contrast covariance is singular.

    R:  item <- pseudo(100, 1, 17) - 0.5
        Y <- 0.45 + 0.2 * item[, rep(1, 24)] * matrix(seq(0.8, 1.2, length.out = 24), 100, 24,
             byrow = TRUE) + 0.03 * (pseudo(100, 24) - 0.5)
        Y[, 23] <- Y[, 1] + 0.01; Y[, 24] <- Y[, 2] - 0.02
    """
    item = pseudo(100, 1, 17) - 0.5
    x = 0.45 + 0.2 * item * np.linspace(0.8, 1.2, 24) + 0.03 * (pseudo(100, 24) - 0.5)
    x[:, 22] = x[:, 0] + 0.01
    x[:, 23] = x[:, 1] - 0.02
    return x


# ---------------------------------------------------------------------------------------------
# Friedman: Demšar 2006 (seed 003) and R
# ---------------------------------------------------------------------------------------------


def test_friedman_demsar_printed_values_uncorrected():
    r = friedman(DEMSAR_AUC, higher_is_better=True, tie_correction=False)
    # README digest, example 5: ranking the printed AUCs (Voting tie averaged) gives
    # average ranks 3.143, 2.000, 2.929, 1.929 and chi2_F = 9.857 with Demšar's formula.
    assert np.allclose(r.average_ranks, [3.143, 2.000, 2.929, 1.929], atol=5e-4)
    # Exact values: rank sums 44, 28, 41, 27 over N = 14 (hand count from the seed's rank table
    # with Voting's C4.5cf/C4.5cf,m tie averaged to 2.5/2.5).
    assert r.average_ranks == pytest.approx((44 / 14, 28 / 14, 41 / 14, 27 / 14), rel=1e-15)
    assert r.statistic == pytest.approx(9.857, abs=5e-4)  # README example 5
    assert r.statistic == r.statistic_uncorrected
    assert r.df == 3 and r.n == 14 and r.k == 4 and r.tie_correction is False
    assert r.warnings == ()


def test_friedman_demsar_printed_values_tie_corrected_matches_r():
    r = friedman(DEMSAR_AUC)  # tie_correction=True by default, as R and scipy
    # R 4.2.2: friedman.test(auc) with auc the 14 x 4 matrix above:
    #   Friedman chi-squared = 10.952380952381, df = 3, p-value = 0.0119861763254178
    assert r.statistic == pytest.approx(10.952380952381, rel=1e-12)
    assert r.statistic == pytest.approx(10.952, abs=5e-4)  # README example 5 ("10.952 with it")
    assert r.pvalue == pytest.approx(0.0119861763254178, rel=1e-10)
    assert r.statistic_tie_corrected == r.statistic
    assert r.statistic_uncorrected == pytest.approx(9.857, abs=5e-4)
    # rstatix 0.7.2: friedman_effsize(d, auc ~ alg | ds)$effsize = 0.260770975056689 (Kendall W
    # from friedman.test's tie-corrected statistic: chi2 / (N (k - 1)))
    assert r.kendall_w == pytest.approx(0.260770975056689, rel=1e-12)
    # scipy 1.17.1: friedmanchisquare(*DEMSAR_AUC.T) -> statistic 10.952380952380956
    assert r.statistic == pytest.approx(sps.friedmanchisquare(*DEMSAR_AUC.T).statistic, rel=1e-12)


def test_friedman_demsar_published_with_voting_fix():
    auc = DEMSAR_AUC.copy()
    auc[VOTING, 2] = 0.9751  # README example 5: reproduces the paper's unrounded Voting order
    r = friedman(auc, tie_correction=False)
    # Seed 003 rank table and Demšar (2006) section 3.2.2: average ranks 3.143, 2.000, 2.893,
    # 1.964; chi2_F = 9.28; Iman-Davenport F_F = 3.69 with (3, 39) df.
    assert np.allclose(r.average_ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert r.statistic == pytest.approx(9.28, abs=5e-3)
    assert r.iman_davenport.statistic == pytest.approx(3.69, abs=5e-3)
    assert (r.iman_davenport.df1, r.iman_davenport.df2) == (3.0, 39.0)  # Demšar: F(3, 39)
    # F_F from the formula with the exact chi2 = 12*14/20 * (sum R_j^2 - 25) (Demšar eq. for F_F)
    chi2 = 12 * 14 / 20 * sum(v**2 for v in r.average_ranks) - 12 * 14 / 20 * 25
    assert r.statistic == pytest.approx(chi2, rel=1e-12)
    assert r.iman_davenport.statistic == pytest.approx(13 * chi2 / (14 * 3 - chi2), rel=1e-12)
    # R 4.2.2: pf(13 * 9.27857142857143 / (42 - 9.27857142857143), 3, 39, lower.tail = FALSE)
    assert r.iman_davenport.pvalue == pytest.approx(sps.f.sf(r.iman_davenport.statistic, 3, 39), rel=1e-12)
    # R 4.2.2: auc[13, 3] <- 0.9751; friedman.test(auc): chi2 = 10.2283464566929,
    # p = 0.0167215803284414 (tie-corrected: Mushroom, Iris, Lung, Tumor still tie)
    rc = friedman(auc)
    assert rc.statistic == pytest.approx(10.2283464566929, rel=1e-12)
    assert rc.pvalue == pytest.approx(0.0167215803284414, rel=1e-10)
    assert r.statistic_tie_corrected == rc.statistic


def test_friedman_direction():
    # With lower-is-better the ranks reverse: R_j -> k + 1 - R_j; chi2 is unchanged.
    hi = friedman(DEMSAR_AUC, higher_is_better=True)
    lo = friedman(DEMSAR_AUC, higher_is_better=False)
    assert np.allclose(np.add(hi.average_ranks, lo.average_ranks), 5.0)
    assert lo.statistic == pytest.approx(hi.statistic, rel=1e-14)
    lo_neg = friedman(-DEMSAR_AUC, higher_is_better=False)
    assert lo_neg.average_ranks == hi.average_ranks


# ---------------------------------------------------------------------------------------------
# Friedman: degenerate cases
# ---------------------------------------------------------------------------------------------


def test_friedman_all_ties():
    x = np.ones((6, 4)) * np.arange(6)[:, None]  # every row constant
    r = friedman(x)
    assert r.statistic is None and r.pvalue is None and r.statistic_tie_corrected is None
    assert r.statistic_uncorrected == 0.0
    assert r.average_ranks == (2.5, 2.5, 2.5, 2.5)
    assert r.iman_davenport.statistic is None and r.kendall_w is None
    assert any("same score" in w for w in r.warnings)
    u = friedman(x, tie_correction=False)
    assert u.statistic == 0.0 and u.pvalue == 1.0
    assert u.iman_davenport.statistic == 0.0 and u.iman_davenport.pvalue == 1.0


@pytest.mark.parametrize("tie_correction", [True, False])
def test_friedman_perfect_concordance_infinite_ff(tie_correction):
    x = np.tile([0.9, 0.8, 0.7, 0.6], (5, 1)) + np.arange(5)[:, None] * 0.01
    r = friedman(x, tie_correction=tie_correction)
    assert r.average_ranks == (1.0, 2.0, 3.0, 4.0)
    assert r.statistic == 15.0  # chi2_F = N (k - 1) = 5 * 3 (maximum)
    assert r.kendall_w == 1.0
    # R 4.2.2: friedman.test(matrix(rep(4:1, 5), 5, byrow = TRUE))$p.value = 0.00181664896657232
    assert r.pvalue == pytest.approx(0.00181664896657232, rel=1e-10)
    assert r.iman_davenport.statistic is None and r.iman_davenport.pvalue is None
    assert any("Iman-Davenport F is infinite" in w for w in r.warnings)


def test_friedman_perfect_concordance_with_ties_tie_corrected():
    # Identical tied pattern in every row: tie-corrected chi2 reaches N(k-1) exactly.
    x = np.tile([0.9, 0.8, 0.8, 0.6], (7, 1))
    r = friedman(x)
    assert r.statistic == 21.0  # 7 * 3
    assert r.iman_davenport.statistic is None
    r_unc = friedman(x, tie_correction=False)
    assert r_unc.statistic == pytest.approx(2.7 * 7, rel=1e-14)  # 12N/20 * 4.5
    assert r_unc.iman_davenport.statistic == pytest.approx(6 * 18.9 / (21 - 18.9), rel=1e-12)


@pytest.mark.parametrize("shape", [(1, 4), (0, 4), (5, 1), (5, 0), (0, 0)])
def test_friedman_too_small(shape):
    r = friedman(np.zeros(shape) + np.arange(shape[1]))
    assert r.statistic is None and r.pvalue is None and r.iman_davenport.pvalue is None
    assert r.warnings and "at least two items and two systems" in r.warnings[0]
    assert len(r.average_ranks) == shape[1]
    json.dumps(to_jsonable(r))


def test_friedman_rejects_bad_input():
    with pytest.raises(ValueError):
        friedman(np.arange(5.0))
    with pytest.raises(ValueError):
        friedman(np.array([[1.0, np.nan], [2.0, 3.0]]))


# ---------------------------------------------------------------------------------------------
# Friedman: properties
# ---------------------------------------------------------------------------------------------

int_scores = hnp.arrays(
    np.int64,
    st.tuples(st.integers(2, 12), st.integers(2, 6)),
    elements=st.integers(0, 6),  # small range: plenty of ties
)


@settings(max_examples=150, deadline=None)
@given(int_scores, st.booleans(), st.booleans())
def test_friedman_pvalues_in_unit_interval(x, hib, tc):
    r = friedman(x.astype(float), higher_is_better=hib, tie_correction=tc)
    for p in (r.pvalue, r.iman_davenport.pvalue):
        assert p is None or 0.0 <= p <= 1.0
    if r.statistic is None or r.iman_davenport.statistic is None:
        assert r.warnings
    assert sum(r.average_ranks) == pytest.approx(r.k * (r.k + 1) / 2)
    json.dumps(to_jsonable(r))


@settings(max_examples=100, deadline=None)
@given(int_scores, st.booleans())
def test_friedman_invariant_to_monotone_transform(x, tc):
    xf = x.astype(float)
    base = friedman(xf, tie_correction=tc)
    for transformed in (np.exp(xf / 3.0), xf**3 + 2.0 * xf - 7.0, np.log1p(xf) * 10.0):
        r = friedman(transformed, tie_correction=tc)
        assert r.average_ranks == base.average_ranks
        assert r.statistic == base.statistic
        assert r.pvalue == base.pvalue
        assert r.iman_davenport == base.iman_davenport
    # a decreasing transform with higher_is_better flipped gives the same ranks
    assert friedman(-xf, higher_is_better=False, tie_correction=tc).average_ranks == base.average_ranks


@settings(max_examples=100, deadline=None)
@given(int_scores, st.randoms(use_true_random=False))
def test_friedman_column_permutation_permutes_ranks(x, rnd):
    perm = list(range(x.shape[1]))
    rnd.shuffle(perm)
    base = friedman(x.astype(float))
    r = friedman(x[:, perm].astype(float))
    assert r.average_ranks == tuple(base.average_ranks[j] for j in perm)
    if base.statistic is None:
        assert r.statistic is None
    else:
        assert r.statistic == pytest.approx(base.statistic, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Repeated-measures ANOVA against R (car, afex)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,data", [("spherical", SPHERICAL), ("nonspherical", NONSPHERICAL)])
def test_rm_anova_matches_r(name, data):
    ref = R_RM[name]
    r = rm_anova(data)
    rel = 1e-9
    assert (r.method, r.n, r.k, r.df1, r.df2) == ("rm_anova", 12, 4, 3.0, 33.0)  # car: num Df, den Df
    assert r.ss_systems == pytest.approx(ref["ss_systems"], rel=rel)
    assert r.ss_error == pytest.approx(ref["ss_error"], rel=rel)
    assert r.ms_error == pytest.approx(ref["ms_error"], rel=rel)
    assert r.ms_systems == pytest.approx(ref["ss_systems"] / 3, rel=rel)
    assert r.statistic == pytest.approx(ref["F"], rel=rel)
    assert r.pvalue == pytest.approx(ref["p"], rel=rel)
    assert r.effect_size.name == "partial_eta_squared"
    assert r.effect_size.value == pytest.approx(ref["pes"], rel=rel)

    s = r.sphericity
    assert s.mauchly_w == pytest.approx(ref["W"], rel=rel)
    assert s.chi2 == pytest.approx(ref["chi2"], rel=rel)
    assert s.df == 5
    assert s.pvalue == pytest.approx(ref["mauchly_p"], rel=rel)
    # R's mauchly.test / car add Anderson's second-order term to the p-value; SPSS (seed 000) and
    # this module report the plain chi-square tail. Documented difference, asserted so it is seen:
    assert s.pvalue != pytest.approx(ref["mauchly_p_r2"], rel=1e-4)
    assert s.epsilon_gg == pytest.approx(ref["gg"], rel=rel)
    assert s.epsilon_hf == pytest.approx(min(1.0, ref["hf_raw"]), rel=rel)
    assert s.epsilon_lb == pytest.approx(1 / 3, rel=1e-15)

    c = r.corrections
    assert tuple(c) == CORRECTION_NAMES
    assert (c["none"].df1, c["none"].df2) == (3.0, 33.0)
    assert c["none"].pvalue == pytest.approx(ref["p"], rel=rel)
    assert c["greenhouse_geisser"].pvalue == pytest.approx(ref["p_gg"], rel=rel)
    assert c["greenhouse_geisser"].df1 == pytest.approx(ref["gg_df1"], rel=rel)
    assert c["greenhouse_geisser"].df2 == pytest.approx(ref["gg_df2"], rel=rel)
    assert c["huynh_feldt"].pvalue == pytest.approx(ref["p_hf"], rel=rel)
    if "hf_df1" in ref:
        assert c["huynh_feldt"].df1 == pytest.approx(ref["hf_df1"], rel=rel)
        assert c["huynh_feldt"].df2 == pytest.approx(ref["hf_df2"], rel=rel)
    assert (c["lower_bound"].df1, c["lower_bound"].df2) == pytest.approx((1.0, 11.0), rel=1e-14)
    assert c["lower_bound"].pvalue == pytest.approx(ref["p_lb"], rel=rel)
    assert r.warnings == ()
    json.dumps(to_jsonable(r))


def test_apply_sphericity_on_r_data():
    sph = rm_anova(SPHERICAL)
    d = apply_sphericity(sph, "auto", 0.05)
    # Mauchly p = 0.679 >= 0.05 (R values above): no correction
    assert d.correction_applied == "none"
    assert (d.df1, d.df2, d.pvalue_corrected) == (3.0, 33.0, sph.pvalue)
    assert d.reason == (
        "Mauchly's test does not reject sphericity (W = 0.72, p = 0.68 >= 0.05), "
        "so the sphericity-assumed F test applies."
    )
    non = rm_anova(NONSPHERICAL)
    d = apply_sphericity(non, "auto", 0.05)
    # Mauchly p = 1.4e-05 < 0.05 and GG epsilon 0.41 <= 0.75: Greenhouse-Geisser (car p = 0.0318)
    assert d.correction_applied == "greenhouse_geisser"
    assert d.pvalue_corrected == pytest.approx(R_RM["nonspherical"]["p_gg"], rel=1e-9)
    assert d.df1 == pytest.approx(R_RM["nonspherical"]["gg_df1"], rel=1e-9)
    assert d.reason == (
        "Mauchly's test rejects sphericity (W = 0.045, p < 0.001) and the Greenhouse-Geisser "
        "epsilon 0.41 <= 0.75, so the Greenhouse-Geisser correction applies."
    )
    forced = apply_sphericity(non, "huynh_feldt", 0.05)
    assert forced.correction_applied == "huynh_feldt"
    assert forced.pvalue_corrected == pytest.approx(R_RM["nonspherical"]["p_hf"], rel=1e-9)
    assert forced.reason == "The Huynh-Feldt correction (epsilon = 0.438) is applied by configuration."
    forced = apply_sphericity(sph, "greenhouse_geisser", 0.05)
    assert forced.pvalue_corrected == pytest.approx(R_RM["spherical"]["p_gg"], rel=1e-9)
    none = apply_sphericity(non, "none", 0.05)
    assert none.correction_applied == "none" and none.pvalue_corrected == non.pvalue


def test_apply_sphericity_huynh_feldt_branch_and_threshold():
    # Decision logic only: the non-spherical result with Mauchly rejecting and GG moved around 0.75.
    base = rm_anova(NONSPHERICAL)

    def with_gg(gg: float):
        return dataclasses.replace(base, sphericity=dataclasses.replace(base.sphericity, epsilon_gg=gg))

    d = apply_sphericity(with_gg(0.8), "auto", 0.05)
    assert d.correction_applied == "huynh_feldt"
    assert d.pvalue_corrected == base.corrections["huynh_feldt"].pvalue
    assert "epsilon 0.8 > 0.75, so the Huynh-Feldt correction applies." in d.reason
    d = apply_sphericity(with_gg(0.75), "auto", 0.05)  # "exceeds 0.75" is strict
    assert d.correction_applied == "greenhouse_geisser"
    assert "epsilon 0.75 <= 0.75" in d.reason
    d = apply_sphericity(with_gg(0.7504), "auto", 0.05)  # digits added until the order shows
    assert "epsilon 0.7504 > 0.75" in d.reason
    # alpha matters: the spherical data's Mauchly p = 0.679 is below alpha = 0.7
    d = apply_sphericity(rm_anova(SPHERICAL), "auto", 0.7)
    assert d.correction_applied == "huynh_feldt"  # GG 0.823 > 0.75
    assert d.reason.startswith("Mauchly's test rejects sphericity (W = 0.72, p = 0.68 < 0.7)")


def test_apply_sphericity_rejects_unknown_mode():
    r = rm_anova(SPHERICAL)
    with pytest.raises(ValueError):
        apply_sphericity(r, "lower_bound", 0.05)
    with pytest.raises(ValueError):
        apply_sphericity(r, "auto", 1.5)


# ---------------------------------------------------------------------------------------------
# Seed 000's SPSS output (24 summarizers x 100 texts)
# ---------------------------------------------------------------------------------------------


def test_spss_corrected_pvalues_from_printed_f_and_epsilons():
    # Seed 000, Tables 4-5: F = 3.601, df (23, 2277); epsilons GG .216, HF .228, LB .043;
    # Sig.: sphericity assumed .000, GG .003, HF .003, lower bound .061.
    f, df1, df2 = 3.601, 23.0, 23.0 * 99.0
    assert round(_corrected(f, df1, df2, 1.0).pvalue, 3) == 0.000
    assert round(_corrected(f, df1, df2, 0.216).pvalue, 3) == 0.003
    assert round(_corrected(f, df1, df2, 0.228).pvalue, 3) == 0.003
    lb = _corrected(f, df1, df2, 1 / 23)
    assert (lb.df1, lb.df2) == pytest.approx((1.0, 99.0), rel=1e-14)
    assert round(lb.pvalue, 3) == 0.061
    # R 4.2.2: pf(3.601, 23 * .216, 99 * 23 * .216, lower.tail = FALSE) = 0.003368155
    assert _corrected(f, df1, df2, 0.216).pvalue == pytest.approx(0.003368155, rel=1e-6)


def test_spss_huynh_feldt_consistent_with_printed_gg():
    # Seed 000, Table 4: GG .216 (so 0.2155 <= GG < 0.2165) and HF .228 with n = 100, k = 24.
    # car's / SPSS's HF formula maps the bottom of that interval to .228; a formula with n - 1 in
    # the numerator would give .226.
    assert round(_huynh_feldt(0.2155, 100, 24), 3) == 0.228
    assert _huynh_feldt(0.2155, 100, 24) == pytest.approx((100 * 23 * 0.2155 - 2) / (23 * (99 - 23 * 0.2155)))


def test_rm_anova_24x100_near_singular():
    x = spss_like_24x100()
    r = rm_anova(x)
    assert (r.n, r.k, r.df1, r.df2) == (100, 24, 23.0, 2277.0)
    # R 4.2.2, car 3.1-1 (Y as in spss_like_24x100's docstring):
    #   s <- summary(Anova(lm(Y ~ 1), idata = data.frame(system = factor(1:24)), idesign = ~system,
    #                type = 3), multivariate = FALSE)
    # car warns "one or more error SSP matrix: corresponding non-sphericity tests and corrections
    # not available" and prints F = 16.4736889566007, Pr(>F) = 1.19532822038958e-60.
    assert r.statistic == pytest.approx(16.4736889566007, rel=1e-9)
    assert r.pvalue == pytest.approx(1.19532822038958e-60, rel=1e-8)
    s = r.sphericity
    # Like SPSS's W = .000 and chi-square '.': W = 0, chi2 and p not computable.
    # (stats::mauchly.test(lm(Y ~ 1), X = ~1) prints a meaningless W = 5.95e-34, p < 2.2e-16.)
    assert s.mauchly_w == 0.0 and s.chi2 is None and s.pvalue is None
    assert s.df == 275  # SPSS Table 3: df 275 = 23 * 24 / 2 - 1
    assert any("Mauchly's test is not computable" in w and "singular" in w for w in r.warnings)
    # car refuses the epsilons here; car's own GG/HF code applied to the same SSPE in R:
    #   a <- Anova(lm(Y ~ 1), idata = data.frame(system = factor(1:24)), idesign = ~system, type = 3)
    #   SSPE <- a$SSPE$system; P <- a$P$system; p <- nrow(SSPE)
    #   lambda <- Re(eigen(SSPE %*% solve(t(P) %*% P))$values); lambda <- lambda[lambda > 0]
    #   gg <- ((sum(lambda)/p)^2)/(sum(lambda^2)/p)
    #   hf <- ((a$error.df + 1) * p * gg - 2)/(p * (a$error.df - p * gg))
    #   pf(F, gg * 23, gg * 2277, lower.tail = FALSE); pf(F, hf * 23, hf * 2277, lower.tail = FALSE)
    #   pf(F, 1, 99, lower.tail = FALSE)
    assert s.epsilon_gg == pytest.approx(0.19424686475278, rel=1e-9)
    assert s.epsilon_hf == pytest.approx(0.204562096029934, rel=1e-9)
    assert s.epsilon_lb == pytest.approx(1 / 23, rel=1e-15)  # SPSS: .043
    assert r.corrections["greenhouse_geisser"].pvalue == pytest.approx(1.07873346585066e-13, rel=1e-7)
    assert r.corrections["huynh_feldt"].pvalue == pytest.approx(2.66830985764725e-14, rel=1e-7)
    assert r.corrections["lower_bound"].pvalue == pytest.approx(9.86387484775709e-05, rel=1e-9)
    # Seed 000's reading: '.' means sphericity is violated; GG epsilon <= 0.75 -> Greenhouse-Geisser.
    d = apply_sphericity(r, "auto", 0.05)
    assert d.correction_applied == "greenhouse_geisser"
    assert d.pvalue_corrected == r.corrections["greenhouse_geisser"].pvalue
    assert d.reason == (
        "Mauchly's test cannot be computed (W = 0), which is treated as a violation of sphericity, "
        "and the Greenhouse-Geisser epsilon 0.19 <= 0.75, so the Greenhouse-Geisser correction applies."
    )
    json.dumps(to_jsonable(r))


def test_rm_anova_mauchly_w_underflow_keeps_chi2_finite():
    # 60 systems x 100 items, one system with 10^4 times the spread of the others:
    # log W = -853 so W underflows to 0.0 in double precision, but chi2 is computed from log W.
    y = pseudo(100, 60)
    y[:, 0] *= 1e4
    r = rm_anova(y)
    s = r.sphericity
    # R 4.2.2 (Y <- pseudo(100, 60); Y[, 1] <- Y[, 1] * 1e4):
    #   C <- contr.helmert(60); C <- sweep(C, 2, sqrt(colSums(C^2)), "/")
    #   SSD <- crossprod(scale(Y, scale = FALSE) %*% C); p <- 59; nd <- 99
    #   logW <- determinant(SSD, logarithm = TRUE)$modulus[1] - p * log(sum(diag(SSD)) / p)  # -853.174168813429
    #   -(nd - (2 * p^2 + p + 2) / (6 * p)) * logW                                           # 67538.134838019
    # car's summary(..., multivariate = FALSE) prints W = 0, p = 0 and GG eps 1.69491715692270e-02.
    assert s.mauchly_w == 0.0
    assert s.chi2 == pytest.approx(67538.134838019, rel=1e-9)
    assert s.df == 1769 and s.pvalue == 0.0
    assert s.epsilon_gg == pytest.approx(1.69491715692270e-02, rel=1e-9)
    assert r.statistic == pytest.approx(307.500538385022, rel=1e-9)  # car: F value
    assert r.corrections["greenhouse_geisser"].pvalue == pytest.approx(3.95952529822295e-32, rel=1e-7)  # car
    assert r.warnings == ()


# ---------------------------------------------------------------------------------------------
# Repeated-measures ANOVA: other degenerate cases
# ---------------------------------------------------------------------------------------------


def test_rm_anova_k_minus_1_at_least_n():
    x = pseudo(5, 8)  # n = 5 items, k = 8 systems
    r = rm_anova(x)
    # R 4.2.2 car 3.1-1 on Y <- pseudo(5, 8): F value 1.159223019094464, Pr(>F) 0.356740342260307,
    # and "corresponding non-sphericity tests and corrections not available". GG/HF with car's
    # code applied to the SSPE as in test_rm_anova_24x100_near_singular: GG 0.402297866426109,
    # HF 1.45768500368747 (capped at 1), pf(F, 7 gg, 28 gg) = 0.365234037810624,
    # pf(F, 1, 4) = 0.342231703539176.
    assert r.statistic == pytest.approx(1.159223019094464, rel=1e-9)
    assert r.pvalue == pytest.approx(0.356740342260307, rel=1e-9)
    s = r.sphericity
    assert s.mauchly_w is None and s.chi2 is None and s.pvalue is None  # SPSS prints '.'
    assert s.epsilon_gg == pytest.approx(0.402297866426109, rel=1e-9)
    assert s.epsilon_hf == 1.0
    assert r.corrections["greenhouse_geisser"].pvalue == pytest.approx(0.365234037810624, rel=1e-9)
    assert r.corrections["huynh_feldt"].pvalue == pytest.approx(0.356740342260307, rel=1e-9)
    assert r.corrections["lower_bound"].pvalue == pytest.approx(0.342231703539176, rel=1e-9)
    assert any("needs more items than systems minus one (n = 5, k - 1 = 7)" in w for w in r.warnings)
    d = apply_sphericity(r, "auto", 0.05)
    assert d.correction_applied == "greenhouse_geisser"
    assert d.reason.startswith("Mauchly's test cannot be computed, which is treated as a violation")


def test_rm_anova_two_systems_is_paired_t_squared():
    a, b = NONSPHERICAL[:, 0], NONSPHERICAL[:, 3]
    r = rm_anova(np.column_stack([a, b]))
    t = sps.ttest_rel(a, b)  # scipy 1.17.1, independent implementation: F = t^2, same p
    assert r.statistic == pytest.approx(t.statistic**2, rel=1e-12)
    assert r.pvalue == pytest.approx(t.pvalue, rel=1e-10)
    s = r.sphericity
    assert (s.mauchly_w, s.chi2, s.df, s.pvalue) == (1.0, 0.0, 0, None)
    assert (s.epsilon_gg, s.epsilon_hf, s.epsilon_lb) == (1.0, 1.0, 1.0)
    assert all(c.pvalue == r.pvalue for c in r.corrections.values())
    assert any("sphericity holds trivially" in w for w in r.warnings)
    d = apply_sphericity(r, "auto", 0.05)
    assert d.correction_applied == "none" and "two systems" in d.reason


def test_rm_anova_zero_error_variance():
    x = np.arange(6.0)[:, None] * 0.1 + np.array([0.10, 0.20, 0.35])  # item + system, no noise
    r = rm_anova(x)
    assert r.statistic is None and r.pvalue is None
    assert r.ss_error == 0.0
    assert r.effect_size.value == 1.0
    assert r.sphericity.epsilon_gg is None and r.sphericity.mauchly_w is None
    assert all(c.pvalue is None for c in r.corrections.values())
    assert any("error variance is zero" in w for w in r.warnings)
    d = apply_sphericity(r, "auto", 0.05)
    assert d.pvalue_corrected is None and "cannot be computed" in d.reason
    const = rm_anova(np.full((5, 3), 0.4))
    assert const.effect_size.value is None and len(const.warnings) == 2
    json.dumps(to_jsonable(const))


@pytest.mark.parametrize("shape", [(1, 4), (0, 4), (6, 1), (6, 0)])
def test_rm_anova_too_small(shape):
    r = rm_anova(np.zeros(shape))
    assert r.statistic is None and r.pvalue is None
    assert r.warnings and "needs at least two" in r.warnings[0]
    json.dumps(to_jsonable(r))


def test_rm_anova_rejects_bad_input():
    with pytest.raises(ValueError):
        rm_anova(np.arange(5.0))
    with pytest.raises(ValueError):
        rm_anova(np.array([[1.0, np.inf], [2.0, 3.0]]))


# ---------------------------------------------------------------------------------------------
# Repeated-measures ANOVA: properties
# ---------------------------------------------------------------------------------------------

float_scores = hnp.arrays(
    np.float64,
    st.tuples(st.integers(2, 10), st.integers(2, 6)),
    elements=st.floats(-10, 10, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 3)),
)


@settings(max_examples=150, deadline=None)
@given(float_scores)
def test_rm_anova_pvalues_and_epsilons_in_range(x):
    r = rm_anova(x)
    ps = [r.pvalue, r.sphericity.pvalue] + [c.pvalue for c in r.corrections.values()]
    assert all(p is None or 0.0 <= p <= 1.0 for p in ps)
    s = r.sphericity
    if s.epsilon_gg is not None:
        lb = 1 / (r.k - 1)
        assert lb - 1e-12 <= s.epsilon_gg <= 1 + 1e-12
        assert s.epsilon_gg - 1e-12 <= s.epsilon_hf <= 1.0
    if s.mauchly_w is not None:
        assert 0.0 <= s.mauchly_w <= 1.0
    if r.statistic is None or s.pvalue is None:
        assert r.warnings
    json.dumps(to_jsonable(r))


@settings(max_examples=100, deadline=None)
@given(float_scores, st.randoms(use_true_random=False))
def test_rm_anova_invariances(x, rnd):
    base = rm_anova(x)
    perm = list(range(x.shape[1]))
    rnd.shuffle(perm)
    item_shift = np.linspace(-3, 5, x.shape[0])[:, None]
    for other in (rm_anova(x[:, perm]), rm_anova(x + item_shift), rm_anova(2.5 * x + 1.0)):
        if base.statistic is None:
            continue  # zero error variance can flip with rounding noise; covered above
        assert other.statistic == pytest.approx(base.statistic, rel=1e-6, abs=1e-9)
        for name in ("epsilon_gg", "epsilon_hf"):
            assert getattr(other.sphericity, name) == pytest.approx(getattr(base.sphericity, name), rel=1e-6)
        if base.sphericity.chi2 is not None and other.sphericity.chi2 is not None:
            assert other.sphericity.mauchly_w == pytest.approx(base.sphericity.mauchly_w, rel=1e-6, abs=1e-12)
