"""Release archives: three releases of a small example with engineered changes, their diffs,
the index, verification, release names, immutability and bad input.

The example: systems A, B, C (and D in the third release) on 12 items, `pairwise: auto`, no correction and
no omnibus test, so each engineered change moves exactly one thing:
  v1 -> v2: B's scores rise by 0.03 on every item: B vs C flips from not significant to significant.
  v2 -> v3: system D is added, far below the others, with one outlying item; its differences fail
            Shapiro-Wilk, so `pairwise: auto` chooses Wilcoxon instead of the paired t test. Every pair of
            A, B, C differs in the same direction on all 12 items (A-B, A-C, B-C > 0), so every decision
            among them stays significant under either test. v3's manifest then gets another numpy version.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from sigreport.archive import diff as diffs
from sigreport.archive import notes
from sigreport.archive import releases
from sigreport.archive.manifest import MANIFEST_NAME, manifest_digest, read_manifest, sha256_file, software_versions
from sigreport.cli import main

NOISE = [0.01, -0.02, 0.015, -0.005, 0.02, -0.015, 0.005, -0.01, 0.012, -0.012, 0.008, -0.008]
# A's noise: NOISE permuted so that every pair's differences in v1 and v2 pass Shapiro-Wilk with p >= 0.2
# (found by trying permutations with scipy.stats.shapiro, scipy 1.17; test_example_is_what_the_changes_assume
# checks the resulting choice).
A_NOISE = [NOISE[j] for j in (8, 11, 4, 7, 5, 0, 1, 9, 2, 10, 6, 3)]
SPEC = """title: Archive example
seed: 0
data:
  scores: data/scores.csv
metrics:
  m:
    higher_is_better: true
    decimals: 4
tests:
  pairwise: auto
  correction: none
  omnibus: none
  posthoc: none
outputs:
  formats: [html, json]
"""


def scores(release: int) -> str:
    rows = ["system,corpus,item,metric,value"]
    for i, e in enumerate(NOISE):
        base = 0.40 + 0.01 * i
        values = {"A": base + 0.10 + 0.5 * A_NOISE[i],
                  "B": base + (0.002 + e if release == 1 else 0.03 + 0.5 * e),
                  "C": base}
        if release == 3:
            values["D"] = base - (1.5 if i == 0 else 0.2 + 0.5 * e)
        rows += [f"{s},c,i{i},m,{v:.6f}" for s, v in values.items()]
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three releases built through the CLI; v1's data kept aside (the table is then changed in place)."""
    root = tmp_path_factory.mktemp("proj")
    (root / "data").mkdir()
    (root / "spec.yaml").write_text(SPEC, encoding="utf-8")
    for n in (1, 2, 3):
        (root / "data" / "scores.csv").write_text(scores(n), encoding="utf-8")
        if n == 1:
            (root / "v1-data").mkdir()
            shutil.copy(root / "data" / "scores.csv", root / "v1-data" / "scores.csv")
        assert main(["build", str(root / "spec.yaml"), "--release", f"v{n}", "-q"]) == 0
    m3 = root / "reports" / "v3" / MANIFEST_NAME
    doc = json.loads(m3.read_text(encoding="utf-8"))
    doc["libraries"]["numpy"] = "0.0-simulated"
    m3.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return root / "reports"


def results(archive: Path, name: str) -> dict:
    return releases.read_results(archive / name)


# ---- the engineered changes ------------------------------------------------------------------------


def test_example_is_what_the_changes_assume(archive: Path) -> None:
    """Guards the engineering: t tests in v1 and v2, Wilcoxon in v3; B vs C significant only from v2."""
    method = {n: next(a for a in results(archive, n)["analyses"] if a["kind"] == "pairwise")["method"]
              for n in ("v1", "v2", "v3")}
    assert method == {"v1": "paired_t", "v2": "paired_t", "v3": "wilcoxon"}


def test_diff_v1_v2_lists_exactly_the_flip(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = diffs.diff_results(results(archive, "v1"), results(archive, "v2"), read_manifest(archive / "v1"),
                           read_manifest(archive / "v2"))
    assert [(f.analysis, f.a, f.b, f.old_significant, f.new_significant, f.reason) for f in d.flips] == [
        ("m/c/pairwise", "B", "C", False, True, "significance")]
    f = d.flips[0]
    assert f.old_pvalue > 0.05 > f.new_pvalue and 0 < f.old_estimate < f.new_estimate
    assert (d.omnibus_flips, d.rank_changes, d.choice_changes, d.pairs_changes, d.set_changes,
            d.analyses_added, d.analyses_removed) == ((),) * 7
    assert (d.cause.data, d.cause.spec, d.cause.software, d.cause.data_files) == (True, False, False, ("scores.csv",))
    for fail_on in ("conclusions", "flips", "any"):
        code, out, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive, "--fail-on", fail_on)
        assert code == 1, fail_on
    assert out.startswith("1 conclusion changed since v1: B vs C on m · c now significant (data of B changed)\n"), out
    assert "the data of B changed (mean 0.4570 → 0.4850)" in out and "m/c/pairwise" not in out  # labels, not ids


def test_diff_v2_v3_new_system_choice_and_software(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = diffs.diff_results(results(archive, "v2"), results(archive, "v3"), read_manifest(archive / "v2"),
                           read_manifest(archive / "v3"))
    assert (d.flips, d.omnibus_flips, d.rank_changes, d.analyses_added, d.analyses_removed) == ((),) * 5
    assert [(s.what, s.added, s.removed) for s in d.set_changes] == [("systems", ("D",), ())]
    assert [(p.analysis, p.added, p.removed) for p in d.pairs_changes] == [
        ("m/c/pairwise", ("A vs D", "B vs D", "C vs D"), ())]
    [ch] = d.choice_changes
    assert (ch.analysis, ch.old_method, ch.new_method) == ("m/c/pairwise", "paired_t", "wilcoxon")
    assert ch.old_reason and ch.new_reason and ch.old_reason != ch.new_reason
    assert d.cause.software_changes == (("numpy", software_versions()["numpy"], "0.0-simulated"),)
    assert (d.cause.data, d.cause.spec, d.cause.software) == (True, False, True)
    expected = {"conclusions": 0, "flips": 0, "any": 1}
    for fail_on, code in expected.items():
        assert run_cli(capsys, "diff", "v2", "v3", "--archive", archive, "--fail-on", fail_on)[0] == code, fail_on
    code, out, _ = run_cli(capsys, "diff", archive / "v2", archive / "v3")
    assert code == 0 and out.startswith("no conclusion changed") and "numpy" in out and "wilcoxon" in out


def test_diff_of_a_release_with_itself_is_empty(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", "v2", "v2", "--archive", archive, "--fail-on", "any")
    assert code == 0 and "Pairwise" not in out


def test_diff_formats(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["conclusions_changed"] is True and doc["flips"][0]["b"] == "C"
    code, md, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "markdown")
    assert md.startswith("1 conclusion changed since v1: B vs C on m · c now significant (data of B changed)\n")
    assert "| Where | Conclusion | v1 | v2 | Cause |" in md and "none" not in md
    code, page, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and "B vs C" in page
    assert not any(s in page.lower() for s in ("http:", "https:", "src=", "<script", "@import"))
    hrefs = re.findall(r'href="([^"]*)"', page)  # each row links to the two reports, by relative paths only
    assert hrefs and all(not h.startswith("/") and ":" not in h for h in hrefs), hrefs


def test_html_diff_escapes_names() -> None:
    old = {"schema_version": 1, "systems": ["<b>x</b>"], "analyses": []}
    new = {"schema_version": 1, "systems": ["<script>alert(1)</script>"], "analyses": []}
    page = notes.render_html(diffs.diff_results(old, new))
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>x" not in page


# ---- the release folders, the manifest and the index ------------------------------------------------


def test_release_holds_report_spec_diff_and_manifest(archive: Path) -> None:
    assert not (archive / "v1" / "diff.html").exists()
    for n in ("v2", "v3"):
        m = read_manifest(archive / n)
        assert set(m["outputs"]) == {"index.html", "results.json", "spec.yaml", "diff.html", "main.md", "main.csv",
                                     "methods.md"}
        assert m["previous"] == f"v{int(n[1]) - 1}"
    m = read_manifest(archive / "v1")
    assert m["sequence"] == 1 and m["previous"] is None and m["seed"] == 0 and m["resamples"] == 10000
    assert m["spec"]["text"] == SPEC and (archive / "v1" / "spec.yaml").read_text(encoding="utf-8") == SPEC
    assert [(i["role"], i["name"], i["path"]) for i in m["inputs"]] == [("scores", "scores.csv", "data/scores.csv")]
    assert set(m["libraries"]) >= {"numpy", "scipy", "pandas", "pydantic", "jinja2", "weasyprint", "pyarrow"}
    assert "built_at" in m
    for f in ("index.html", "results.json"):
        text = (archive / "v1" / f).read_text(encoding="utf-8")
        assert m["built_at"][:10] not in text  # no timestamp inside report files


def test_index_lists_releases_newest_first_with_headlines(archive: Path) -> None:
    doc = json.loads((archive / "index.json").read_text(encoding="utf-8"))
    assert [r["release"] for r in doc["releases"]] == ["v3", "v2", "v1"]
    v1, v2 = doc["releases"][2], doc["releases"][1]
    assert v1["best"] == [{"metric": "m", "corpus": "c", "system": "A", "mean": pytest.approx(0.555, abs=1e-9),
                           "tied": ["A"], "label": "m", "decimals": 4}]
    assert (v1["significant"], v1["decisions"], v2["significant"], v2["decisions"]) == (2, 3, 3, 3)
    assert (v1["diff"], v2["diff"], v2["report"]) == (None, "v2/diff.html", "v2/index.html")
    page = (archive / "index.html").read_text(encoding="utf-8")
    assert page.index(">v3<") < page.index(">v2<") < page.index(">v1<")
    assert 'href="v2/diff.html"' in page and 'href="v1/index.html"' in page
    assert not any(s in page for s in ("http:", "https:", "src=", "<script"))
    assert not list(archive.glob(".index*"))  # no temporary file left


def test_index_write_is_atomic(archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure at the final rename leaves the old index whole and no temporary file behind."""
    copy = tmp_path / "a"
    shutil.copytree(archive, copy)
    (copy / "stray").mkdir()
    (copy / "stray" / MANIFEST_NAME).write_text('{"format": "other"}')  # not a release: skipped
    before = (copy / "index.json").read_bytes()

    def refuse(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(releases.os, "replace", refuse)
    with pytest.raises(OSError):
        releases.write_index(copy)
    assert (copy / "index.json").read_bytes() == before and not list(copy.glob(".index*"))
    monkeypatch.undo()
    releases.write_index(copy)
    assert [r["release"] for r in json.loads((copy / "index.json").read_text())["releases"]] == ["v3", "v2", "v1"]


def test_index_rewrites_are_serialised(archive: Path, tmp_path: Path) -> None:
    """A rewrite waits for the archive's index lock: two release builds finishing at once cannot scan in one
    order and write in the other (which would leave a release out of the index)."""
    import threading

    from sigreport.archive import store

    copy = tmp_path / "a"
    shutil.copytree(archive, copy)
    (copy / "index.json").unlink()
    done = threading.Event()
    worker = threading.Thread(target=lambda: (releases.write_index(copy), done.set()))
    with store.locked(copy / "index.json"):  # another build rewriting the index
        worker.start()
        assert not done.wait(0.5) and not (copy / "index.json").exists()
    worker.join(10)
    assert done.is_set() and not list(copy.glob(".index*"))
    assert [r["release"] for r in json.loads((copy / "index.json").read_text())["releases"]] == ["v3", "v2", "v1"]


def test_previous_dir_is_compared(project: Path, archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--previous DIR: the release is compared with that report (here v2 of the other archive)."""
    code, _, _ = run_cli(capsys, "build", project / "spec.yaml", "--release", "p1", "--previous", archive / "v2", "-q")
    m = read_manifest(project / "reports" / "p1")
    assert code == 0 and m["previous"] == "v2" and "B vs C" in (project / "reports" / "p1" / "diff.html").read_text()
    assert run_cli(capsys, "build", project / "spec.yaml", "--release", "p2", "--previous", project)[0] == 2


def test_previous_results_for_selection(archive: Path) -> None:
    assert releases.previous_results(archive, "v4")["systems"] == ["A", "B", "C", "D"]
    assert releases.previous_results(archive, "v3")["systems"] == ["A", "B", "C"]
    assert releases.previous_results(archive, "v9", archive / "v1")["title"] == "Archive example"
    assert releases.previous_results(archive.parent / "empty-archive", "v1") is None


# ---- verify -------------------------------------------------------------------------------------------


def test_verify_untouched_release_rebuilds_identically(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "verify", archive / "v3")
    assert code == 0 and "rebuilt byte-identical" in out
    assert run_cli(capsys, "verify", archive / "v3", "--no-rebuild")[0] == 0


def test_verify_changed_input(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """v1's table was overwritten by v2's: reported as a changed input; with --data pointing at the
    original table, v1 rebuilds identically."""
    code, out, _ = run_cli(capsys, "verify", archive / "v1")
    assert code == 1 and "input changed: data/scores.csv" in out
    assert run_cli(capsys, "verify", archive / "v1", "--data", archive.parent / "v1-data")[0] == 0


def test_verify_tampered_output(archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "v3"
    shutil.copytree(archive / "v3", copy)
    (copy / "results.json").write_text((copy / "results.json").read_text().replace('"A"', '"Z"', 1))
    code, out, _ = run_cli(capsys, "verify", copy, "--no-rebuild")
    assert code == 1 and "results.json (changed)" in out
    (copy / "extra.txt").write_text("x")
    (copy / "index.html").unlink()
    code, out, _ = run_cli(capsys, "verify", copy, "--no-rebuild")
    assert code == 1 and "index.html (missing)" in out and "extra.txt (not in the manifest)" in out


def test_verify_tampered_spec_copy_is_not_rebuilt(archive: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "v3"
    shutil.copytree(archive / "v3", copy)
    (copy / "spec.yaml").write_text(SPEC.replace("seed: 0", "seed: 1"), encoding="utf-8")
    code, out, _ = run_cli(capsys, "verify", copy)
    assert code == 1 and "spec.yaml (changed)" in out and "rebuild differs" not in out


def test_verify_rejects_foreign_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / MANIFEST_NAME).write_text('{"format": "something-else"}')
    code, _, err = run_cli(capsys, "verify", tmp_path)
    assert code == 2 and "not a sigreport manifest" in err and "Traceback" not in err
    (tmp_path / MANIFEST_NAME).write_text("not json")
    assert run_cli(capsys, "verify", tmp_path, "--no-rebuild")[0] == 2
    assert run_cli(capsys, "verify", tmp_path / "nowhere")[0] == 2


# ---- names, immutability and bad input ----------------------------------------------------------------


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "scores.csv").write_text(scores(1), encoding="utf-8")
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", ["", "../x", "a/b", "a\\b", ".hidden", "..", "a..b", "index.html", "x" * 65,
                                  "a\nb", "v 1", "ä1", "/abs", "-v1"])
def test_bad_release_names_are_refused(project: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "build", project / "spec.yaml", f"--release={name}")
    assert code == 2 and "not a valid release name" in err and len(err.strip().splitlines()) == 2
    assert not (project / "reports").exists() and not (project.parent / "x").exists()


@pytest.mark.parametrize("name", ["v1", "1.2.0", "2024-06_rc+1", "x" * 64])
def test_good_release_names(name: str) -> None:
    assert releases.validate_release_name(name) == name


def test_release_is_immutable_unless_forced(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = project / "spec.yaml"
    assert run_cli(capsys, "build", spec, "--release", "v1", "-q")[0] == 0
    before = (project / "reports" / "v1" / MANIFEST_NAME).read_bytes()
    code, _, err = run_cli(capsys, "build", spec, "--release", "v1")
    assert code == 2 and "already exists" in err and "--force" in err
    assert (project / "reports" / "v1" / MANIFEST_NAME).read_bytes() == before
    code, out, _ = run_cli(capsys, "build", spec, "--release", "v1", "--force")
    assert code == 0 and out.startswith("replaced release v1 (build #1")
    assert read_manifest(project / "reports" / "v1")["sequence"] == 2


def test_archive_from_spec_and_flag(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = project / "spec.yaml"
    spec.write_text(SPEC.replace("outputs:\n", "outputs:\n  archive: releases\n"), encoding="utf-8")
    assert run_cli(capsys, "build", spec, "--release", "r1", "-q")[0] == 0
    assert (project / "releases" / "r1" / MANIFEST_NAME).is_file()
    assert run_cli(capsys, "build", spec, "--release", "r1", "-q", "--archive", project / "other")[0] == 0
    assert (project / "other" / "index.json").is_file()


def test_release_flags_misuse(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = project / "spec.yaml"
    assert run_cli(capsys, "build", spec, "--archive", project / "a")[0] == 2
    assert run_cli(capsys, "build", spec, "--release", "v1", "-o", project / "out")[0] == 2
    (project / "reports" / "v1").mkdir(parents=True)
    (project / "reports" / "v1" / "notes.txt").write_text("mine")
    code, _, err = run_cli(capsys, "build", spec, "--release", "v1", "--force")
    assert code == 2 and "not a sigreport release" in err
    assert (project / "reports" / "v1" / "notes.txt").read_text() == "mine"


def test_diff_bad_input(archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "diff", "v1", "v2", "--archive", tmp_path / "missing")
    assert code == 2 and "no archive" in err
    code, _, err = run_cli(capsys, "diff", "v1", "v7", "--archive", archive)
    assert code == 2 and "no release 'v7'" in err and "v3, v2, v1" in err
    assert run_cli(capsys, "diff", "v1", "../v2", "--archive", archive)[0] == 2
    assert run_cli(capsys, "diff", tmp_path, archive / "v1")[0] == 2  # no results.json
    other = tmp_path / "other"
    other.mkdir()
    doc = results(archive, "v1") | {"schema_version": 2}
    (other / "results.json").write_text(json.dumps(doc))
    code, _, err = run_cli(capsys, "diff", archive / "v1", other)
    assert code == 2 and "schema_version 1 vs 2" in err and "still comparable" in err
    assert len(err.strip().splitlines()) == 2 and "Traceback" not in err


# ---- the diff on hand-made documents: omnibus, ranks, direction, orientation ---------------------------


def doc(analyses: list[dict], systems: list[str] = ["A", "B", "C"]) -> dict:  # noqa: B006
    return {"schema_version": 1, "systems": systems, "corpora": ["c"],
            "metrics": {"m": {"higher_is_better": False}}, "analyses": analyses}


def test_omnibus_flip_and_friedman_rank_change() -> None:
    old = doc([{"id": "m/c/omnibus", "kind": "omnibus", "method": "friedman", "significant": True, "pvalue": 0.01,
                "average_ranks": {"A": 1.2, "B": 2.0, "C": 2.8}}])
    new = doc([{"id": "m/c/omnibus", "kind": "omnibus", "method": "friedman", "significant": False, "pvalue": 0.2,
                "average_ranks": {"A": 2.1, "B": 1.9, "C": 2.0}}])
    d = diffs.diff_results(old, new)
    assert [(o.old_significant, o.new_significant, o.old_pvalue, o.new_pvalue) for o in d.omnibus_flips] == [
        (True, False, 0.01, 0.2)]
    [r] = d.rank_changes
    assert (r.source, r.old_order, r.new_order, r.old_best, r.new_best) == (
        "average ranks", ("A", "B", "C"), ("B", "C", "A"), "A", "B")
    assert d.exit_code("flips") == 1


def test_lower_is_better_means_and_direction_reversal_with_swapped_pair() -> None:
    desc = lambda means: {"id": "m/c/descriptives", "kind": "descriptives",  # noqa: E731
                          "systems": [{"system": s, "mean": v} for s, v in means.items()]}
    old = doc([desc({"A": 0.1, "B": 0.2}), {"id": "m/c/pairwise", "kind": "pairwise", "pairs": [
        {"a": "A", "b": "B", "significant": True, "pvalue": 0.01, "pvalue_adjusted": 0.02, "estimate": -0.1}]}])
    new = doc([desc({"A": 0.3, "B": 0.2}), {"id": "m/c/pairwise", "kind": "pairwise", "pairs": [
        {"a": "B", "b": "A", "significant": True, "pvalue": 0.01, "pvalue_adjusted": 0.03, "estimate": -0.1}]}])
    d = diffs.diff_results(old, new)
    [f] = d.flips
    assert (f.a, f.b, f.reason, f.old_estimate, f.new_estimate, f.old_pvalue, f.new_pvalue) == (
        "B", "A", "direction", 0.1, -0.1, 0.02, 0.03)
    [r] = d.rank_changes  # lower is better: A best before, B best now
    assert (r.old_best, r.new_best) == ("A", "B") and d.pairs_changes == ()
    same = doc([desc({"A": 0.1, "B": 0.2}), {"id": "m/c/pairwise", "kind": "pairwise", "pairs": [
        {"a": "B", "b": "A", "significant": True, "estimate": 0.1}]}])
    assert diffs.diff_results(old, same).flips == ()


def test_added_and_removed_analyses_count_only_for_any() -> None:
    d = diffs.diff_results(doc([{"id": "x", "kind": "pairwise"}]), doc([{"id": "y", "kind": "pairwise"}]))
    assert (d.analyses_added, d.analyses_removed) == (("y",), ("x",))
    assert (d.exit_code(), d.exit_code("flips"), d.exit_code("any")) == (0, 0, 1)
    assert d.cause.spec is None  # no manifests: unknown


def test_release_manifest_holds_user_aggregate_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A user aggregate's module is an input like the data: its hash is in the manifest, and verify names it
    when it has changed since the release was built."""
    module = tmp_path / "agg_released.py"
    module.write_text("def precision(totals, n_items):\n    return totals[..., 0] / (totals[..., 0] + totals[..., 1])\n")
    rows = ["system,corpus,item,metric,value"] + [f"{s},c,i{i},{m},{v}" for s, vals in
                                                 {"A": [(1, 0), (1, 1), (2, 0)], "B": [(0, 1), (1, 0), (1, 1)]}.items()
                                                 for i, pair in enumerate(vals) for m, v in zip(("tp", "fp"), pair)]
    (tmp_path / "s.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "spec.yaml").write_text(
        "title: t\nseed: 1\ndata: {scores: s.csv}\n"
        "metrics: {p: {higher_is_better: true, aggregate: 'agg_released:precision', statistics: [tp, fp]}}\n"
        "tests: {pairwise: bootstrap, resamples: 99}\noutputs: {formats: [json]}\n", encoding="utf-8")
    assert run_cli(capsys, "build", "-q", "--no-cache", tmp_path / "spec.yaml", "--release", "r1")[0] == 0
    release = tmp_path / "reports" / "r1"
    entry = next(e for e in read_manifest(release)["inputs"] if e["role"] == "aggregate")
    assert entry["path"] == "agg_released.py" and entry["size"] == module.stat().st_size
    assert run_cli(capsys, "verify", release)[0] == 0
    module.write_text(module.read_text() + "# edited\n")
    code, out, _ = run_cli(capsys, "verify", release)
    assert code == 1 and "input changed: agg_released.py" in out


# ---- archives that are not sigreport's, immutability under --wait and -o, damaged documents -------------


def test_a_folder_that_is_not_an_archive_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--release v1 --archive site`` where site/ holds the user's own index.html (or index.json, or other
    files): exit 2, nothing written; an empty folder becomes an archive, marked as sigreport's."""
    spec = project / "spec.yaml"
    for name, text in (("index.html", "<h1>my site</h1>"), ("index.json", '{"pages": []}'), ("notes.txt", "mine")):
        site = project / f"site-{name}"
        site.mkdir()
        (site / name).write_text(text)
        code, _, err = run_cli(capsys, "build", spec, "--release", "v1", "--archive", site)
        assert code == 2 and "is not a sigreport archive" in err and "Traceback" not in err, err
        assert [p.name for p in site.iterdir()] == [name] and (site / name).read_text() == text
    empty = project / "empty"
    empty.mkdir()
    assert run_cli(capsys, "build", spec, "--release", "v1", "--archive", empty, "-q")[0] == 0
    assert (empty / releases.ARCHIVE_MARKER).is_file() and (empty / "index.json").is_file()
    (empty / "README.md").write_text("notes on our releases")  # a marked archive may hold the user's notes
    assert run_cli(capsys, "build", spec, "--release", "v2", "--archive", empty, "-q")[0] == 0


def test_an_archive_of_an_earlier_version_is_recognised(archive: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """An archive written before the marker (its index.json is sigreport's) is an archive: marked on its
    next index rewrite."""
    copy = tmp_path / "a"
    shutil.copytree(archive, copy)
    (copy / releases.ARCHIVE_MARKER).unlink()
    assert releases.is_archive(copy)
    releases.write_index(copy)
    assert (copy / releases.ARCHIVE_MARKER).is_file()


def test_a_release_written_while_a_build_waited_is_not_replaced(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Two ``--release v1 --wait 60`` builds: the second planned before the first wrote v1 and waited for its
    archive's lock; once it has the lock it finds v1 written and stops (exit 2), leaving the first build's release."""
    from sigreport.archive import store

    spec, dest = project / "spec.yaml", project / "reports" / "v1"
    dest.parent.mkdir()
    fd = os.open(store.lock_path(dest.parent), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # the first build holds the archive's lock
    first: list[int] = []

    def nap(seconds: float) -> None:  # the first build finishes while the second one waits
        if not first:
            os.close(fd)
            with monkeypatch.context() as m:
                m.setattr(store.time, "sleep", time.sleep)
                first.append(main(["build", str(spec), "--release", "v1", "-q", "--no-cache"]))

    monkeypatch.setattr(store.time, "sleep", nap)
    code, _, err = run_cli(capsys, "build", spec, "--release", "v1", "--wait", "60", "--no-cache")
    assert first == [0] and code == 2, err
    assert "release 'v1' was written by another build while this one waited" in err and "Traceback" not in err
    assert read_manifest(dest)["sequence"] == 1


def test_a_second_release_build_into_the_archive_stops_or_waits(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """While a release build holds the archive (its lock ``.reports.lock`` beside it), another release build into
    it, of another release, stops with exit 2 naming the archive and the holder's pid; with ``--wait`` it waits
    and is built once the first one is done."""
    from sigreport.archive import store

    spec, archive = project / "spec.yaml", project / "reports"
    archive.mkdir()
    fd = os.open(store.lock_path(archive), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"4242\n")
    code, _, err = run_cli(capsys, "build", spec, "--release", "v2", "--no-cache")
    assert code == 2 and "Traceback" not in err, err
    assert f"another sigreport build is writing the archive {archive} (pid 4242)" in err and "--wait" in err
    assert not (archive / "v2").exists()
    waited: list[float] = []

    def nap(seconds: float) -> None:  # the other build finishes while this one waits
        waited.append(seconds)
        if len(waited) == 3:
            os.close(fd)

    monkeypatch.setattr(store.time, "sleep", nap)
    code, _, err = run_cli(capsys, "build", spec, "--release", "v2", "--wait", "60", "--no-cache")
    assert code == 0 and len(waited) >= 3, err
    assert [r["release"] for r in json.loads((archive / "index.json").read_text())["releases"]] == ["v2"]


def test_two_release_builds_at_once_leave_both_in_order(project: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Two release builds into one archive at once: while the first (here, in this process) is between choosing
    its sequence number and moving its folder into the archive, a second ``sigreport build --release v2 --wait
    120`` process is started and given 6 s, time enough to finish were it not held at the archive's lock. Both
    succeed, one after the other: sequence numbers 1 and 2, v2 naming v1 as its previous release, the index
    listing both (without the lock both took sequence 1 and v2 had no previous release)."""
    second: list[subprocess.Popen[str]] = []
    choose = releases.next_sequence

    def next_sequence(archive: Path) -> int:
        n = choose(archive)
        if not second:
            second.append(subprocess.Popen(
                [sys.executable, "-m", "sigreport.cli", "build", str(project / "spec.yaml"), "--release", "v2",
                 "--wait", "120", "--no-cache", "-q"], stderr=subprocess.PIPE, text=True))
            with contextlib.suppress(subprocess.TimeoutExpired):
                second[0].wait(6)
        return n

    monkeypatch.setattr(releases, "next_sequence", next_sequence)
    code, _, err = run_cli(capsys, "build", project / "spec.yaml", "--release", "v1", "--no-cache", "-q")
    assert code == 0, err
    err2 = second[0].communicate(timeout=300)[1]
    assert second[0].returncode == 0, err2
    archive = project / "reports"
    v1, v2 = (read_manifest(archive / name) for name in ("v1", "v2"))
    assert (v1["sequence"], v2["sequence"]) == (1, 2) and (v1["previous"], v2["previous"]) == (None, "v1")
    assert [r["release"] for r in json.loads((archive / "index.json").read_text())["releases"]] == ["v2", "v1"]
    assert not (project / ".reports.lock").exists() and not list(archive.glob(".*.lock"))


def test_a_plain_build_into_a_release_folder_is_refused_unless_forced(project: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``build -o ARCHIVE/v1`` would replace a release behind the index's back: exit 2; with --force the
    report replaces it and the index is rewritten without it."""
    spec = project / "spec.yaml"
    for n in ("v1", "v2"):
        assert run_cli(capsys, "build", spec, "--release", n, "-q")[0] == 0
    v1 = project / "reports" / "v1"
    before = {p.name: p.read_bytes() for p in v1.iterdir()}
    code, _, err = run_cli(capsys, "build", spec, "-o", v1)
    assert code == 2 and f"{v1} is a release" in err and "--force" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in v1.iterdir()} == before
    assert run_cli(capsys, "build", spec, "-o", v1, "--force", "-q")[0] == 0
    assert not (v1 / MANIFEST_NAME).exists()
    index = json.loads((project / "reports" / "index.json").read_text())
    assert [r["release"] for r in index["releases"]] == ["v2"]


def damage(folder: Path, name: str, edit: str) -> None:
    """Hand-edit or damage one JSON file of a release folder."""
    path = folder / name
    if edit == "truncated":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    elif edit == "not UTF-8":
        path.write_bytes(b"\xff\xfe" + path.read_bytes())
    elif edit == "NaN":
        path.write_text(path.read_text().replace('"seed": 0', '"seed": NaN', 1))
    elif edit == "deep nesting":
        path.write_text("[" * 100_000 + "]" * 100_000)
    elif edit == "wrong type":
        doc = json.loads(path.read_text())
        if name == "results.json":
            next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]["significant"] = "yes"
        else:
            doc["inputs"][0]["sha256"] = 5
        path.write_text(json.dumps(doc))


EDITS = [(n, e) for n in ("results.json", "manifest.json")
         for e in ("truncated", "not UTF-8", "NaN", "deep nesting", "wrong type")]
FIELD = {("results.json", "wrong type"): "analyses[1].pairs[0].significant: expected true or false or null, got "
                                          '"yes"', ("manifest.json", "wrong type"): "inputs[0].sha256: expected a sha256"}


@pytest.mark.parametrize("name,edit", EDITS)
def test_hand_edited_json_is_a_user_error_everywhere(archive: Path, tmp_path: Path, name: str, edit: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """diff, verify (with and without the rebuild) and --previous: one line naming the file (and the field),
    exit 2, no traceback."""
    shutil.copytree(archive, tmp_path / "a")
    bad = tmp_path / "a" / "v2"
    damage(bad, name, edit)
    commands = [("diff", archive / "v1", bad), ("diff", "v1", "v2", "--archive", tmp_path / "a"),
                ("verify", bad, "--no-rebuild"), ("verify", bad),
                ("build", archive.parent / "spec.yaml", "--release", "p", "--archive", tmp_path / "p",
                 "--previous", bad, "-q")]
    for argv in commands:
        code, out, err = run_cli(capsys, *argv)
        if name == "results.json" and argv[0] == "verify":
            assert code == 1 and "results.json (changed)" in out, (argv, out, err)  # a changed file, not an error
            continue
        assert code == 2 and "Traceback" not in err, (argv, err)
        assert len(err.strip().splitlines()) == 1 and str(bad / name) in err, (argv, err)
        assert FIELD.get((name, edit), "") in err, (argv, err)


def test_one_damaged_release_does_not_stop_later_release_builds(archive: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """v3's results.json and v2's manifest damaged: a new release builds (exit 0), compares with v1, the
    index leaves v2 and v3 out, and a warning names each."""
    copy = tmp_path / "a"
    shutil.copytree(archive, copy)
    damage(copy / "v3", "results.json", "truncated")
    damage(copy / "v2", "manifest.json", "wrong type")
    code, _, err = run_cli(capsys, "build", archive.parent / "spec.yaml", "--release", "v4", "--archive", copy, "-q")
    assert code == 0 and "Traceback" not in err, err
    assert "release v3 is not used as the previous release" in err and "left release v3 out of the index" in err
    assert "skipped v2 in the archive" in err and "inputs[0].sha256" in err
    assert read_manifest(copy / "v4")["previous"] == "v1"
    index = json.loads((copy / "index.json").read_text())
    assert [r["release"] for r in index["releases"]] == ["v4", "v1"]


# ---- verify: a forged release, a published digest, and the three outcomes ---------------------------------


def forge(release: Path, spec_hash: str | None) -> None:
    """The forgery: flip a pairwise decision in results.json, write the file's new hash into the manifest and,
    unless ``spec_hash`` is None, put that value in the manifest's spec hash."""
    doc = json.loads((release / "results.json").read_text(encoding="utf-8"))
    pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    pair["significant"] = not pair["significant"]
    (release / "results.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    m = json.loads((release / MANIFEST_NAME).read_text(encoding="utf-8"))
    m["outputs"]["results.json"] = sha256_file(release / "results.json")
    if spec_hash is not None:
        m["spec"]["sha256"] = spec_hash
    (release / MANIFEST_NAME).write_text(json.dumps(m, indent=2), encoding="utf-8")


@pytest.mark.parametrize("spec_hash", [None, "0" * 64, "anything"])
def test_a_forged_release_does_not_verify(archive: Path, tmp_path: Path, spec_hash: str | None,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Editing results.json and its hash in the manifest (and the manifest's spec hash) is caught: the spec
    copy no longer has the manifest's hash (tampering), the rebuild still runs and shows the flipped
    decision; a published digest catches the rewritten manifest without a rebuild."""
    copy = tmp_path / "a"
    shutil.copytree(archive, copy)
    release = copy / "v3"  # the release whose inputs are the current table
    published = manifest_digest(release)
    assert run_cli(capsys, "verify", release, "--digest", published)[0] == 0
    forge(release, spec_hash)
    code, out, err = run_cli(capsys, "verify", release)
    if spec_hash == "anything":  # not a sha256 at all: the manifest is refused, naming the field
        assert code == 2 and "spec.sha256: expected a sha256" in err and "Traceback" not in err
        return
    head = "release v3 does not verify:" if spec_hash else "release v3: not reproduced"  # files tampered, or not
    assert code == 1 and out.startswith(head), out
    assert "rebuild differs from the manifest: results.json (changed: $.analyses[1].pairs[0].significant" in out
    if spec_hash is not None:
        assert "output differs from the manifest: spec.yaml (sha256" in out
        assert "manifest.json (its spec text does not have its spec sha256)" in out
    code, out, _ = run_cli(capsys, "verify", release, "--no-rebuild", "--digest", published)
    assert code == 1 and f"manifest.json (sha256 {manifest_digest(release)[:12]}…, not the published" in out


def rebuilt_with(monkeypatch: pytest.MonkeyPatch, edit: Callable[[Path], None]) -> None:
    """verify's rebuild writes the report, then ``edit`` changes it (what another machine might write)."""
    from sigreport.api import pipeline

    real = pipeline.build

    def build(spec: Path, out: Path, *args: object, **kwargs: object) -> object:
        done = real(spec, out, *args, **kwargs)
        edit(Path(out))
        return done

    monkeypatch.setattr(pipeline, "build", build)


def scale_first_pvalue(factor: float) -> Callable[[Path], None]:
    def edit(out: Path) -> None:
        doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
        pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
        pair["pvalue"] *= factor
        (out / "results.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return edit


def replace_in_html(old: str, new: str, inside_svg: bool) -> Callable[[Path], None]:
    def edit(out: Path) -> None:
        page = (out / "index.html").read_text(encoding="utf-8")
        start = page.index("<svg") if inside_svg else 0
        at = page.index(old, start)
        assert not inside_svg or at < page.index("</svg>", start)
        (out / "index.html").write_text(page[:at] + new + page[at + len(old):], encoding="utf-8")
    return edit


@pytest.mark.parametrize("case,edit,outcome", [
    ("a p-value 1e-12 apart", scale_first_pvalue(1 + 1e-12), "reproduced"),
    ("a figure's drawing", replace_in_html("<path", "<path data-x='1'", inside_svg=True), "reproduced"),
    ("a p-value 1e-6 apart", scale_first_pvalue(1 + 1e-6), "not reproduced"),
    ("text outside the figures", replace_in_html("<title>Archive example", "<title>Archive exampel", False),
     "not reproduced"),
])
def test_verify_outcomes(archive: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                         case: str, edit: Callable[[Path], None], outcome: str) -> None:
    """A rebuild that differs only in a float within tolerance or inside a figure is "reproduced" (exit 0,
    the largest relative difference named); beyond tolerance or in text it is "not reproduced" (exit 1)."""
    rebuilt_with(monkeypatch, edit)
    code, out, _ = run_cli(capsys, "verify", archive / "v3")
    if outcome == "reproduced":
        assert code == 0 and out.startswith("ok: release v3: reproduced: same decisions, numbers within tolerance"), out
        if "p-value" in case:
            assert "(largest relative difference 1.0e-12)" in out and "numbers within tolerance: results.json" in out
    else:
        assert code == 1 and out.startswith("release v3: not reproduced"), out
        assert f"rebuild differs from the manifest: {'index.html' if 'text' in case else 'results.json'}" in out


def test_verify_reproduces_a_release_across_blas_kernels(tmp_path: Path) -> None:
    """The real thing: a release built with OpenBLAS's Haswell kernels, verified with its Sandybridge kernels
    (as on another CPU). results.json differs in the last digits (the paired t tests' p-values; measured
    3.7e-14 at most on this example), so verify says "reproduced" on another machine, and byte-identical
    with the kernel it was built with."""
    import numpy as np

    if not np._core._multiarray_umath.__cpu_features__.get("AVX2"):
        pytest.skip("the Haswell kernels need a CPU with AVX2")
    import threadpoolctl

    if not any(lib["internal_api"] == "openblas" for lib in threadpoolctl.threadpool_info()):
        pytest.skip("numpy is not linked with OpenBLAS")
    root = ROOT
    (tmp_path / "data").mkdir()
    shutil.copy(root / "configs" / "summarization.yaml", tmp_path)
    shutil.copy(root / "configs" / "data" / "summarization.csv", tmp_path / "data")

    def cli(kernel: str, *argv: str) -> subprocess.CompletedProcess[str]:
        code = "import sys; from sigreport.cli import main; sys.exit(main(sys.argv[1:]))"
        return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=root,
                              env={**os.environ, "OPENBLAS_CORETYPE": kernel}, timeout=600)

    built = cli("Haswell", "build", "-q", "--no-cache", str(tmp_path / "summarization.yaml"), "--release", "v1",
                "--formats", "json,html")
    assert built.returncode == 0, built.stderr
    release = tmp_path / "reports" / "v1"
    assert [b["kernel"] for b in read_manifest(release)["platform"]["blas"]] == ["Haswell"] * 2
    other = cli("Sandybridge", "verify", str(release))
    assert other.returncode == 0, other.stdout + other.stderr
    assert other.stdout.startswith("ok: release v1: reproduced: same decisions, numbers within tolerance "
                                   "(largest relative difference"), other.stdout
    assert "on another machine (blas: " in other.stdout and "Sandybridge" in other.stdout
    assert "numbers within tolerance: results.json" in other.stdout
    same = cli("Haswell", "verify", str(release))
    assert same.returncode == 0 and "rebuilt byte-identical" in same.stdout, same.stdout


def test_verify_says_when_it_cannot_rebuild(archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No input found (or no previous release beside a copied release): exit 1, "could not rebuild", never ok."""
    code, out, _ = run_cli(capsys, "verify", archive / "v3", "--data", tmp_path)
    assert code == 1 and "could not rebuild: input not found: data/scores.csv" in out and "--data" in out
    shutil.copytree(archive / "v3", tmp_path / "v3")
    code, out, _ = run_cli(capsys, "verify", tmp_path / "v3")
    assert code == 1 and "could not rebuild: the previous release 'v2' it was analysed against cannot be read" in out


def test_manifest_records_the_platform(archive: Path) -> None:
    """What the last digits of a build depend on, so that verify can say "another machine"."""
    from sigreport.archive.manifest import platform_info

    recorded = read_manifest(archive / "v1")["platform"]
    assert set(recorded) == {"machine", "cpu", "simd", "blas", "os", "python"}
    assert recorded == platform_info()  # the same process built it
    assert all(set(b) == {"library", "version", "kernel"} for b in recorded["blas"]) and recorded["blas"]


def test_a_previous_report_that_cannot_be_used(archive: Path, project: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """--previous DIR whose results.json lacks a field the plan reads: exit 2 naming the file; one of another
    schema version: built without its choices, with a warning (an upgrade must not stop release builds)."""
    doc = results(archive, "v2")
    for name, edited in (("no-title", {k: v for k, v in doc.items() if k != "title"}), ("v2", doc | {"schema_version": 2})):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(edited), encoding="utf-8")
    code, _, err = run_cli(capsys, "build", project / "spec.yaml", "--release", "p1", "--previous",
                           tmp_path / "no-title")
    assert code == 2 and f"{tmp_path / 'no-title' / 'results.json'}: cannot be used as the previous report" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    code, _, err = run_cli(capsys, "build", project / "spec.yaml", "--release", "p2", "--previous", tmp_path / "v2",
                           "-q")
    assert code == 0 and "schema_version 2, this sigreport writes 1: its test choices are not carried over" in err
