"""docs/extending.md's plugin, taken from the page and installed as pip would (its module and a dist-info with
its entry points, on a path of its own), is a method like a built-in one: validation knows it, and results.json,
the HTML report, the LaTeX tables and the methods paragraph show it with its reference. Each sigreport runs in
its own interpreter with that path added: nothing is installed into the venv, and this process's registry never
sees the plugin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from conftest import CONFIGS, ROOT

DOC = ROOT / "docs" / "extending.md"


def doc_files() -> dict[str, str]:
    """The page's fenced blocks that start with '# file: NAME', by NAME."""
    out = {}
    for body in re.findall(r"```(?:python|toml|yaml)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        m = re.fullmatch(r"# file: (\S+)", body.splitlines()[0])
        if m:
            out[m.group(1)] = body
    return out


def install(files: dict[str, str], site: Path) -> None:
    """What ``pip install .`` leaves for importlib.metadata: the module and a dist-info whose entry_points.txt
    is the pyproject's entry point table."""
    project = tomllib.loads(files["pyproject.toml"])["project"]
    site.mkdir()
    for module in tomllib.loads(files["pyproject.toml"])["tool"]["setuptools"]["py-modules"]:
        (site / f"{module}.py").write_text(files[f"{module}.py"], encoding="utf-8")
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
                                   encoding="utf-8")
    lines = [line for group, eps in project["entry-points"].items()
             for line in [f"[{group}]", *(f"{k} = {v}" for k, v in eps.items())]]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def sigreport(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    return subprocess.run([sys.executable, "-m", "sigreport.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def plugin(tmp_path: Path) -> tuple[Path, Path]:
    """(site folder holding the installed plugin, folder of the doc's spec with its data)."""
    files = doc_files()
    assert set(files) == {"sigreport_example_plugin.py", "pyproject.toml", "spec.yaml"}
    install(files, tmp_path / "site")
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    shutil.copy(CONFIGS / "data" / "summarizers.csv", work / "data")
    (work / "spec.yaml").write_text(files["spec.yaml"], encoding="utf-8")
    return tmp_path / "site", work


def test_the_plugin_is_a_method_like_a_built_in_one(plugin):
    site, work = plugin
    listed = json.loads(sigreport(site, work, "methods", "--format", "json").stdout)["methods"]
    mine = next(m for m in listed if m["name"] == "median_signflip")
    assert mine["origin"] == "median_signflip = sigreport_example_plugin" and mine["references"][0]["cite"] == "Good 2005"
    assert sigreport(site, work, "validate", "spec.yaml").returncode == 0
    r = sigreport(site, work, "build", "spec.yaml", "-o", "out", "--no-cache", "-q")
    assert r.returncode == 0, r.stderr
    out = work / "out"
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    pairwise = next(a for a in results["analyses"] if a["kind"] == "pairwise")
    assert pairwise["method"] == "median_signflip" and results["tests"]["pairwise"] == "median_signflip"
    # A - B on the three texts of configs/data/summarizers.csv; the p-value is scipy's (an independent reference):
    # scipy.stats.permutation_test((d,), np.median, permutation_type="samples", n_resamples=np.inf).pvalue = 0.5
    import scipy.stats

    d = np.array([0.59 - 0.39, 0.58 - 0.44, 0.57 - 0.45])
    ref = scipy.stats.permutation_test((d,), np.median, permutation_type="samples", n_resamples=np.inf)
    row = pairwise["pairs"][0]
    assert row["estimate"] == pytest.approx(np.median(d)) and row["pvalue"] == pytest.approx(ref.pvalue) == 0.5
    assert row["exact"] is True
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "sign-flip permutation test of the median difference" in html and "Good 2005" in html
    assert "median = 0.14 (exact)" in html  # its statistic_text, in the plain sentence
    tex = (out / "tables" / "rouge1_recall--texts--pairwise.tex").read_text(encoding="utf-8")
    assert "sign-flip permutation test of the median difference" in tex
    methods = (out / "methods.md").read_text(encoding="utf-8")
    assert "the two-sided sign-flip permutation test of the median difference (Good 2005)" in methods
    assert "Phillip I. Good. Permutation, Parametric and Bootstrap Tests of Hypotheses." in methods
    assert "@book{good2005," in (out / "tables" / "references.bib").read_text(encoding="utf-8")
    assert "\\cite{good2005}" in (out / "tables" / "methods.tex").read_text(encoding="utf-8")


def test_unknown_names_still_fail_and_the_plugin_is_among_the_allowed(plugin):
    site, work = plugin
    spec = work / "spec.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("median_signflip", "median_signflop"), encoding="utf-8")
    r = sigreport(site, work, "validate", "spec.yaml")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "'median_signflop' is not allowed" in r.stderr and "'median_signflip'" in r.stderr


def test_a_broken_plugin_is_one_user_error_naming_its_entry_point(plugin):
    site, work = plugin
    module = site / "sigreport_example_plugin.py"
    module.write_text(module.read_text(encoding="utf-8").replace('display=DISPLAY,', 'display="",'), encoding="utf-8")
    r = sigreport(site, work, "validate", "spec.yaml")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "plugin entry point median_signflip = sigreport_example_plugin" in r.stderr
    assert "pairwise/median_signflip: display is empty" in r.stderr
    module.write_text("raise RuntimeError('no')\n", encoding="utf-8")
    r = sigreport(site, work, "validate", "spec.yaml")
    assert r.returncode == 2 and "could not be loaded: RuntimeError: no" in r.stderr, r.stderr


def test_help_does_not_load_plugins(plugin):
    site, work = plugin
    (site / "sigreport_example_plugin.py").write_text("raise RuntimeError('loaded')\n", encoding="utf-8")
    r = sigreport(site, work, "--help")
    assert r.returncode == 0 and "methods" in r.stdout


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_the_plugins_exact_p_values_are_scipys(tmp_path, alternative):
    """The doc's claim: scipy.stats.permutation_test(..., permutation_type="samples") on the differences (sign
    flips, every assignment enumerated) gives the same p-values."""
    import importlib.util

    import scipy.stats

    path = tmp_path / "sigreport_example_plugin.py"
    path.write_text(doc_files()["sigreport_example_plugin.py"], encoding="utf-8")
    spec = importlib.util.spec_from_file_location("doc_plugin", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(7)
    for n in (3, 6, 9, 12):
        d = np.round(rng.normal(0.1, 1.0, n), 2)  # rounded: ties among the differences and their medians
        m, p, exact = module.median_signflip(d, alternative, 10_000, 0)
        ref = scipy.stats.permutation_test((d,), np.median, permutation_type="samples", n_resamples=np.inf,
                                           alternative=alternative)
        assert exact and m == ref.statistic and p == pytest.approx(ref.pvalue, rel=1e-12), (n, d)
