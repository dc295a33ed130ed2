"""The partial-conjunction procedure of Dror et al. (2017) (sigreport.stats.replicability) by hand, and
deepsig 1.2.8's misplaced values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sigreport.stats.replicability import at_inputs, k_estimate, one_sided_from_two_sided, partial_conjunction


def chi2_sf_even(x: float, df: int) -> float:
    """P(chi2_df >= x) for even df = 2k, by hand: exp(-x/2) sum_{j<k} (x/2)^j / j!."""
    k = df // 2
    return math.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(k))


P = [0.3, 0.01, 0.04, 0.02]


def test_bonferroni_by_hand():
    # sorted 0.01, 0.02, 0.04, 0.3; p^{u/4} = (4 - u + 1) p_(u): 0.04, 0.06, 0.08, 0.3 (already non-decreasing)
    pc = partial_conjunction(np.array(P), "bonferroni")
    assert pc[0] == pytest.approx([0.04, 0.06, 0.08, 0.3])
    assert k_estimate(pc, 0.05)[0] == 1 and k_estimate(pc, 0.1)[0] == 3 and k_estimate(pc, 0.01)[0] == 0
    assert at_inputs(np.array(P), pc)[0] == pytest.approx([0.3, 0.04, 0.08, 0.06])


def test_deepsig_misplaces_unsorted_input():
    import deepsig  # a test dependency (pyproject's test extra)

    got = deepsig.bonferroni_correction(np.array(P))
    assert got == pytest.approx([0.06, 0.3, 0.08, 0.04])  # deepsig 1.2.8: gathered by the sort order
    ours = at_inputs(np.array(P), partial_conjunction(np.array(P), "bonferroni"))[0]
    assert ours == pytest.approx([0.3, 0.04, 0.08, 0.06])
    # on sorted input the two agree: the values are right, only their positions are not
    s = np.sort(P)
    assert deepsig.bonferroni_correction(s) == pytest.approx(partial_conjunction(s, "bonferroni")[0])


def test_fisher_by_hand():
    asc = sorted(P)
    want = []
    for u in range(1, 5):
        stat = -2 * sum(math.log(p) for p in asc[u - 1:])
        want.append(chi2_sf_even(stat, 2 * (4 - u + 1)))
    want = list(np.maximum.accumulate(want))
    pc = partial_conjunction(np.array(P), "fisher")
    assert pc[0] == pytest.approx(want, rel=1e-12)
    # u = 1: -2 ln(0.3 * 0.01 * 0.04 * 0.02) = 25.880..., chi2 with 8 df
    assert pc[0][0] == pytest.approx(chi2_sf_even(-2 * math.log(0.3 * 0.01 * 0.04 * 0.02), 8))
    assert k_estimate(pc, 0.05)[0] == sum(v <= 0.05 for v in want)


def test_monotone_and_six_corpora():
    # (N - u + 1) p_(u) is not monotone: [0.03, 0.04] gives 0.06 then 0.04; rejecting "at least 2" without
    # "at least 1" is impossible, so the running maximum holds 0.06 and k_hat = 0
    pc = partial_conjunction(np.array([0.04, 0.03]), "bonferroni")
    assert pc[0] == pytest.approx([0.06, 0.06]) and k_estimate(pc, 0.05)[0] == 0
    # the six p-values of the authors' example prompt: 6 * 0.001 = 0.006, then 5 * 0.019 = 0.095
    six = np.array([0.168, 0.297, 0.357, 0.019, 0.218, 0.001])
    pc = partial_conjunction(six, "bonferroni")
    assert pc[0][:2] == pytest.approx([0.006, 0.095]) and k_estimate(pc, 0.05)[0] == 1


def test_rows_are_pairs_and_edges():
    rows = np.array([P, [0.001] * 4, [1.0] * 4, [0.0, 0.5, 0.5, 0.5]])
    for method in ("bonferroni", "fisher"):
        pc = partial_conjunction(rows, method)
        for i in range(rows.shape[0]):
            assert np.array_equal(pc[i], partial_conjunction(rows[i], method)[0])
        assert np.all((pc >= 0) & (pc <= 1)) and np.all(np.diff(pc, axis=1) >= 0)
    assert k_estimate(partial_conjunction(rows[1], "bonferroni"), 0.05)[0] == 4
    assert k_estimate(partial_conjunction(np.array([0.1, np.nan]), "fisher"), 0.05)[0] == -1
    with pytest.raises(ValueError, match="unknown"):
        partial_conjunction(rows, "stouffer")


def test_one_sided_from_two_sided():
    got = one_sided_from_two_sided(np.array([0.04, 0.04, 1.0]), np.array([0.2, -0.2, 0.0]), 1.0)
    assert got == pytest.approx([0.02, 0.98, 0.5])
    assert one_sided_from_two_sided(np.array([0.04]), np.array([0.2]), -1.0) == pytest.approx([0.98])
