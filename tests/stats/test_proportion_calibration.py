"""The 0/1 rows of benchmarks/calibration.py (``--proportions``): exact coverage of the proportion intervals.

Checked against what is known of them: Clopper-Pearson's interval is exact, so its coverage is at least the
level at every n and p (Clopper and Pearson 1934); the mean's t interval and Wald's have zero width when no item
(or every item) is right, which happens with probability (1 - p)^n (0.95^20 = 0.3585 at n = 20, p = 0.05:
the binomial probability of 0 successes); Wilson's coverage on these cells lies between 0.92 and 0.98 (the
values docs/calibration.md prints: 0.9245 to 0.9703), so a change to the interval that moves it fails here.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "benchmarks", "calibration.py")


def _load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("sigreport_calibration_proportions", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_exact_coverage_of_the_proportion_intervals() -> None:
    rows = _load_script().proportion_coverage(0.95)
    by = {(n, p, m): (cov, zero) for n, p, m, cov, zero in rows}
    for (n, p, m), (cov, zero) in by.items():
        if m == "clopper_pearson":
            assert cov >= 0.95, (n, p)
        if m != "wald" and not m.startswith("t "):
            assert zero == 0, (n, p, m)
        if m == "wilson":
            assert 0.92 <= cov <= 0.98, (n, p)
    cov_t, zero_t = by[(20, 0.05, "t (the mean's)")]
    assert zero_t == pytest.approx(0.95 ** 20)
    assert cov_t < 0.65 < by[(20, 0.05, "wilson")][0]


def test_paired_coverage_newcombe_against_paired_t() -> None:
    rows = _load_script().paired_coverage(0.95, 4000, 1)
    newcombe = [r[4] for r in rows if r[3] == "newcombe_paired"]
    paired_t = {(r[0], r[1], r[2]): r[4] for r in rows if r[3] == "paired t"}
    assert min(newcombe) > 0.93
    assert paired_t[(20, 0.95, 0.9)] < 0.85
