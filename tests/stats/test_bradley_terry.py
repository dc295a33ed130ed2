"""Bradley-Terry and Davidson strengths (sigreport.stats.bradley_terry) against R BradleyTerry2, choix and a
direct maximisation of Davidson's likelihood; the bootstrap's seed, units and vectorisation; degenerate data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from sigreport.results.ranks import interval_better, rank_ub
from sigreport.stats import bradley_terry as bt

# BradleyTerry2's `citations` data (Stigler 1994): citations[i, j] = times journal i was cited by journal j,
# read as "i beat j". Order: Biometrika, Comm Statist, JASA, JRSS-B.
CITATIONS = np.array([[714, 730, 498, 221], [33, 425, 68, 17], [320, 813, 1072, 142], [284, 276, 325, 188]],
                     dtype=float)
# R 4.x, Debian r-cran-bradleyterry2:
#   library(BradleyTerry2); citations.sf <- countsToBinomial(citations)
#   m <- BTm(cbind(win1, win2), player1, player2, ~player, id = "player", data = citations.sf)
#   print(coef(m), digits = 10)   # relative to Biometrika
R_ABILITIES = np.array([0.0, -2.9490724968, -0.4795697698, 0.2689540558])
#   print(sqrt(diag(vcov(m))), digits = 10)
R_SE = np.array([0.10254533537, 0.06058872924, 0.07082996511])
# choix 0.4.1: data = [(i, j) for i, j where i != j, repeated CITATIONS[i, j] times];
#   choix.opt_pairwise(4, data, alpha=0)   (alpha: choix's L2 regularisation, here none; mean-zero strengths)
CHOIX_OPT = np.array([0.7899219, -2.15914965, 0.31035204, 1.05887571])
#   choix.ilsr_pairwise(4, data, alpha=0)  (Maystre & Grossglauser 2015's spectral iteration, tol 1e-8)
CHOIX_ILSR = np.array([0.78992205, -2.15915044, 0.31035228, 1.05887611])


def citations() -> tuple[np.ndarray, np.ndarray]:
    w = CITATIONS.copy()
    np.fill_diagonal(w, 0)
    return w, np.zeros_like(w)


@pytest.mark.parametrize("ties", ["split", "davidson"])  # no ties: Davidson's model is Bradley-Terry's
def test_citations_as_bradley_terry2(ties: str) -> None:
    f = bt.fit(*citations(), ties)
    assert f.converged
    np.testing.assert_allclose(f.strengths - f.strengths[0], R_ABILITIES, atol=5e-9)
    assert abs(f.strengths.sum()) < 1e-12  # identified by sum zero
    assert f.nu == 0


def test_citations_standard_errors_as_bradley_terry2() -> None:
    w, t = citations()
    f = bt.fit(w, t, "split")
    se = bt.standard_errors(f, w, t)
    np.testing.assert_allclose(se.relative_to_first[1:], R_SE, rtol=1e-7)


def test_citations_as_choix() -> None:
    f = bt.fit(*citations(), "split")
    np.testing.assert_allclose(f.strengths, CHOIX_OPT, atol=1e-6)  # choix's optimiser stops at its tolerance
    np.testing.assert_allclose(f.strengths, CHOIX_ILSR, atol=2e-6)


def test_citations_from_votes() -> None:
    """The same fit from one row per vote (count_matrices and cells agree with the table)."""
    w, _ = citations()
    i, j = np.nonzero(w)
    reps = w[i, j].astype(int)
    a, b = np.repeat(i, reps), np.repeat(j, reps)
    flip = np.arange(a.size) % 2 == 1  # half the votes list the winner second
    a2, b2 = np.where(flip, b, a), np.where(flip, a, b)
    outcome = np.where(flip, -1, 1)
    wins, ties = bt.count_matrices(a2, b2, outcome, 4)
    np.testing.assert_array_equal(wins, w)
    c = bt.cells(a2, b2, outcome, 4)
    cw, ct = c.matrices(c.counts[None])
    np.testing.assert_array_equal(cw[0], w)
    assert not ct.any()


def davidson_reference(wins: np.ndarray, ties: np.ndarray) -> tuple[np.ndarray, float]:
    """Davidson (1970), eq. (2.1), maximised directly by scipy (BFGS) in (s_2..s_K, log nu), s_1 = 0:
    P(i > j) = p_i / (p_i + p_j + nu sqrt(p_i p_j)), P(tie) = nu sqrt(p_i p_j) / (same)."""
    k = wins.shape[0]

    def nll(x: np.ndarray) -> float:
        p = np.exp(np.r_[0.0, x[:-1]])
        nu = np.exp(x[-1])
        total = 0.0
        for i in range(k):
            for j in range(k):
                if i == j:
                    continue
                d = p[i] + p[j] + nu * np.sqrt(p[i] * p[j])
                total += wins[i, j] * np.log(p[i] / d)
                if i < j:
                    total += ties[i, j] * np.log(nu * np.sqrt(p[i] * p[j]) / d)
        return -total

    res = minimize(nll, np.zeros(k), method="BFGS", options={"gtol": 1e-10})
    s = np.r_[0.0, res.x[:-1]]
    return s - s.mean(), float(np.exp(res.x[-1]))


# wins[i, j] (i beat j) and symmetric ties of 4 systems, made up so that every system beats and ties some other
DAVIDSON_WINS = np.array([[0, 30, 22, 40], [18, 0, 25, 33], [15, 20, 0, 27], [9, 12, 14, 0]], dtype=float)
DAVIDSON_TIES = np.array([[0, 12, 8, 5], [12, 0, 10, 7], [8, 10, 0, 9], [5, 7, 9, 0]], dtype=float)


def test_davidson_as_direct_maximisation() -> None:
    f = bt.fit(DAVIDSON_WINS, DAVIDSON_TIES, "davidson")
    s, nu = davidson_reference(DAVIDSON_WINS, DAVIDSON_TIES)
    assert f.converged
    np.testing.assert_allclose(f.strengths, s, atol=1e-5)
    assert f.nu == pytest.approx(nu, rel=1e-5)
    # the maximum: no nearby point has a higher likelihood
    for delta in (1e-3, -1e-3):
        moved = f.strengths + delta * np.array([1, -1, 0, 0])
        assert bt.loglik(moved, np.array([f.nu]), DAVIDSON_WINS, DAVIDSON_TIES)[0] < f.loglik


def test_split_ties_are_half_wins() -> None:
    """ties: split is Bradley-Terry on wins + ties/2 (choix on the same half-counted data: opt_pairwise takes
    no fractions, so the reference is the plain fit of the doubled table, whose maximum is the same)."""
    f = bt.fit(DAVIDSON_WINS, DAVIDSON_TIES, "split")
    g = bt.fit(2 * DAVIDSON_WINS + DAVIDSON_TIES, np.zeros((4, 4)), "split")
    np.testing.assert_allclose(f.strengths, g.strengths, atol=1e-10)
    assert f.nu == 0


def test_davidson_and_split_differ_but_agree_in_order() -> None:
    d = bt.fit(DAVIDSON_WINS, DAVIDSON_TIES, "davidson")
    s = bt.fit(DAVIDSON_WINS, DAVIDSON_TIES, "split")
    assert list(np.argsort(d.strengths)) == list(np.argsort(s.strengths))
    assert not np.allclose(d.strengths, s.strengths, atol=1e-3)


def test_batched_fit_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(3)
    k = 6
    w = rng.integers(1, 40, size=(5, k, k)).astype(float)
    t = rng.integers(0, 10, size=(5, k, k)).astype(float)
    t = np.triu(t, 1) + np.swapaxes(np.triu(t, 1), 1, 2)
    for i in range(k):
        w[:, i, i] = 0
    for ties in ("davidson", "split"):
        f = bt.fit(w, t, ties)
        assert f.converged.all()
        for r in range(5):
            g = bt.fit(w[r], t[r], ties)
            np.testing.assert_allclose(f.strengths[r], g.strengths, atol=1e-9)
            assert f.nu[r] == pytest.approx(float(g.nu), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("scale", [0.01, 1.0, 100.0])  # a few votes to very many: the same maximum
def test_counts_scale_keeps_the_maximum(scale: float) -> None:
    base = bt.fit(DAVIDSON_WINS, DAVIDSON_TIES, "davidson")
    f = bt.fit(DAVIDSON_WINS * scale, DAVIDSON_TIES * scale, "davidson")
    np.testing.assert_allclose(f.strengths, base.strengths, atol=1e-8)
    assert f.nu == pytest.approx(float(base.nu), rel=1e-8)


def test_rank_ub_is_chatbot_arenas_rule() -> None:
    # intervals: A [3, 4], B [2.5, 3.5] (overlaps A), C [1, 2] (below both), D [1.5, 2.6] (overlaps B and C)
    low = np.array([3.0, 2.5, 1.0, 1.5])
    high = np.array([4.0, 3.5, 2.0, 2.6])
    # A: nobody wholly above -> 1; B: A's low 3 <= B's high 3.5 -> 1; C: A and B above -> 3; D: A above -> 2
    assert rank_ub(interval_better(low, high)).tolist() == [1, 1, 3, 2]


def test_win_rates() -> None:
    r = bt.win_rates(np.array([[0, 3], [1, 0]], float), np.array([[0, 2], [2, 0]], float))
    assert r[0, 1] == pytest.approx(4 / 6) and r[1, 0] == pytest.approx(2 / 6) and np.isnan(r[0, 0])


def _votes(k: int, n: int, seed: int, items: int | None = None) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    s = np.linspace(-1, 1, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    u = (s[a] - s[b]) / 2
    z = 2 * np.cosh(u) + 0.5
    r = rng.random(n)
    outcome = np.where(r < np.exp(u) / z, 1, np.where(r < (np.exp(u) + 0.5) / z, 0, -1))
    item = rng.integers(0, items, n) if items else None
    return a, b, outcome, item, s


def test_bootstrap_is_reproducible_from_its_seed() -> None:
    a, b, outcome, item, _ = _votes(5, 2000, 1, items=200)
    c = bt.cells(a, b, outcome, 5, item)
    for unit in ("battles", "items"):
        x = bt.bootstrap(c, 200, seed=11, unit=unit)
        y = bt.bootstrap(c, 200, seed=11, unit=unit, chunk=7)  # blocks of 7 replicates: the same replicates
        np.testing.assert_array_equal(x.strengths, y.strengths)
        z = bt.bootstrap(c, 200, seed=12, unit=unit)
        assert not np.array_equal(x.strengths, z.strengths)
        assert x.strengths.shape == (200, 5) and x.not_converged == 0


def test_bootstrap_replicate_is_the_fit_of_its_counts() -> None:
    """A battles replicate is a multinomial draw of the cells: the same draw, fitted alone, gives the same row."""
    a, b, outcome, _, _ = _votes(4, 800, 2)
    c = bt.cells(a, b, outcome, 4)
    boot = bt.bootstrap(c, 5, seed=3)
    rng = np.random.default_rng(3)
    counts = rng.multinomial(int(c.counts.sum()), c.counts / c.counts.sum(), size=5).astype(float)
    w, t = c.matrices(counts)
    for r in range(5):
        np.testing.assert_allclose(boot.strengths[r], bt.fit(w[r], t[r]).strengths, atol=1e-10)


def test_bootstrap_interval_covers_the_truth_and_items_are_wider_when_clustered() -> None:
    a, b, outcome, _, s = _votes(6, 6000, 4)
    c = bt.cells(a, b, outcome, 6)
    boot = bt.bootstrap(c, 400, seed=5)
    low, high = bt.percentile_interval(boot.strengths, 0.95)
    truth = s - s.mean()
    assert np.mean((low <= truth) & (truth <= high)) >= 5 / 6
    # items that repeat one vote 10 times: clusters of identical votes, so resampling items is wider
    item = np.repeat(np.arange(600), 10)
    a10, b10, o10 = a[:600].repeat(10), b[:600].repeat(10), outcome[:600].repeat(10)
    ci = bt.cells(a10, b10, o10, 6, item)
    by_item = bt.bootstrap(ci, 400, seed=5, unit="items")
    by_battle = bt.bootstrap(ci, 400, seed=5, unit="battles")
    assert by_item.strengths.std(axis=0).mean() > 2.5 * by_battle.strengths.std(axis=0).mean()


def test_a_system_that_never_wins_has_no_finite_maximum() -> None:
    w = np.array([[0, 5, 4], [3, 0, 6], [0, 0, 0]], float)  # C never beats or ties anyone
    t = np.zeros((3, 3))
    weak, strong = bt.components(w, t)
    assert weak == [[0, 1, 2]] and strong == [[0, 1], [2]]
    f = bt.fit(w, t, "split")
    assert not f.finite  # the Newton steps run off: C's strength heads to minus infinity
    assert f.strengths[2] < f.strengths[0] - 20
    ok = bt.fit(DAVIDSON_WINS, DAVIDSON_TIES)
    assert ok.finite and ok.converged


def test_a_tie_is_enough_for_a_finite_maximum() -> None:
    w = np.array([[0, 5, 4], [3, 0, 6], [0, 0, 0]], float)
    t = np.zeros((3, 3))
    t[1, 2] = t[2, 1] = 1
    assert bt.components(w, t)[1] == [[0, 1, 2]]
    for ties in ("davidson", "split"):
        f = bt.fit(w, t, ties)
        assert f.converged and f.finite


def test_disconnected_comparisons() -> None:
    w = np.array([[0, 2, 0, 0], [1, 0, 0, 0], [0, 0, 0, 3], [0, 0, 1, 0]], float)
    weak, strong = bt.components(w, np.zeros((4, 4)))
    assert weak == [[0, 1], [2, 3]] and strong == [[0, 1], [2, 3]]


def test_swapping_the_sides_of_every_vote_changes_nothing() -> None:
    a, b, outcome, item, _ = _votes(5, 1500, 7, items=100)
    c1 = bt.cells(a, b, outcome, 5, item)
    c2 = bt.cells(b, a, -outcome, 5, item)
    for x, y in ((c1.i, c2.i), (c1.j, c2.j), (c1.outcome, c2.outcome), (c1.counts, c2.counts)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(bt.bootstrap(c1, 50, 1, unit="items").strengths,
                                  bt.bootstrap(c2, 50, 1, unit="items").strengths)


def test_relabelling_the_systems_permutes_the_strengths() -> None:
    perm = np.array([2, 0, 3, 1])
    w, t = DAVIDSON_WINS, DAVIDSON_TIES
    f = bt.fit(w, t)
    g = bt.fit(w[np.ix_(perm, perm)], t[np.ix_(perm, perm)])
    np.testing.assert_allclose(g.strengths, f.strengths[perm], atol=1e-9)


def test_replicates_without_a_finite_maximum_are_counted_not_fatal() -> None:
    """C wins one vote of 40: many resamples give it none, so its strength there runs off to minus infinity;
    those replicates are counted, their strengths stay finite numbers below every finite replicate's."""
    a = np.array([0] * 30 + [1] * 30 + [2] * 40)
    b = np.array([1] * 30 + [2] * 30 + [0] * 40)
    outcome = np.r_[np.where(np.arange(30) < 18, 1, -1), np.ones(30, dtype=int),  # B always beats C
                    np.where(np.arange(40) < 1, 1, -1)]  # C beats A once
    a = np.r_[a, 1, 2]
    b = np.r_[b, 0, 1]
    outcome = np.r_[outcome, 0, -1]
    c = bt.cells(a, b, outcome, 3)
    boot = bt.bootstrap(c, 300, seed=2)
    assert 50 < boot.not_converged < 250  # P(no win of C's 1 in 40 resampled of ~100 votes) is about e^-1
    assert np.isfinite(boot.strengths).all()
    low, high = bt.percentile_interval(boot.strengths, 0.95)
    assert np.isfinite(low).all() and low[2] < -10  # C's lower bound is the runaway replicates'


@pytest.mark.parametrize("spread", [0.0, 1.0, 4.0, 10.0])  # P(strongest beats weakest) from 1/2 to 1 - 4.5e-5
@pytest.mark.parametrize("nu", [0.0, 0.05, 1.0, 5.0])
def test_expected_counts_give_back_the_true_strengths(spread: float, nu: float) -> None:
    """With the model's expected counts as data (n_ij P(i beats j), n_ij P(tie)), the score equations hold at
    the true parameters, so the maximum is the truth: an exact check across strengths near 0 and 1 and tie
    rates from none to most votes."""
    k = 5
    s = np.linspace(spread / 2, -spread / 2, k)
    n = 100.0 + 10 * np.arange(k)[:, None] + np.arange(k)[None, :]
    n = np.triu(n, 1) + np.triu(n, 1).T
    pi, pj = np.exp(s)[:, None], np.exp(s)[None, :]
    d = pi + pj + nu * np.sqrt(pi * pj)
    wins = n * pi / d
    ties = n * nu * np.sqrt(pi * pj) / d
    np.fill_diagonal(wins, 0)
    np.fill_diagonal(ties, 0)
    f = bt.fit(wins, ties, "davidson")
    assert f.converged and f.finite
    np.testing.assert_allclose(f.strengths, s - s.mean(), atol=1e-8)
    assert float(f.nu) == pytest.approx(nu, abs=1e-9)
