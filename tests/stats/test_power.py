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


# The sizes that crashed the MDE (scipy's nctdtr NaN deep in a tail met by the root search): a GSM8K-sized
# test set (1,319 items) and a 2,145-item corpus at Holm's 0.05 / 10, the first failures at 0.05 and 0.005.
FAILED_BEFORE = (1315, 1319, 1449, 2145)
SWEEP_N = np.arange(2, 20_001)
SWEEP_LEVELS = (0.05, 0.01, 0.005, 0.05 / 190)  # 0.05 / 190: Bonferroni / Holm over the 190 pairs of 20 systems


@pytest.mark.parametrize("n", FAILED_BEFORE)
@pytest.mark.parametrize("level", [0.05, 0.005, 0.05 / 45])
def test_mde_where_the_noncentral_t_gives_nan(n, level):
    dz = paired_t_mde_dz(n, level, 0.8)
    assert dz is not None and 0 < dz < 1
    assert float(paired_t_power(dz, n, level)) == pytest.approx(0.8, abs=1e-12)


def test_noncentral_t_cdf_is_never_nan():
    """scipy.special.nctdtr(2144, 37.0, 2.81) is NaN (scipy 1.17); the true P(T <= 2.81) is below
    Phi(2.81 - 37 + ...) ~ 1e-160: 0 in double precision. Elsewhere nct_cdf is scipy's value unchanged."""
    from scipy import special

    from sigreport.stats.power import nct_cdf
    assert np.isnan(special.nctdtr(2144, 37.0, 2.81))  # the defect this guards against
    assert float(nct_cdf(2144, 37.0, 2.81)) == pytest.approx(0.0, abs=1e-100)
    assert np.isnan(special.nctdtr(1, 81.5, -63.5))  # one item pair: P(T <= -63.5) <= Phi(-81.5), 0 here
    assert float(nct_cdf(1, 81.5, -63.5)) == 0.0
    df, nc, t = np.meshgrid([1.0, 5.0, 100.0, 2144.0], np.linspace(-60, 60, 121), [-2.81, 0.5, 2.81])
    want = special.nctdtr(df, nc, t)
    got = nct_cdf(df, nc, t)
    assert np.isfinite(got).all() and ((got >= 0) & (got <= 1)).all()
    assert np.array_equal(got[~np.isnan(want)], want[~np.isnan(want)])


@pytest.mark.parametrize("level", SWEEP_LEVELS)
def test_mde_sweep_every_n(level, monkeypatch):
    """Every n from 2 to 20,000 at the level and powers 0.8 and 0.9: a finite positive MDE, decreasing in n,
    whose power is the target, by sigreport's power and by statsmodels' (independent) one where that is
    finite. statsmodels 0.15: TTestPower().power(effect_size=dz, nobs=n, alpha=level, alternative='two-sided')
    (NaN where scipy's noncentral t underflows in the far tail: 0 to 78% of n at 0.05 / 190). Every NaN
    scipy's nctdtr gave during the search lies in a far tail, t <= 0 < nc with nc - t >= 8 (nct_cdf)."""
    from statsmodels.stats.power import TTestPower

    from sigreport.stats import power as pw
    met = []
    real = pw.special

    class Recording:
        def __getattr__(self, name):
            return getattr(real, name)

        def nctdtr(self, df, nc, t):
            v = real.nctdtr(df, nc, t)
            df, nc, t = np.broadcast_arrays(df, nc, t)
            met.append(np.stack([nc[np.isnan(v)], t[np.isnan(v)]]))
            return v

    monkeypatch.setattr(pw, "special", Recording())
    for target in (0.8, 0.9):
        dz = pw.paired_t_mde_dzs(SWEEP_N, level, target)
        assert np.isfinite(dz).all() and (dz > 0).all() and (np.diff(dz) < 0).all()
        assert np.abs(pw.paired_t_power(dz, SWEEP_N, level) - target).max() < 1e-11
        with np.errstate(all="ignore"):
            sm = TTestPower().power(effect_size=dz, nobs=SWEEP_N, alpha=level, alternative="two-sided")
        assert np.isfinite(sm).mean() > 0.2 and np.nanmax(np.abs(sm - target)) < 1e-11
    nc, t = np.concatenate(met, axis=1)
    assert nc.size > 0 and (t <= 0).all() and (nc > 0).all() and (nc - t >= 8).all()


@pytest.mark.parametrize("level", [0.05, 0.005])
def test_mde_against_statsmodels_solve_power(level):
    """statsmodels 0.15: TTestPower().solve_power(effect_size=None, nobs=n, alpha=level, power=0.8,
    alternative='two-sided') at every 200th n and the sizes that crashed. Its own root search stops early
    (its power at its root is 0.79991 at n = 15,602): agreement to 3e-4 relative, the MDE's power exactly."""
    from statsmodels.stats.power import TTestPower
    ns = [*range(2, 20_001, 200), *FAILED_BEFORE]
    for n in ns:
        sm = float(np.ravel(TTestPower().solve_power(effect_size=None, nobs=n, alpha=level, power=0.8,
                                                     alternative="two-sided"))[0])
        assert paired_t_mde_dz(n, level) == pytest.approx(sm, rel=3e-4), n


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_mde_sweep(alternative):
    from sigreport.stats.power import paired_t_mde_dzs
    sign = 1 if alternative == "greater" else -1
    dz = paired_t_mde_dzs(SWEEP_N, 0.005, 0.8, alternative)
    assert np.isfinite(dz).all() and (sign * dz > 0).all() and (np.diff(sign * dz) < 0).all()
    assert np.abs(paired_t_power(dz, SWEEP_N, 0.005, alternative) - 0.8).max() < 1e-11


def test_power_and_sizes_of_an_enormous_difference():
    """A difference of 1e300 (or infinitely many SDs) is detected with power 1 by 2 items (runs)."""
    from sigreport.stats.power import two_sample_power, two_sample_size
    assert float(paired_t_power(1e300, 2, 0.05)) == 1.0 and float(paired_t_power(np.inf, 2, 0.05)) == 1.0
    assert paired_t_sample_size(1e300, 0.1, 0.05) == 2 and paired_t_sample_size(1e300, 1e-10, 0.005) == 2
    assert two_sample_power(1e300, 0.1, 2, 0.05) == 1.0 and two_sample_size(1e300, 1e-10, 0.05) == 2


def test_differences_equal_up_to_rounding_do_not_vary():
    """0.3 - 0.1, 0.5 - 0.3, ... are 0.2 in decimal, an SD near 1e-17 in floats: no MDE, the reason said
    (the simulation ran on rounding error before)."""
    from sigreport.stats.power import varies
    d = np.array([0.3, 0.5, 0.7, 0.9, 1.1]) - np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    sd = float(d.std(ddof=1))
    assert 0 < sd < 1e-15 and not varies(sd, d) and not varies(0.0, np.zeros(3)) and not varies(None, d)
    assert varies(1e-20, np.array([1e-20, 3e-20, 2e-20]))  # small in units is not rounding: scale-free
    m = simulated_mde(d, t_pvalues, 0.05)
    assert m.mde is None and m.warnings == ("no minimum detectable difference: the differences do not vary",)


def test_large_simulations_are_drawn_in_blocks(monkeypatch):
    """Above MAX_DRAWN simulated values the data sets are redrawn block by block (one pair of 200,000 items
    held 10^8 values, about 7 GB in the Wilcoxon p-values): memory stays bounded, the result is seeded, and
    it still agrees with the closed form for the t test on normal differences (as the test above)."""
    import tracemalloc

    from sigreport.stats import power as pw
    d = np.random.default_rng(7).normal(0.1, 1.0, 60)
    monkeypatch.setattr(pw, "MAX_DRAWN", 6_000)  # 100 data sets of 60 per block
    sim = simulated_mde(d, t_pvalues, 0.05, n_sims=4000, seed=11)
    assert sim == simulated_mde(d, t_pvalues, 0.05, n_sims=4000, seed=11)
    assert sim.mde == pytest.approx(paired_t_mde(float(d.std(ddof=1)), 60, 0.05).mde, rel=0.03)
    big = np.random.default_rng(8).normal(0.0, 1.0, 20_000)
    pw.wilcoxon_pvalues(big[None, :10])  # scipy.stats imported before memory is traced
    peaks = {}
    for limit in (100_000, 10**9):
        monkeypatch.setattr(pw, "MAX_DRAWN", limit)
        tracemalloc.start()
        simulated_mde(big, pw.wilcoxon_pvalues, 0.05, n_sims=60, seed=1, rel_tol=0.05)
        peaks[limit] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks[100_000] < 20e6 < peaks[10**9], peaks  # bytes: 5 rows of 20,000 at a time, against all 60 at once


def test_simulated_power_at_the_simulated_mde_is_the_target():
    """simulated_power with the pilot's items and the seed of simulated_mde draws the very data sets of the MDE's
    bisection: the power at the MDE reaches the target, 1e-3 SD below it (the bracket) it does not."""
    from sigreport.stats.power import simulated_mde, simulated_power, wilcoxon_pvalues

    rng = np.random.default_rng(5)
    for n in (8, 14, 40, 200):
        d = rng.normal(0.01, 0.05, n)
        m = simulated_mde(d, wilcoxon_pvalues, 0.05, 0.8, "two-sided", 500, 17)
        assert m.mde is not None
        assert simulated_power(d, wilcoxon_pvalues, 0.05, m.mde, 500, 17) >= 0.8
        assert simulated_power(d, wilcoxon_pvalues, 0.05, m.mde - 1e-3 * m.sd, 500, 17) < 0.8


def test_simulated_sample_size_against_the_closed_forms():
    """For normal differences the simulated paired t needs the noncentral t's count (R: power.t.test(delta = 0.3,
    sd = 1, sig.level = 0.05, power = 0.8, type = 'paired', strict = TRUE)$n = 89.14936, so 90; paired_t_sample_size
    agrees),
    and the simulated Wilcoxon test that count over its efficiency 3/pi (Pitman ARE for normal shapes), both within
    Monte Carlo error (500 data sets: s.e. of a power near 0.8 is 0.018, about 6% of n here). The count found is one
    whose power reaches the target while one item fewer does not."""
    from sigreport.stats.power import simulated_power, simulated_sample_size, t_pvalues, wilcoxon_pvalues

    pilot = np.random.default_rng(11).normal(0, 1, 4000)
    pilot = (pilot - pilot.mean()) / pilot.std(ddof=1)  # SD exactly 1
    t_n = paired_t_sample_size(0.3, 1.0, 0.05, 0.8)
    assert t_n == 90

    def seed(m):
        return 1000 + m
    sim_t = simulated_sample_size(pilot, t_pvalues, 0.05, 0.3, 0.8, 500, seed, guess=50)
    assert abs(sim_t - t_n) <= 0.15 * t_n
    assert simulated_power(pilot, t_pvalues, 0.05, 0.3, 500, seed(sim_t), sim_t) >= 0.8
    assert simulated_power(pilot, t_pvalues, 0.05, 0.3, 500, seed(sim_t - 1), sim_t - 1) < 0.8
    sim_w = simulated_sample_size(pilot, wilcoxon_pvalues, 0.05, 0.3, 0.8, 500, seed, guess=t_n)
    assert abs(sim_w - t_n / (3 / np.pi)) <= 0.15 * t_n / (3 / np.pi)


def test_simulated_sample_size_edges():
    from sigreport.stats.power import simulated_sample_size, wilcoxon_pvalues

    assert simulated_sample_size(np.array([0.2, 0.2, 0.2]), wilcoxon_pvalues, 0.05, 0.1) is None  # no variation
    assert simulated_sample_size(np.array([0.1]), wilcoxon_pvalues, 0.05, 0.1) is None
    d = np.random.default_rng(2).normal(0, 1, 50)
    assert simulated_sample_size(d, wilcoxon_pvalues, 0.05, 1e-4, 0.8, 100, max_n=400) is None  # beyond max_n
    assert simulated_sample_size(d, wilcoxon_pvalues, 0.05, 100.0, 0.8, 100, guess=5000) <= 10  # guess far too high
