"""Almost stochastic order against deepsig, and the two-level (items x runs) bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats.runs import aso, two_level_bootstrap, violation_ratio


def deepsig_uniforms(seed: int, n_a: int, n_b: int, n_resamples: int) -> tuple[np.ndarray, np.ndarray]:
    """The uniforms deepsig 1.2.8 draws in ``get_bootstrapped_violation_ratios`` with ``seed``: iteration i
    (1-based) calls np.random.seed(seed + i), then uniform(0, 1, len(a)), then uniform(0, 1, len(b))."""
    ua, ub = np.empty((n_resamples, n_a)), np.empty((n_resamples, n_b))
    for i in range(n_resamples):
        np.random.seed(seed + i + 1)
        ua[i] = np.random.uniform(0, 1, n_a)
        ub[i] = np.random.uniform(0, 1, n_b)
    return ua, ub


# Scores of five and six training runs (the shape of Dror et al.'s examples: accuracies of a few seeds).
CASES = {
    "a better": ([0.812, 0.825, 0.819, 0.830, 0.808], [0.801, 0.796, 0.815, 0.799, 0.806, 0.790]),
    "overlapping": ([0.71, 0.74, 0.69, 0.75, 0.72, 0.70], [0.72, 0.73, 0.70, 0.71, 0.74, 0.69]),
    "b better": ([0.60, 0.62, 0.58, 0.61, 0.59], [0.66, 0.64, 0.65, 0.67, 0.63]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_aso_equals_deepsig_on_the_same_draws(case):
    from deepsig import aso as deepsig_aso  # deepsig 1.2.8, test-only

    a, b = CASES[case]
    uni = deepsig_uniforms(4, len(a), len(b), 200)
    for m in (1, 2):  # deepsig's correction, conf + (1 - conf) / m, is Bonferroni's at m = 1 and 2
        # deepsig.aso(a, b, confidence_level=0.95, num_comparisons=m, num_bootstrap_iterations=200, seed=4,
        #             num_jobs=1, show_progress=False)
        want = deepsig_aso(a, b, confidence_level=0.95, num_comparisons=m, num_bootstrap_iterations=200, seed=4,
                           num_jobs=1, show_progress=False)
        got = aso(a, b, confidence=0.95, n_comparisons=m, uniforms=uni)
        assert got.eps_min == pytest.approx(float(want), abs=1e-12)
    # m = 3: Bonferroni's confidence 1 - 0.05 / 3, given to deepsig as one comparison at that level
    want = deepsig_aso(a, b, confidence_level=1 - 0.05 / 3, num_comparisons=1, num_bootstrap_iterations=200, seed=4,
                       num_jobs=1, show_progress=False)
    got = aso(a, b, confidence=0.95, n_comparisons=3, uniforms=uni)
    assert got.confidence == pytest.approx(1 - 0.05 / 3) and got.eps_min == pytest.approx(float(want), abs=1e-12)


def test_violation_ratio_is_symmetric_and_bounded():
    a, b = (np.array(x) for x in CASES["overlapping"])
    assert float(violation_ratio(a, b)) + float(violation_ratio(b, a)) == pytest.approx(1.0, abs=0.02)
    assert float(violation_ratio(a, a)) == 0.5  # deepsig's value for equal distributions
    assert float(violation_ratio(a + 1, a)) == 0.0


def test_aso_is_seeded_and_decides_the_clear_cases():
    a, b = CASES["a better"]
    r = aso(a, b, seed=1)
    assert r == aso(a, b, seed=1) and r.eps_min < 0.5
    assert aso(*CASES["b better"], seed=1).eps_min > 0.5
    assert aso([1.0, 2.0], [0.0, 1.0]).warnings  # fewer than five runs


def test_two_level_bootstrap_interval():
    """Estimate: the plain difference of means; the interval covers it, widens with the spread between runs,
    and is seeded. Its standard error approaches the analytic one of a balanced two-level design:
    Var = s_item^2 / n + s_run^2 / r for each system's mean (items shared, so their part cancels in the
    difference when the item effects are equal)."""
    rng = np.random.default_rng(3)
    n, r = 200, 5
    item = rng.normal(0, 1, (n, 1))
    run_a, run_b = rng.normal(0, 0.3, (1, r)), rng.normal(0, 0.3, (1, r))
    a = 0.5 + item + run_a + rng.normal(0, 0.2, (n, r))
    b = item + run_b + rng.normal(0, 0.2, (n, r))
    res = two_level_bootstrap(a, b, 0.95, 4000, seed=9)
    assert res.estimate == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    assert res.ci_low < res.estimate < res.ci_high
    assert res == two_level_bootstrap(a, b, 0.95, 4000, seed=9)
    # the runs dominate: se near sqrt(2 * var(run means) / r) (plug-in, (r-1)/r of the sample variance)
    run_means_var = (np.var(a.mean(0)) + np.var(b.mean(0))) / r
    assert res.se == pytest.approx(np.sqrt(run_means_var), rel=0.25)
    items_only = two_level_bootstrap(a.mean(1, keepdims=True), b.mean(1, keepdims=True), 0.95, 4000, seed=9)
    assert items_only.ci_high - items_only.ci_low < (res.ci_high - res.ci_low) / 3


def test_both_ways_equal_deepsig_multi_aso():
    """deepsig.multi_aso(scores, seed=4, num_bootstrap_iterations=200, num_jobs=1, show_progress=False,
    use_bonferroni=False) on two
    systems (one comparison): eps_min[0, 1] and eps_min[1, 0] from one bootstrap; the same draws give ours."""
    from deepsig import multi_aso  # deepsig 1.2.8, test-only

    from sigreport.stats import runs

    a, b = CASES["overlapping"]
    # use_bonferroni=False: with two systems deepsig's own correction sets the confidence to 1 (docstring)
    want = multi_aso({"a": a, "b": b}, seed=4, num_bootstrap_iterations=200, num_jobs=1, show_progress=False,
                     use_bonferroni=False)
    uni = deepsig_uniforms(4, len(a), len(b), 200)
    ab = aso(a, b, uniforms=uni)
    c = np.sqrt(len(a) * len(b) / (len(a) + len(b)))
    from scipy.special import ndtri
    ba = float(np.clip(1 - ab.violation_ratio - ab.sigma / c * ndtri(0.05), 0, 1))
    assert ab.eps_min == pytest.approx(want[0, 1], abs=1e-12) and ba == pytest.approx(want[1, 0], abs=1e-12)
    one, other = runs.aso_both_ways(a, b, seed=3)
    assert other.violation_ratio == pytest.approx(1 - one.violation_ratio) and other.sigma == one.sigma
