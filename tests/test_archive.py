"""Release archives (issue 10): three releases of a small example with engineered changes, their diffs,
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

import json
import shutil
from pathlib import Path

import pytest

from sigreport.archive import diff as diffs
from sigreport.archive import releases
from sigreport.archive.manifest import MANIFEST_NAME, read_manifest, software_versions
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


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


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
        code, out, _ = run(capsys, "diff", "v1", "v2", "--archive", archive, "--fail-on", fail_on)
        assert code == 1, fail_on
    assert "m/c/pairwise: B vs C: not significant -> significant" in out


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
        assert run(capsys, "diff", "v2", "v3", "--archive", archive, "--fail-on", fail_on)[0] == code, fail_on
    code, out, _ = run(capsys, "diff", archive / "v2", archive / "v3")
    assert code == 0 and out.startswith("no conclusion changed") and "numpy" in out and "wilcoxon" in out


def test_diff_of_a_release_with_itself_is_empty(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", "v2", "v2", "--archive", archive, "--fail-on", "any")
    assert code == 0 and "Pairwise" not in out


def test_diff_formats(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["conclusions_changed"] is True and doc["flips"][0]["b"] == "C"
    code, md, _ = run(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "markdown")
    assert md.startswith("# 1 conclusion changed") and "## Pairwise decisions flipped" in md
    code, page, _ = run(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "html")
    assert page.startswith("<!DOCTYPE html>") and "B vs C" in page
    assert not any(s in page.lower() for s in ("http:", "https:", "src=", "href=", "<script", "@import"))


def test_html_diff_escapes_names() -> None:
    old = {"schema_version": 1, "systems": ["<b>x</b>"], "analyses": []}
    new = {"schema_version": 1, "systems": ["<script>alert(1)</script>"], "analyses": []}
    page = diffs.render_html(diffs.diff_results(old, new))
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>x" not in page


# ---- the release folders, the manifest and the index ------------------------------------------------


def test_release_holds_report_spec_diff_and_manifest(archive: Path) -> None:
    assert not (archive / "v1" / "diff.html").exists()
    for n in ("v2", "v3"):
        m = read_manifest(archive / n)
        assert set(m["outputs"]) == {"index.html", "results.json", "spec.yaml", "diff.html", "main.md", "main.csv"}
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
                           "tied": ["A"]}]
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
    code, _, _ = run(capsys, "build", project / "spec.yaml", "--release", "p1", "--previous", archive / "v2", "-q")
    m = read_manifest(project / "reports" / "p1")
    assert code == 0 and m["previous"] == "v2" and "B vs C" in (project / "reports" / "p1" / "diff.html").read_text()
    assert run(capsys, "build", project / "spec.yaml", "--release", "p2", "--previous", project)[0] == 2


def test_previous_results_for_selection(archive: Path) -> None:
    assert releases.previous_results(archive, "v4")["systems"] == ["A", "B", "C", "D"]
    assert releases.previous_results(archive, "v3")["systems"] == ["A", "B", "C"]
    assert releases.previous_results(archive, "v9", archive / "v1")["title"] == "Archive example"
    assert releases.previous_results(archive.parent / "empty-archive", "v1") is None


# ---- verify -------------------------------------------------------------------------------------------


def test_verify_untouched_release_rebuilds_identically(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", archive / "v3")
    assert code == 0 and "rebuilt byte-identical" in out
    assert run(capsys, "verify", archive / "v3", "--no-rebuild")[0] == 0


def test_verify_changed_input(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """v1's table was overwritten by v2's: reported as a changed input; with --data pointing at the
    original table, v1 rebuilds identically."""
    code, out, _ = run(capsys, "verify", archive / "v1")
    assert code == 1 and "input changed: data/scores.csv" in out
    assert run(capsys, "verify", archive / "v1", "--data", archive.parent / "v1-data")[0] == 0


def test_verify_tampered_output(archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "v3"
    shutil.copytree(archive / "v3", copy)
    (copy / "results.json").write_text((copy / "results.json").read_text().replace('"A"', '"Z"', 1))
    code, out, _ = run(capsys, "verify", copy, "--no-rebuild")
    assert code == 1 and "results.json (changed)" in out
    (copy / "extra.txt").write_text("x")
    (copy / "index.html").unlink()
    code, out, _ = run(capsys, "verify", copy, "--no-rebuild")
    assert code == 1 and "index.html (missing)" in out and "extra.txt (not in the manifest)" in out


def test_verify_tampered_spec_copy_is_not_rebuilt(archive: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "v3"
    shutil.copytree(archive / "v3", copy)
    (copy / "spec.yaml").write_text(SPEC.replace("seed: 0", "seed: 1"), encoding="utf-8")
    code, out, _ = run(capsys, "verify", copy)
    assert code == 1 and "spec.yaml (changed)" in out and "rebuild differs" not in out


def test_verify_rejects_foreign_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / MANIFEST_NAME).write_text('{"format": "something-else"}')
    code, _, err = run(capsys, "verify", tmp_path)
    assert code == 2 and "not a sigreport manifest" in err and "Traceback" not in err
    (tmp_path / MANIFEST_NAME).write_text("not json")
    assert run(capsys, "verify", tmp_path, "--no-rebuild")[0] == 2
    assert run(capsys, "verify", tmp_path / "nowhere")[0] == 2


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
    code, _, err = run(capsys, "build", project / "spec.yaml", f"--release={name}")
    assert code == 2 and "not a valid release name" in err and len(err.strip().splitlines()) == 2
    assert not (project / "reports").exists() and not (project.parent / "x").exists()


@pytest.mark.parametrize("name", ["v1", "1.2.0", "2024-06_rc+1", "x" * 64])
def test_good_release_names(name: str) -> None:
    assert releases.validate_release_name(name) == name


def test_release_is_immutable_unless_forced(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = project / "spec.yaml"
    assert run(capsys, "build", spec, "--release", "v1", "-q")[0] == 0
    before = (project / "reports" / "v1" / MANIFEST_NAME).read_bytes()
    code, _, err = run(capsys, "build", spec, "--release", "v1")
    assert code == 2 and "already exists" in err and "--force" in err
    assert (project / "reports" / "v1" / MANIFEST_NAME).read_bytes() == before
    code, out, _ = run(capsys, "build", spec, "--release", "v1", "--force")
    assert code == 0 and out.startswith("replaced release v1 (build #1")
    assert read_manifest(project / "reports" / "v1")["sequence"] == 2


def test_archive_from_spec_and_flag(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = project / "spec.yaml"
    spec.write_text(SPEC.replace("outputs:\n", "outputs:\n  archive: releases\n"), encoding="utf-8")
    assert run(capsys, "build", spec, "--release", "r1", "-q")[0] == 0
    assert (project / "releases" / "r1" / MANIFEST_NAME).is_file()
    assert run(capsys, "build", spec, "--release", "r1", "-q", "--archive", project / "other")[0] == 0
    assert (project / "other" / "index.json").is_file()


def test_release_flags_misuse(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = project / "spec.yaml"
    assert run(capsys, "build", spec, "--archive", project / "a")[0] == 2
    assert run(capsys, "build", spec, "--release", "v1", "-o", project / "out")[0] == 2
    (project / "reports" / "v1").mkdir(parents=True)
    (project / "reports" / "v1" / "notes.txt").write_text("mine")
    code, _, err = run(capsys, "build", spec, "--release", "v1", "--force")
    assert code == 2 and "not a sigreport release" in err
    assert (project / "reports" / "v1" / "notes.txt").read_text() == "mine"


def test_diff_bad_input(archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "diff", "v1", "v2", "--archive", tmp_path / "missing")
    assert code == 2 and "no archive" in err
    code, _, err = run(capsys, "diff", "v1", "v7", "--archive", archive)
    assert code == 2 and "no release 'v7'" in err and "v3, v2, v1" in err
    assert run(capsys, "diff", "v1", "../v2", "--archive", archive)[0] == 2
    assert run(capsys, "diff", tmp_path, archive / "v1")[0] == 2  # no results.json
    other = tmp_path / "other"
    other.mkdir()
    doc = results(archive, "v1") | {"schema_version": 2}
    (other / "results.json").write_text(json.dumps(doc))
    code, _, err = run(capsys, "diff", archive / "v1", other)
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
    assert run(capsys, "build", "-q", "--no-cache", tmp_path / "spec.yaml", "--release", "r1")[0] == 0
    release = tmp_path / "reports" / "r1"
    entry = next(e for e in read_manifest(release)["inputs"] if e["role"] == "aggregate")
    assert entry["path"] == "agg_released.py" and entry["size"] == module.stat().st_size
    assert run(capsys, "verify", release)[0] == 0
    module.write_text(module.read_text() + "# edited\n")
    code, out, _ = run(capsys, "verify", release)
    assert code == 1 and "input changed: agg_released.py" in out
