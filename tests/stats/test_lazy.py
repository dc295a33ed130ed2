"""scipy.stats on first use, or imported in the background while a build reads its data (``prefetch``)."""

from __future__ import annotations

import sys
import threading

import pytest

import sigreport
from sigreport.analyses import uses_scipy_stats
from sigreport.stats.lazy import LazyModule


def test_prefetch_imports_in_another_thread_and_the_module_is_then_used(monkeypatch):
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    seen = []
    real = LazyModule._import_quietly

    def spy(self):
        seen.append(threading.current_thread() is not threading.main_thread())
        real(self)

    monkeypatch.setattr(LazyModule, "_import_quietly", spy)
    lazy = LazyModule("colorsys")
    lazy.prefetch()()
    assert seen == [True] and lazy._module is sys.modules["colorsys"]
    assert lazy.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
    lazy.prefetch()()  # already imported: nothing started
    assert seen == [True]


def test_a_failed_prefetch_raises_at_the_first_use_as_without_it():
    lazy = LazyModule("sigreport_no_such_module")
    lazy.prefetch()()  # quiet in the thread
    with pytest.raises(ModuleNotFoundError):
        lazy.anything


@pytest.mark.parametrize("omnibus, expected", [("friedman", True), ("auto", True), ("rm_anova", False),
                                               ("none", False)])
def test_builds_prefetch_scipy_stats_for_friedman(omnibus, expected):
    spec = sigreport.load_spec({"title": "t", "data": {"scores": "s.csv"}, "metrics": {"m": {"higher_is_better": True}},
                                "tests": {"omnibus": omnibus}})
    assert uses_scipy_stats(spec.spec) is expected
