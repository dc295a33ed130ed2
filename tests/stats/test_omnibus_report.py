"""Additions to sigreport.stats.omnibus: R's second-order Mauchly p, the uncapped
Huynh-Feldt epsilon, the full RM-ANOVA table and generalized eta squared.

References (hard-coded; nothing here runs R):
- R 4.2.2 (Debian r-base-core) ``stats::mauchly.test`` on R's own example (``?mauchly.test``:
  ``utils::example(SSD)`` gives ``reacttime``, 10 subjects x 6 conditions, and ``mlmfit``);
  car 3.1-1 ``summary(Anova(...), multivariate = FALSE)``; afex 1.2-1 ``aov_ez`` with
  ``anova_table = list(es = c("ges", "pes"))``; ``summary(aov(y ~ system + Error(item/system)))``.
- pingouin 0.7.0 ``sphericity`` and ``rm_anova(detailed=True)`` (Python, run once; not a test
  dependency).
"""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats.omnibus import (
    MAUCHLY_P_VARIANTS,
    apply_sphericity,
    mauchly_pvalue_second_order,
    rm_anova,
)

from test_omnibus import NONSPHERICAL, R_RM, SPHERICAL

# R: utils::example(SSD); reacttime (Baron & Li, after Maxwell & Delaney p. 497), typed in as printed.
REACTTIME = np.array(
    [
        [420, 420, 480, 480, 600, 780], [420, 480, 480, 360, 480, 600], [480, 480, 540, 660, 780, 780],
        [420, 540, 540, 480, 780, 900], [540, 660, 540, 480, 660, 720], [360, 420, 360, 360, 480, 540],
        [480, 480, 600, 540, 720, 840], [480, 600, 660, 540, 720, 900], [540, 600, 540, 480, 720, 780],
        [480, 420, 540, 540, 660, 780],
    ],
    dtype=float,
)


def test_mauchly_r_example_second_and_first_order():
    r = rm_anova(REACTTIME)
    # R 4.2.2: m <- mauchly.test(mlmfit, X = ~1); options(digits = 15)
    #   m$statistic = 0.0310844593826879; m$p.value = 0.0476518670320657
    assert r.sphericity.mauchly_w == pytest.approx(0.0310844593826879, rel=1e-9)
    assert r.sphericity_detail.pvalue_second_order == pytest.approx(0.0476518670320657, rel=1e-9)
    # R: chi2 <- -(9 - (2*5^2 + 5 + 2)/(6*5)) * log(W) = 24.6444357092546;
    #    pchisq(chi2, 14, lower.tail = FALSE) = 0.0382442220022058 (SPSS's first-order p)
    assert r.sphericity.chi2 == pytest.approx(24.6444357092546, rel=1e-9)
    assert r.sphericity.pvalue == pytest.approx(0.0382442220022058, rel=1e-9)
    assert r.sphericity_detail.pvalue_first_order == r.sphericity.pvalue
    assert r.sphericity_detail.reported == "second_order"
    # pingouin 0.7.0: pg.sphericity(pd.DataFrame(REACTTIME)).pval = 0.04765186703427082
    assert r.sphericity_detail.pvalue_second_order == pytest.approx(0.04765186703427082, rel=1e-12)


@pytest.mark.parametrize("name,x", [("spherical", SPHERICAL), ("nonspherical", NONSPHERICAL)])
def test_mauchly_second_order_matches_car(name, x):
    # car 3.1-1 / stats::mauchly.test values already recorded in test_omnibus.R_RM
    r = rm_anova(x)
    assert r.sphericity_detail.pvalue_second_order == pytest.approx(R_RM[name]["mauchly_p_r2"], rel=1e-10)


def test_mauchly_second_order_term_vanishes_for_two_contrasts():
    # w2 has the factor (p - 2): with k = 3 systems both approximations agree.
    from scipy import stats as sps

    assert mauchly_pvalue_second_order(4.2, 2, 11) == pytest.approx(float(sps.chi2.sf(4.2, 2)), rel=1e-14)


def test_huynh_feldt_uncapped_matches_car():
    # car 3.1-1: s$pval.adjustments[, "HF eps"] = 0.67780749156231 (R example), and for the
    # spherical data 1.07929775450975 (> 1: car prints it uncapped, caps it for the p-value)
    assert rm_anova(REACTTIME).sphericity_detail.epsilon_hf_uncapped == pytest.approx(0.67780749156231, rel=1e-12)
    r = rm_anova(SPHERICAL)
    assert r.sphericity_detail.epsilon_hf_uncapped == pytest.approx(R_RM["spherical"]["hf_raw"], rel=1e-12)
    assert r.sphericity.epsilon_hf == 1.0  # the capped value used for the corrected p
    assert rm_anova(NONSPHERICAL).sphericity_detail.epsilon_hf_uncapped == pytest.approx(
        R_RM["nonspherical"]["hf_raw"], rel=1e-12)


def test_anova_table_and_generalized_eta_squared_r_example():
    r = rm_anova(REACTTIME)
    rows = {row.source: row for row in r.table}
    # R: summary(aov(y ~ system + Error(item/system), data = long)):
    #   Error: item       Df 9,  Sum Sq 292140, Mean Sq 32460
    #   system            Df 5,  Sum Sq 680700, Mean Sq 136140, F 38.02793
    #   Residuals         Df 45, Sum Sq 161100, Mean Sq 3580
    assert (rows["systems"].ss, rows["systems"].df, rows["systems"].ms) == pytest.approx((680700, 5, 136140), rel=1e-12)
    assert (rows["items"].ss, rows["items"].df, rows["items"].ms) == pytest.approx((292140, 9, 32460), rel=1e-12)
    assert (rows["error"].ss, rows["error"].df, rows["error"].ms) == pytest.approx((161100, 45, 3580), rel=1e-12)
    assert rows["total"].ss == pytest.approx(680700 + 292140 + 161100, rel=1e-12) and rows["total"].df == 59
    # afex 1.2-1: aov_ez("item", "y", long, within = "system",
    #   anova_table = list(es = c("ges", "pes"), correction = "none"))$anova_table:
    #   pes 0.808624376336422, ges 0.600296311974179; pingouin 0.7.0 rm_anova ng2 0.600296
    assert r.generalized_eta_squared.value == pytest.approx(0.600296311974179, rel=1e-12)
    assert r.effect_size.value == pytest.approx(0.808624376336422, rel=1e-12)


@pytest.mark.parametrize(
    "x,ges,ss_items,ms_items",
    [
        # afex 1.2-1 aov_ez(..., es = "ges") and summary(aov(...))[["Error: item"]] on the data of
        # test_omnibus (SPHERICAL, NONSPHERICAL written to CSV with numpy and read by read.csv)
        (SPHERICAL, 0.103058619345265, 0.237278166666667, 0.0215707424242424),
        (NONSPHERICAL, 0.0421782095675913, 0.487176666666666, 0.0442887878787878),
    ],
)
def test_generalized_eta_squared_matches_afex(x, ges, ss_items, ms_items):
    r = rm_anova(x)
    items = next(row for row in r.table if row.source == "items")
    assert r.generalized_eta_squared.value == pytest.approx(ges, rel=1e-11)
    assert items.ss == pytest.approx(ss_items, rel=1e-11)
    assert items.ms == pytest.approx(ms_items, rel=1e-11)
    assert r.generalized_eta_squared.value <= r.effect_size.value  # ges <= pes always


def test_apply_sphericity_default_and_r_variant():
    r = rm_anova(REACTTIME)
    first = apply_sphericity(r, "auto", 0.05)
    assert first.mauchly_p == "first_order" and first.mauchly_pvalue == r.sphericity.pvalue
    second = apply_sphericity(r, "auto", 0.05, mauchly_p="r")
    assert second.mauchly_p == "r" and second.mauchly_pvalue == r.sphericity_detail.pvalue_second_order
    assert "p = 0.048" in second.reason and "p = 0.038" in first.reason
    # At alpha = 0.045 the two variants decide differently (0.038 < 0.045 < 0.048).
    assert apply_sphericity(r, "auto", 0.045).correction_applied == "greenhouse_geisser"
    assert apply_sphericity(r, "auto", 0.045, mauchly_p="r").correction_applied == "none"
    assert MAUCHLY_P_VARIANTS == ("first_order", "r")
    with pytest.raises(ValueError, match="mauchly_p"):
        apply_sphericity(r, "auto", 0.05, mauchly_p="second")


def test_degenerate_inputs_keep_detail_fields_defined():
    r = rm_anova(np.array([[1.0, 2.0], [2.0, 3.5], [0.5, 1.0]]))  # k = 2: sphericity trivially holds
    assert r.sphericity_detail.epsilon_hf_uncapped == 1.0
    assert r.sphericity_detail.pvalue_second_order is None
    r1 = rm_anova(np.array([[1.0, 2.0, 3.0]]))  # n = 1: nothing computable, defaults stay
    assert r1.table == () and r1.generalized_eta_squared.value is None
