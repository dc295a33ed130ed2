"""Which module a build imports in the background while it reads its data (``sigreport.analyses.imports_ahead``;
the mechanism's own tests are in tests/speed/test_speed.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sigreport
from conftest import CONFIGS, ROOT
from sigreport.analyses import imports_ahead


@pytest.mark.parametrize("tests, expected", [
    ({"omnibus": "friedman"}, "scipy.stats"), ({"omnibus": "auto"}, "scipy.stats"),
    ({"omnibus": "rm_anova"}, "scipy.special"), ({}, "scipy.special"),  # the defaults: paired t and RM-ANOVA
    ({"omnibus": "none"}, "scipy.special"), ({"omnibus": "none", "pairwise": "bootstrap"}, None),
    ({"omnibus": "rm_anova", "pairwise": "permutation"}, "scipy.special")])
def test_builds_prefetch_the_distributions_their_tests_use(tests, expected):
    spec = sigreport.load_spec({"title": "t", "data": {"scores": "s.csv"}, "metrics": {"m": {"higher_is_better": True}},
                                "tests": tests})
    assert imports_ahead(spec.spec) == expected


CHECK = """
import sys
import sigreport
from sigreport.analyses import imports_ahead
path = sys.argv[1]
ahead = imports_ahead(sigreport.load_spec(path).spec)
assert ahead is None or ahead not in sys.modules, ahead
sigreport.analyze(path, plain=True)  # the plain path prefetches nothing: what the analyses import themselves
print(ahead, ahead is None or ahead in sys.modules)
"""


@pytest.mark.parametrize("config", sorted(p.name for p in CONFIGS.glob("*.yaml")))
def test_the_module_imported_ahead_is_one_the_analyses_import_anyway(config):
    """A prefetch costs a build nothing only when the build would import that module anyway: for every example
    spec, the module named (if any) is imported by its analyses on the plain path, which prefetches nothing."""
    r = subprocess.run([sys.executable, "-c", CHECK, str(CONFIGS / config)], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[-1] == "True", r.stdout
