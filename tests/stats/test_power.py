"""Minimum detectable effect and sample size of the paired t test, against R and statsmodels; the simulation
against the closed form."""

from __future__ import annotations

import numpy as np
import pytest

from sigreport.stats.power import (paired_t_mde, paired_t_mde_dz, paired_t_power, paired_t_sample_size,
                                   simulated_mde, t_pvalues)

# R 4.x: power.t.test(n = n, sd = 1, sig.level = 0.05, power = 0.8, type = "paired", strict = TRUE,
#                     tol = 1e-12)$delta  (tol: R's default, eps^0.25, stops the root search at ~1e-4)
R_DELTA = {5: 1.68199696595358, 20: 0.660441654622837, 100: 0.282912632781371}


@pytest.mark.parametrize("n", sorted(R_DELTA))
def test_mde_against_r_power_t_test(n):
    assert paired_t_mde_dz(n, 0.05) == pytest.approx(R_DELTA[n], rel=1e-9)


def test_one_sided_mde_against_r_and_statsmodels():
    # R: power.t.test(n = 30, sd = 1, sig.level = 0.01, power = 0.8, type = "paired",
    #                 alternative = "one.sided", tol = 1e-12)$delta
    r = 0.607029323277008
    assert paired_t_mde_dz(30, 0.01, alternative="greater") == pytest.approx(r, rel=1e-9)
    assert paired_t_mde_dz(30, 0.01, alternative="less") == pytest.approx(-r, rel=1e-9)
    # statsmodels 0.15: TTestPower().solve_power(effect_size=None, nobs=30, alpha=0.01, power=0.8,
    #                   alternative='larger') (its own root search stops at about 1e-7)
    from statsmodels.stats.power import TTestPower
    sm = TTestPower().solve_power(effect_size=None, nobs=30, alpha=0.01, power=0.8, alternative="larger")
    assert paired_t_mde_dz(30, 0.01, alternative="greater") == pytest.approx(sm, rel=1e-6)


@pytest.mark.parametrize("n,alpha", [(8, 0.05), (50, 0.005), (400, 0.05 / 45)])
def test_power_against_statsmodels(n, alpha):
    from statsmodels.stats.power import TTestPower  # statsmodels 0.15, test-only
    for dz in (0.1, 0.25):
        sm = TTestPower().power(effect_size=dz, nobs=n, alpha=alpha, alternative="two-sided")
        assert float(paired_t_power(dz, n, alpha)) == pytest.approx(sm, rel=1e-9, abs=1e-12)


def test_power_where_the_far_tail_underflows():
    """statsmodels gives NaN here (scipy's noncentral t underflows in the far tail); R does not.
    R: power.t.test(n = 50, delta = 1, sd = 1, sig.level = 0.005, type = "paired", strict = TRUE)$power and
    power.t.test(n = 400, delta = 0.4, sd = 1, sig.level = 0.05 / 45, type = "paired", strict = TRUE)$power"""
    assert float(paired_t_power(1.0, 50, 0.005)) == pytest.approx(0.999964038122756, rel=1e-9)
    assert float(paired_t_power(0.4, 400, 0.05 / 45)) == pytest.approx(0.999998604457827, rel=1e-9)
    assert float(paired_t_power(1.0, 400, 0.05 / 45)) == 1.0


def test_mde_scales_with_the_sd_of_the_differences():
    r = paired_t_mde(2.5, 20, 0.05)
    assert r.mde == pytest.approx(2.5 * R_DELTA[20], rel=1e-9) and r.method == "noncentral_t"
    assert paired_t_mde(None, 20, 0.05).mde is None and paired_t_mde(1.0, 1, 0.05).warnings


def test_sample_size_against_r():
    # R: power.t.test(delta = 0.3, sd = 1.2, sig.level = 0.05, power = 0.8, type = "paired", strict = TRUE,
    #                 tol = 1e-12)$n  = 127.515830511416, so 128 items; $power at n = 128: 0.801507136372699,
    #    at n = 127: 0.798383538667401
    assert paired_t_sample_size(0.3, 1.2, 0.05) == 128
    assert float(paired_t_power(0.25, 128, 0.05)) == pytest.approx(0.801507136372699, rel=1e-9)
    assert float(paired_t_power(0.25, 127, 0.05)) == pytest.approx(0.798383538667401, rel=1e-9)
    assert paired_t_sample_size(-0.3, 1.2, 0.05, alternative="greater") is None


def test_simulation_agrees_with_the_closed_form_on_normal_differences():
    """Simulated power of the t test itself, from normal differences: the MDE within 3% of the closed form
    (4,000 simulated data sets: the Monte Carlo SE of a power near 0.8 is 0.006, about 1% of the MDE)."""
    d = np.random.default_rng(7).normal(0.1, 1.0, 60)
    exact = paired_t_mde(float(d.std(ddof=1)), 60, 0.05)
    sim = simulated_mde(d, t_pvalues, 0.05, n_sims=4000, seed=11)
    assert sim.method == "simulation" and sim.mde == pytest.approx(exact.mde, rel=0.03)
    again = simulated_mde(d, t_pvalues, 0.05, n_sims=4000, seed=11)
    assert again == sim  # seeded
    less = simulated_mde(d, lambda x: t_pvalues(x, "less"), 0.05, alternative="less", n_sims=4000, seed=11)
    assert less.mde < 0


def test_degenerate_inputs_give_a_reason():
    assert simulated_mde(np.ones(10), t_pvalues, 0.05).mde is None
    assert "fewer than 2 items" in simulated_mde(np.ones(1), t_pvalues, 0.05).warnings[0]
    with pytest.raises(ValueError):
        paired_t_mde_dz(10, 0.05, power=0.01)


def test_two_sample_size_against_r():
    """Runs per system for the planning command. R: power.t.test(delta = 0.5, sd = 1, sig.level = 0.05,
    power = 0.8, type = "two.sample", strict = TRUE, tol = 1e-12)$n = 63.7656101909419 (so 64);
    power.t.test(n = 64, delta = 0.5, sd = 1, sig.level = 0.05, type = "two.sample", strict = TRUE)$power
    = 0.801459557922328; power.t.test(delta = 0.01, sd = 0.012, sig.level = 0.01, power = 0.9,
    type = "two.sample", strict = TRUE, tol = 1e-12)$n = 44.5430593906586 (so 45)."""
    from sigreport.stats.power import two_sample_power, two_sample_size
    assert two_sample_size(0.5, 1.0, 0.05) == 64
    assert two_sample_power(0.5, 1.0, 64, 0.05) == pytest.approx(0.801459557922328, rel=1e-9)
    assert two_sample_size(0.01, 0.012, 0.01, 0.9) == 45
