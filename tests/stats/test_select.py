"""The automatic choice of test (sigreport.stats.select): every branch, with recorded numbers.

Shapiro-Wilk p-values are checked against R 4.2.2 (Debian r-base-core) ``shapiro.test`` run with
``options(digits = 17)``; the calls are next to the values. scipy's Cython port of AS R94 and
R's C implementation agree to about 9 significant digits (the algorithm's polynomial
approximations carry single-precision constants), so those comparisons use rel = 1e-7.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sigreport.stats.result import to_jsonable
from sigreport.stats.select import (
    Selection,
    SelectionStep,
    additive_residuals,
    choose_omnibus,
    choose_pairwise,
    posthoc_for,
)

SW_REL = 1e-7  # scipy vs R Shapiro-Wilk, see module docstring

# differences of three pairs on 10 items
D_NORMAL = [0.012, -0.020, 0.031, 0.004, 0.018, -0.009, 0.015, 0.006, -0.003, 0.024]
D_NORMAL2 = [0.010, 0.012, 0.008, 0.011, 0.009, 0.013, 0.010, 0.007, 0.012, 0.011]
D_OUTLIER = [0.010, 0.010, 0.020, 0.010, 0.010, 0.020, 0.010, 0.010, 0.010, 0.300]
# R: shapiro.test(D_NORMAL)$p.value, shapiro.test(D_NORMAL2)$p.value,
#    shapiro.test(D_OUTLIER)$p.value
P_NORMAL, P_NORMAL2, P_OUTLIER = 0.99134154824569354, 0.83527039945255277, 2.1962077409185027e-07

# 8 items x 3 systems
X3 = np.array([[0.61, 0.58, 0.55], [0.72, 0.70, 0.64], [0.55, 0.57, 0.50], [0.66, 0.61, 0.60],
               [0.70, 0.69, 0.62], [0.59, 0.54, 0.53], [0.64, 0.63, 0.58], [0.68, 0.64, 0.61]])


def outcomes(sel: Selection) -> list[str]:
    return [s.outcome.split(":")[0] for s in sel.steps]


# --------------------------------------------------------------------------- choose_pairwise


def test_pairwise_many_items_chooses_t_without_testing_normality():
    # 30 items of a very skewed difference: Shapiro would reject, but n >= 30 decides
    d = np.arange(30.0) ** 4
    sel = choose_pairwise(d)
    assert sel.method == "paired_t"
    assert sel.steps == (SelectionStep(check="number of items n", value=30.0, threshold=30.0,
                                       outcome=sel.steps[0].outcome),)
    assert sel.steps[0].outcome.startswith("pass")
    assert choose_pairwise(d[:29]).method == "wilcoxon"  # one item fewer: the check runs


def test_pairwise_all_pairs_pass_shapiro_gives_paired_t():
    d = np.column_stack([D_NORMAL, D_NORMAL2])
    sel = choose_pairwise(d, alpha=0.05, labels=["A - B", "A - C"])
    assert sel.method == "paired_t"
    assert outcomes(sel) == ["fail", "pass", "pass", "chosen"]
    n_step, sw1, sw2, family = sel.steps
    assert (n_step.value, n_step.threshold) == (10.0, 30.0)
    assert sw1.check == "Shapiro-Wilk p of the differences, A - B"
    assert sw1.value == pytest.approx(P_NORMAL, rel=SW_REL)  # R shapiro.test, see top
    assert sw2.value == pytest.approx(P_NORMAL2, rel=SW_REL)
    assert sw1.threshold == 0.05
    assert (family.value, family.threshold) == (2.0, 2.0)


def test_pairwise_one_failing_pair_gives_wilcoxon_for_the_family():
    d = np.column_stack([D_NORMAL, D_OUTLIER, D_NORMAL2])
    sel = choose_pairwise(d, labels=["A - B", "A - C", "B - C"])
    assert sel.method == "wilcoxon"
    assert outcomes(sel) == ["fail", "pass", "fail", "pass", "chosen"]
    assert sel.steps[2].value == pytest.approx(P_OUTLIER, rel=SW_REL)  # R shapiro.test
    assert (sel.steps[-1].value, sel.steps[-1].threshold) == (2.0, 3.0)
    assert "A - C" in sel.reason and "A - B" not in sel.reason


def test_pairwise_alpha_is_the_threshold():
    d = np.asarray(D_NORMAL2)
    # R: shapiro.test(D_NORMAL2)$p.value = 0.83527...; pass at alpha = 0.8, fail at 0.9
    assert choose_pairwise(d, alpha=0.8).method == "paired_t"
    sel = choose_pairwise(d, alpha=0.9)
    assert sel.method == "wilcoxon" and sel.steps[1].threshold == 0.9
    # p exactly equal to alpha passes (reject normality only when p < alpha)
    p = sel.steps[1].value
    assert choose_pairwise(d, alpha=p).method == "paired_t"


def test_pairwise_too_few_items_is_undefined_and_gives_wilcoxon():
    sel = choose_pairwise(np.array([[0.1, 0.3], [0.2, -0.1]]))
    assert sel.method == "wilcoxon"
    assert outcomes(sel) == ["fail", "undefined", "undefined", "chosen"]
    assert sel.steps[1].value is None and sel.steps[2].value is None
    assert sel.steps[-1].value == 0.0


def test_pairwise_constant_differences_are_undefined_and_give_wilcoxon():
    d = np.column_stack([D_NORMAL, np.full(10, 0.02)])
    sel = choose_pairwise(d)
    assert sel.method == "wilcoxon"
    assert outcomes(sel) == ["fail", "pass", "undefined", "chosen"]
    assert sel.steps[2].value is None and "zero variance" in sel.steps[2].outcome
    # floating-point noise (0.1 - 0.3 vs 0.2 - 0.4) is constant too
    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    noisy = a - (a + 0.2)
    assert np.ptp(noisy) > 0
    assert outcomes(choose_pairwise(noisy))[1] == "undefined"


def test_pairwise_nearly_constant_but_real_spread_is_tested():
    # one differing item among nine equal ones is data, not noise: tested and rejected
    d = np.array([0.02] * 9 + [0.03])
    sel = choose_pairwise(d)
    # R: shapiro.test(c(rep(0.02, 9), 0.03))$p.value
    assert sel.steps[1].value == pytest.approx(1.0036928138890686e-07, rel=SW_REL)
    assert sel.method == "wilcoxon"


def test_pairwise_tiny_scale_differences_are_judged_not_waved_through():
    # scipy.stats.shapiro alone returns p = 1 ("range zero") for a range below 1e-19;
    # W is scale invariant, so the outlier must still be detected at scale 1e-20
    tiny = np.asarray(D_OUTLIER) * 1e-20
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sel = choose_pairwise(tiny)
    # R: shapiro.test(D_OUTLIER)$p.value (the same data at scale 1)
    assert sel.steps[1].value == pytest.approx(P_OUTLIER, rel=SW_REL)
    assert sel.method == "wilcoxon"


@pytest.mark.parametrize(
    "call",
    [
        lambda: choose_pairwise(np.zeros((5, 2, 2))),
        lambda: choose_pairwise(np.zeros((0, 2))),
        lambda: choose_pairwise(np.array([0.1, np.nan, 0.2])),
        lambda: choose_pairwise(np.zeros((5, 2)), labels=["only one"]),
        lambda: choose_pairwise(np.zeros((5, 2)), alpha=0),
        lambda: choose_omnibus(np.zeros(5)),
        lambda: choose_omnibus(np.array([[0.1, np.inf, 0.2]])),
        lambda: choose_omnibus(X3, alpha=1),
        lambda: posthoc_for("anova"),
        lambda: posthoc_for("none"),
        lambda: posthoc_for("friedman", "baseline"),
        lambda: posthoc_for("rm_anova", correction="tukey"),
    ],
)
def test_wrong_arguments_raise(call):
    with pytest.raises(ValueError):
        call()


# --------------------------------------------------------------------------- choose_omnibus


def test_additive_residuals_match_r_lm():
    # R: residuals(lm(y ~ item + sys)) on X3 in long form (item-major), see the module docstring
    expected = np.array([
        0.00041666666666729022, -0.0058333333333336597, 0.0054166666666664092,
        0.0037499999999999214, 0.0074999999999999858, -0.011249999999999911,
        -0.019583333333333362, 0.024166666666666677, -0.0045833333333333203,
        0.0070833333333332497, -0.019166666666666603, 0.012083333333333352,
        0.00041666666666654922, 0.014166666666666708, -0.014583333333333259,
        0.0070833333333331881, -0.019166666666666592, 0.012083333333333389,
        -0.0062500000000000888, 0.0075000000000000743, -0.0012499999999999979,
        0.0070833333333332558, -0.0091666666666666025, 0.0020833333333333372,
    ]).reshape(8, 3)
    np.testing.assert_allclose(additive_residuals(X3), expected, rtol=0, atol=1e-14)


def test_omnibus_two_systems_has_no_omnibus():
    sel = choose_omnibus(X3[:, :2])
    assert sel.method == "none"
    assert len(sel.steps) == 1 and sel.steps[0].value == 2.0 and sel.steps[0].threshold == 3.0
    assert sel.steps[0].outcome.startswith("fail")


def test_omnibus_many_items_chooses_rm_anova_without_testing_normality():
    x = np.column_stack([np.arange(30.0) ** 4, np.arange(30.0), np.exp(np.arange(30.0))])
    sel = choose_omnibus(x)
    assert sel.method == "rm_anova"
    assert outcomes(sel) == ["pass", "pass"]
    assert (sel.steps[1].value, sel.steps[1].threshold) == (30.0, 30.0)


def test_omnibus_normal_residuals_choose_rm_anova():
    sel = choose_omnibus(X3)
    assert sel.method == "rm_anova"
    assert outcomes(sel) == ["pass", "fail", "pass"]
    # R: r <- residuals(lm(y ~ item + sys)); shapiro.test(r)$p.value
    assert sel.steps[2].value == pytest.approx(0.46527605812647693, rel=SW_REL)
    assert sel.steps[2].threshold == 0.05
    assert "sphericity" in sel.reason


def test_omnibus_non_normal_residuals_choose_friedman():
    x = X3.copy()
    x[2, 1] = 0.95
    sel = choose_omnibus(x)
    assert sel.method == "friedman"
    assert outcomes(sel) == ["pass", "fail", "fail"]
    # R: same as above with x[3, 2] <- 0.95 (1-based)
    assert sel.steps[2].value == pytest.approx(7.5408179816633975e-05, rel=SW_REL)


def test_omnibus_exactly_additive_scores_choose_friedman():
    # item effect + system effect, no residual at all (up to rounding)
    x = np.array([0.5, 0.6, 0.7, 0.4, 0.55])[:, None] + np.array([0.0, 0.1, 0.3])[None, :]
    sel = choose_omnibus(x)
    assert sel.method == "friedman"
    assert outcomes(sel) == ["pass", "fail", "undefined"]
    assert sel.steps[2].value is None


def test_omnibus_more_than_5000_residuals_uses_all_and_says_so():
    x = np.random.default_rng(20240603).normal(size=(29, 173))  # 5017 residuals
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scipy's UserWarning must not escape
        sel = choose_omnibus(x)
    assert "approximate" in sel.steps[2].outcome
    assert "approximate" not in choose_omnibus(X3).steps[2].outcome


# --------------------------------------------------------------------------- posthoc_for


@pytest.mark.parametrize(
    "omnibus, comparisons, method",
    [
        ("rm_anova", "all_pairs", "paired"),  # the spec's posthoc name for paired t tests
        ("rm_anova", "vs_baseline", "paired"),
        ("friedman", "all_pairs", "nemenyi"),
        ("friedman", "vs_baseline", "bonferroni_dunn"),
    ],
)
def test_posthoc_fits_the_omnibus(omnibus, comparisons, method):
    sel = posthoc_for(omnibus, comparisons)
    assert sel.method == method
    assert [s.check for s in sel.steps] == ["omnibus test", "comparisons"]
    assert comparisons in sel.steps[1].outcome
    assert "tukey" not in sel.method.lower()


def test_posthoc_after_rm_anova_names_the_correction_and_rejects_tukey():
    sel = posthoc_for("rm_anova", "all_pairs", correction="holm")
    assert "holm" in sel.reason and "never an independent-groups Tukey" in sel.reason
    assert "spec's correction" in posthoc_for("rm_anova").reason


# --------------------------------------------------------------------------- properties

small = st.floats(-1.0, 1.0, allow_nan=False, width=64)


@settings(max_examples=60, deadline=None)
@given(d=arrays(float, st.tuples(st.integers(3, 29), st.integers(1, 4)), elements=small))
def test_pairwise_properties(d):
    sel = choose_pairwise(d)
    n, m = d.shape
    assert sel.method in ("paired_t", "wilcoxon")
    assert len(sel.steps) == 2 + m
    for step in sel.steps[1:-1]:
        assert step.value is None or 0.0 <= step.value <= 1.0
        assert (step.value is None) == step.outcome.startswith("undefined")
    passed = sum(s.outcome.startswith("pass") for s in sel.steps[1:-1])
    assert (sel.method == "paired_t") == (passed == m)
    # Shapiro-Wilk is invariant under exact rescaling and sign flips: same p, same choice
    flipped = choose_pairwise(-2.0 * d)
    assert flipped.method == sel.method
    for s, f in zip(sel.steps, flipped.steps):
        assert (s.value is None) == (f.value is None)
        if s.value is not None:
            assert f.value == pytest.approx(s.value, rel=1e-9, abs=1e-12)
    # reordering the pairs reorders the steps and keeps the choice
    rev = choose_pairwise(d[:, ::-1])
    assert rev.method == sel.method
    assert [s.value for s in rev.steps[1:-1]] == [s.value for s in sel.steps[1:-1]][::-1]


@settings(max_examples=40, deadline=None)
@given(
    x=arrays(float, st.tuples(st.integers(4, 12), st.integers(3, 5)), elements=small),
    seed=st.integers(0, 2**32 - 1),
)
def test_omnibus_ignores_item_and_system_effects(x, seed):
    """Adding any item effect and any system effect leaves the additive residuals unchanged."""
    resid = additive_residuals(x)
    assume(np.ptp(resid) > 1e-3)
    rng = np.random.default_rng(seed)
    n, k = x.shape
    shifted = x + rng.uniform(-1, 1, size=(n, 1)) + rng.uniform(-1, 1, size=(1, k))
    np.testing.assert_allclose(additive_residuals(shifted), resid, rtol=0, atol=1e-12)
    a, b = choose_omnibus(x), choose_omnibus(shifted)
    assert a.steps[2].value == pytest.approx(b.steps[2].value, rel=1e-6)
    if abs(a.steps[2].value - 0.05) > 1e-4:
        assert a.method == b.method


def test_selection_is_frozen_and_json_safe():
    sel = choose_pairwise(np.column_stack([D_NORMAL, D_OUTLIER]))
    with pytest.raises(AttributeError):
        sel.method = "x"  # type: ignore[misc]
    j = to_jsonable(sel)
    assert set(j) == {"method", "steps", "reason"}
    assert set(j["steps"][0]) == {"check", "value", "threshold", "outcome"}
    assert j["steps"][1]["value"] == pytest.approx(P_NORMAL, rel=SW_REL)
