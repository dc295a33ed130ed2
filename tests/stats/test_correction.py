"""Tests of sigreport.stats.correction.adjust against R 4.2.2 ``p.adjust`` (run once offline)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigreport.stats.correction import METHODS, adjust

P = np.array([0.01, 0.02, 0.03, 0.04, 0.05, 0.5, 0.001, 0.03, 0.2, 0.9])  # includes a tie (0.03)

# R: p <- c(0.01, 0.02, 0.03, 0.04, 0.05, 0.5, 0.001, 0.03, 0.2, 0.9); p.adjust(p, m)
R_P_ADJUST = {
    "bonferroni": [0.1, 0.2, 0.3, 0.4, 0.5, 1, 0.01, 0.3, 1, 1],
    "holm": [0.09, 0.16, 0.21, 0.21, 0.21, 1, 0.01, 0.21, 0.6, 1],
    "hochberg": [0.09, 0.16, 0.18, 0.2, 0.2, 0.9, 0.01, 0.18, 0.6, 0.9],
    "fdr_bh": [0.05, 0.06, 0.06, 0.066666666666666666, 0.071428571428571438, 0.55555555555555558, 0.01,
               0.06, 0.25, 0.9],  # method "BH"
    "fdr_by": [0.14644841269841269, 0.17573809523809522, 0.17573809523809522, 0.19526455026455025,
               0.20921201814058957, 1, 0.029289682539682539, 0.17573809523809522, 0.73224206349206344,
               1],  # method "BY"
    "none": [0.01, 0.02, 0.03, 0.04, 0.05, 0.5, 0.001, 0.03, 0.2, 0.9],
    # R 4.2.2 (Debian): dput(p.adjust(p, "hommel"))
    "hommel": [0.08, 0.1, 0.125, 0.16, 0.2, 0.9, 0.01, 0.125, 0.6, 0.9],
}


@pytest.mark.parametrize("method", METHODS)
def test_against_r_p_adjust(method):
    np.testing.assert_allclose(adjust(P, method), R_P_ADJUST[method], rtol=1e-12)


@pytest.mark.parametrize("method,ref", [
    # R: p.adjust(c(0.04, NA, 0.01, 0.03), "holm")  (NA is left out of the family: n = 3)
    ("holm", [0.06, np.nan, 0.03, 0.06]),
    # R: p.adjust(c(0.04, NA, 0.01, 0.03), "BY")
    ("fdr_by", [0.073333333333333334, np.nan, 0.055, 0.073333333333333334]),
    # R 4.2.2: dput(p.adjust(c(0.04, NA, 0.01, 0.03), "hommel"))
    ("hommel", [0.04, np.nan, 0.03, 0.04]),
])
def test_missing_values_like_r(method, ref):
    np.testing.assert_allclose(adjust(np.array([0.04, np.nan, 0.01, 0.03]), method), ref, rtol=1e-12)


def test_unknown_method_raises():
    with pytest.raises(ValueError):
        adjust(P, "BH")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30), st.sampled_from(METHODS))
def test_adjusted_at_least_raw_and_at_most_one(ps, method):
    p = np.array(ps)
    q = adjust(p, method)
    assert np.all(q >= p - 1e-15)
    assert np.all(q <= 1.0)
    # order-preserving: a smaller raw p never gets a larger adjusted p
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(q[order]) >= -1e-15)


def test_hommel_against_r_longer_family_and_two_hypotheses():
    # R 4.2.2 (Debian r-base-core): q <- c(0.0001, 0.011, 0.012, 0.013, 0.045, 0.046, 0.2, 0.35,
    #   0.36, 0.6, 0.61, 0.9); dput(p.adjust(q, "hommel"))
    q = np.array([0.0001, 0.011, 0.012, 0.013, 0.045, 0.046, 0.2, 0.35, 0.36, 0.6, 0.61, 0.9])
    ref = [0.0012, 0.099, 0.108, 0.117, 0.315, 0.322, 0.8, 0.9, 0.9, 0.9, 0.9, 0.9]
    np.testing.assert_allclose(adjust(q, "hommel"), ref, rtol=1e-12)
    # R: dput(p.adjust(c(0.04, 0.01), "hommel")) -> c(0.04, 0.02) (R switches to Hochberg at n = 2)
    np.testing.assert_allclose(adjust(np.array([0.04, 0.01]), "hommel"), [0.04, 0.02], rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_hommel_between_hochberg_and_bonferroni_bounds(ps):
    # Hommel (1988) is uniformly more powerful than Hochberg: adjusted p never above Hochberg's.
    p = np.array(ps)
    assert np.all(adjust(p, "hommel") <= adjust(p, "hochberg") + 1e-12)
