"""Which builds import scipy.stats in the background while they read their data (``sigreport.speed.imports``,
whose own tests are in tests/speed/test_speed.py)."""

from __future__ import annotations

import pytest

import sigreport
from sigreport.analyses import uses_scipy_stats


@pytest.mark.parametrize("omnibus, expected", [("friedman", True), ("auto", True), ("rm_anova", False),
                                               ("none", False)])
def test_builds_prefetch_scipy_stats_for_friedman(omnibus, expected):
    spec = sigreport.load_spec({"title": "t", "data": {"scores": "s.csv"}, "metrics": {"m": {"higher_is_better": True}},
                                "tests": {"omnibus": omnibus}})
    assert uses_scipy_stats(spec.spec) is expected
