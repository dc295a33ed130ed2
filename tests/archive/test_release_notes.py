"""Release notes, trends and the archive index on a real two-release scenario (tests/archive/release_scenario.py):
v1 with A, B, C, E; v2 with B's data changed, E removed, D and F added (the Holm family grows from 6 to 10
pairs), and a changed spec. The diff must name each changed conclusion with its cause and deltas, the
Markdown must be a headline and tables without empty sections, the HTML must link each row to the two
reports, the JSON must carry it all; the trend and its plot must follow every system across releases.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from conftest import ROOT, run_cli
from sigreport.archive import diff as diffs
from sigreport.archive import notes, releases
from sigreport.cli import main
from sigreport.results.records import SystemSummary

sys.path.insert(0, str(Path(__file__).resolve().parent))
import release_scenario as scenario  # noqa: E402

HEADLINE = ("2 conclusions changed since v1: B vs C on Fluency · c now significant (data of B changed); "
            "A vs B on Adequacy · c no longer significant")


def table_scores(release: int, metric: str, system: str) -> list[float]:
    """A system's scores as the release's table holds them (six decimals)."""
    return [round(v, 6) for v in scenario.scores(release)[metric][system]]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """v1 and v2 built through the command line, with what each build printed."""
    import contextlib
    import io

    root = tmp_path_factory.mktemp("notes")
    printed = {}
    for n in (1, 2):
        spec = scenario.write(root, n)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["build", str(spec), "--release", f"v{n}", "--no-cache"]) == 0
        printed[f"v{n}"] = buf.getvalue()
    return {"root": root, "archive": root / "reports", "printed": printed}


def archive_of(built: dict[str, object]) -> Path:
    return built["archive"]  # type: ignore[return-value]


def the_diff(archive: Path) -> diffs.Diff:
    from sigreport.api.release_notes import diff_folders

    return diff_folders(archive / "v1", archive / "v2")[0]


# ---- the engineering ----


def test_the_scenario_is_what_it_claims(built: dict[str, object]) -> None:
    """A vs B on Adequacy: raw p 0.00672 in both releases (scipy.stats.ttest_rel(B, A) on the scores),
    Holm-adjusted 6p in v1 and 10p in v2; B vs C on Fluency: not significant in v1, significant in v2."""
    archive = archive_of(built)
    raw = stats.ttest_rel(table_scores(1, "m2", "B"), table_scores(1, "m2", "A")).pvalue
    assert raw == pytest.approx(0.0067217, rel=1e-4)  # scipy 1.17 ttest_rel; R: 2 * pt(-3.0411, 19)
    for n, size in (("v1", 6), ("v2", 10)):
        doc = releases.read_results(archive / n)
        pairs = {(p["a"], p["b"]): p for a in doc["analyses"] if a["kind"] == "pairwise" for p in a["pairs"]
                 if a["metric"] == "m2"}
        ab = pairs[("A", "B")]
        assert ab["pvalue"] == pytest.approx(raw, rel=1e-9) and ab["pvalue_adjusted"] == pytest.approx(size * raw)
        fluency = next(a for a in doc["analyses"] if a["kind"] == "pairwise" and a["metric"] == "m1")
        bc = next(p for p in fluency["pairs"] if (p["a"], p["b"]) == ("B", "C"))
        assert bc["significant"] is (n == "v2")


# ---- the diff: causes, deltas, comparisons ----


def test_each_changed_conclusion_has_its_cause(built: dict[str, object]) -> None:
    d = the_diff(archive_of(built))
    assert d.headline == HEADLINE
    fluency, adequacy = d.changes
    assert (fluency.where, fluency.subject, fluency.primary) == ("Fluency · c", "B vs C", True)
    assert fluency.causes[0] == "the data of B changed (mean 0.5385 → 0.5885)"
    assert fluency.old.startswith("not significant (B - C = +0.0100") and fluency.new.startswith(
        "significant, B better (B - C = +0.0600")
    # the flip of the grown family: the same estimate in both releases, the family's size the only cause
    assert adequacy.causes == ("the Holm family changed size: 6 → 10 pairs (added: D, F; removed: E)",)
    assert "A - B = +0.0136, p = 0.0403" in adequacy.old and "A - B = +0.0136, p = 0.0672" in adequacy.new
    # the spec changed only in settings that cannot move these decisions: not a cause
    assert not any("spec" in c for ch in d.changes for c in ch.causes)
    assert [k for k, _, _ in d.cause.spec_settings] == ["title", "data.scores", "metrics.m3"]
    assert "+title: Release notes example, second round" in d.cause.spec_lines


def test_values_deltas_and_the_paired_interval(built: dict[str, object]) -> None:
    """Both releases' inputs are found with their manifests' hashes: paired intervals on the 20 items.
    B rose by exactly 0.05 on every item, so its interval is the point 0.05; A did not move."""
    d = the_diff(archive_of(built))
    fluency = next(b for b in d.blocks if b.metric == "m1")
    rows = {r.system: r for r in fluency.rows}
    b = rows["B"]
    assert (b.interval, b.n, b.significant) == ("paired", 20, True)
    assert b.delta == pytest.approx(0.05, abs=1e-6) and b.ci_low == pytest.approx(0.05, abs=1e-6)
    # A's scores are the same in both releases (the same hash in the archive's store): no interval, no news
    assert (rows["A"].delta, rows["A"].data_changed, rows["A"].ci_low, rows["A"].significant, rows["A"].old_best,
            rows["A"].new_best) == (0.0, False, None, None, True, True)
    assert (b.data_changed, rows["D"].data_changed) == (True, None)
    assert (rows["D"].old, rows["E"].new) == (None, None) and rows["D"].new == pytest.approx(0.5215, abs=1e-4)
    assert "paired t interval" in fluency.interval_note
    new = {(c.metric, c.a, c.b) for c in d.comparisons if c.status == "new"}
    removed = {(c.metric, c.a, c.b) for c in d.comparisons if c.status == "removed"}
    assert ("m1", "A", "D") in new and ("m2", "D", "F") in new and len(new) == 14  # 7 new pairs in m1 and m2
    assert removed == {(m, s, "E") for m in ("m1", "m2") for s in "ABC"}
    assert not any(c.metric == "m3" for c in d.comparisons)  # a new metric is listed as added, not pair by pair


def test_an_input_changed_since_its_release_gives_the_unpaired_interval(built: dict[str, object], tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """data/v1.csv edited after v1 was built and the archive's store of item scores gone (a release copied
    without it): no paired interval, the notes say why, and the interval is Welch's from the summaries
    (scipy.stats.ttest_ind(new, old, equal_var=False).confidence_interval())."""
    root = tmp_path / "p"
    shutil.copytree(built["root"], root)  # type: ignore[arg-type]
    for n in ("v1", "v2"):  # the manifests point at the original spec's folder: point them at the copy
        path = root / "reports" / n / "manifest.json"
        m = json.loads(path.read_text(encoding="utf-8"))
        m["spec"]["path"] = str(root / "spec.yaml")
        path.write_text(json.dumps(m), encoding="utf-8")
    table = root / "data" / "v1.csv"
    table.write_text(table.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    shutil.rmtree(root / "reports" / "item-scores")
    code, out, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", root / "reports", "--format", "json")
    doc = json.loads(out)
    fluency = next(b for b in doc["blocks"] if b["metric"] == "m1")
    assert code == 1 and "data/v1.csv has changed since v1 was built" in fluency["interval_note"]
    assert "the item scores of v1 are not in" in fluency["interval_note"]
    b = next(r for r in fluency["rows"] if r["system"] == "B")
    want = stats.ttest_ind(table_scores(2, "m1", "B"), table_scores(1, "m1", "B"), equal_var=False
                           ).confidence_interval(0.95)
    assert b["interval"] == "unpaired" and (b["ci_low"], b["ci_high"]) == pytest.approx((want.low, want.high),
                                                                                         rel=1e-9)


def test_paired_and_welch_intervals_against_scipy() -> None:
    """The two interval rules against scipy 1.17: ttest_rel(new, old).confidence_interval(level) on the shared
    items (in another order in each release, one item in one release only), and ttest_ind(new, old,
    equal_var=False).confidence_interval(level) from the means, SDs and counts."""
    rng = np.random.default_rng(7)
    old = rng.normal(0.5, 0.1, 30)
    new = old[:25] + rng.normal(0.02, 0.03, 25)
    old_items = tuple(f"i{i}" for i in range(30))
    new_items = tuple(f"i{i}" for i in reversed(range(25)))
    src = (old_items, {"S": old}, new_items, {"S": new[::-1]})
    (lo, hi), n = diffs.paired_interval(src, "S", 0.9)
    want = stats.ttest_rel(new, old[:25]).confidence_interval(0.9)
    assert n == 25 and (lo, hi) == pytest.approx((want.low, want.high), rel=1e-10)
    rows = [SystemSummary(system="S", n=len(x), mean=float(x.mean()), sd=float(np.std(x, ddof=1)), median=None,
                          ci_low=None, ci_high=None, warnings=()) for x in (old, new)]
    lo, hi = diffs.welch_interval(rows[0], rows[1], float(new.mean() - old.mean()), 0.95)
    want = stats.ttest_ind(new, old, equal_var=False).confidence_interval(0.95)
    assert (lo, hi) == pytest.approx((want.low, want.high), rel=1e-10)


# ---- the renderers ----


def test_markdown_is_a_headline_and_tables_without_empty_sections(built: dict[str, object],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, md, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive_of(built), "--format", "markdown")
    lines = md.splitlines()
    assert code == 1 and lines[0] == HEADLINE and lines[1] == ""
    headings = [i for i, line in enumerate(lines) if line.startswith(("### ", "#### "))]
    assert headings and all(lines[i + 1] == "" and lines[i + 2].strip() for i in headings)  # content follows
    for i in headings:  # each section has a table row, a list item or a code block before the next heading
        body = lines[i + 1: next((j for j in headings if j > i), len(lines))]
        assert any(x.startswith(("| ", "- ", "```")) for x in body), lines[i]
    assert "none" not in md.lower().split() and "| Where | Conclusion | v1 | v2 | Cause |" in md
    # a pull-request comment: the conclusions first, the rest collapsed, at most 40 lines
    assert len(lines) <= 40 and lines[2] == "### 2 conclusions changed" and lines[4].startswith("| Where | Conclusion")
    opened = lines.index(next(x for x in lines if x.startswith("<details><summary>Details: ")))
    assert opened > lines.index("### 2 conclusions changed") and lines[-1] == "</details>"
    assert "| Fluency · c | B (data changed) | 0.5385 | 0.5885 | **+0.0500 \\[+0.0500, +0.0500\\]** | – |" in md
    assert "| Fluency · c | D (new) | – | 0.5215 | – | worse than A (p = 2.37e-04), B (p = 0.00277); " \
           "not different from C, F |" in md
    assert "| A |" not in md and "Not listed: 5 system values whose data is the same in both releases" in md
    # the spec's 15 changed YAML lines are too many for a comment: its settings are listed, the lines are in the text
    assert "The spec's changed lines (15) are in the text and HTML release notes." in md and "```diff" not in md
    text = run_cli(capsys, "diff", "v1", "v2", "--archive", archive_of(built))[1]
    assert "  -title: Release notes example\n  +title: Release notes example, second round" in text
    code, same, _ = run_cli(capsys, "diff", "v2", "v2", "--archive", archive_of(built), "--format", "markdown")
    assert code == 0 and same == "no conclusion changed since v2\n"


def test_html_links_each_row_to_the_two_reports(built: dict[str, object]) -> None:
    """The release's own diff.html: every table row links to the section of its metric and corpus in v1's
    report and in v2's, and every anchor exists there."""
    archive = archive_of(built)
    page = (archive / "v2" / "diff.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td.*?</tr>", page)
    assert rows and all(row.count("<a href=") == 2 for row in rows)
    hrefs = set(re.findall(r'href="([^"]+)"', page))
    assert {"../v1/index.html#s-m1--c", "index.html#s-m1--c", "../v1/index.html#s-m2--c"} <= hrefs
    for href in hrefs:
        target, anchor = href.split("#")
        report = (archive / "v2" / target).resolve().read_text(encoding="utf-8")
        assert f'id="{anchor}"' in report, href
    assert not any(s in page.lower() for s in ("http:", "https:", "src=", "<script", "@import"))


def test_json_carries_everything_for_scripts(built: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive_of(built), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and doc["headline"] == HEADLINE and doc["format"] == "sigreport-diff"
    assert {k: doc["counts"][k] for k in ("conclusions", "decisions_flipped", "systems_added", "systems_removed",
                                          "comparisons_new", "comparisons_removed")} == {
        "conclusions": 2, "decisions_flipped": 2, "systems_added": 2, "systems_removed": 1, "comparisons_new": 14,
        "comparisons_removed": 6}
    change = doc["changes"][1]
    assert (change["kind"], change["subject"], change["analysis"], change["causes"]) == (
        "decision", "A vs B", "m2/c/pairwise", ["the Holm family changed size: 6 → 10 pairs (added: D, F; removed: E)"])
    row = next(r for b in doc["blocks"] if b["metric"] == "m1" for r in b["rows"] if r["system"] == "B")
    assert set(row) == {"system", "old", "new", "delta", "ci_low", "ci_high", "interval", "n", "significant",
                        "old_best", "new_best", "data_changed"}
    assert ["title", '"Release notes example"', '"Release notes example, second round"'] in doc["cause"]["spec_settings"]


# ---- the release build: its summary, its report, verify ----


def test_build_release_ends_with_the_headline(built: dict[str, object]) -> None:
    archive = archive_of(built)
    printed = built["printed"]
    assert "first release of" in printed["v1"]  # type: ignore[index]
    out = printed["v2"]  # type: ignore[index]
    assert f"{HEADLINE}\n  2 decisions flipped; 0 best systems or orders changed; 2 systems added; " \
           f"1 system removed; 14 new comparisons\n  release notes: {archive / 'v2' / 'diff.html'}\n" in out


def test_a_release_report_names_its_release_and_links_to_its_diff_and_the_archive(
        built: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    archive = archive_of(built)
    v1, v2 = ((archive / n / "index.html").read_text(encoding="utf-8") for n in ("v1", "v2"))
    assert 'Release <strong>v2</strong> &middot; previous release <a href="../v1/index.html">v1</a>' in v2
    assert '<a href="diff.html">what changed since v1</a>' in v2 and '<a href="../index.html">all releases</a>' in v2
    assert 'Release <strong>v1</strong> &middot; <a href="../index.html">all releases</a>' in v1
    assert "diff.html" not in v1
    code, out, err = run_cli(capsys, "verify", archive / "v2")  # the rebuild writes the same release line
    assert code == 0 and "rebuilt byte-identical" in out, out
    steps = ["checking 7 files and the spec copy", "hashing 1 input file", "rebuilding the report", "ran 6 analyses",
             "comparing 5 report files"]
    assert all(s in err for s in steps) and [err.index(s) for s in steps] == sorted(err.index(s) for s in steps), err


# ---- trends and the index ----


def test_trend_follows_every_system_across_releases(built: dict[str, object],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    archive = archive_of(built)
    found = releases.archive_trends(releases.scan(archive))
    assert [(t.metric, t.releases) for t in found] == [("m1", ("v1", "v2")), ("m2", ("v1", "v2")), ("m3", ("v1", "v2"))]
    fluency = found[0]
    assert [s for s, _ in fluency.series] == ["A", "B", "C", "E", "D", "F"]
    points = dict(fluency.series)
    assert [p.best for p in points["A"]] == [True, True] and [p.change for p in points["A"]] == [None, None]
    b = points["B"][1]
    want = stats.ttest_ind(table_scores(2, "m1", "B"), table_scores(1, "m1", "B"), equal_var=False
                           ).confidence_interval(0.95)  # scipy 1.17: the Welch interval from the raw scores
    assert b.change == "up" and (b.delta_low, b.delta_high) == pytest.approx((want.low, want.high), rel=1e-9)
    assert points["E"][1].value is None and points["D"][0].value is None
    code, md, _ = run_cli(capsys, "trend", archive, "--metric", "Fluency")
    assert code == 0 and md.startswith("### Fluency · c\n\n| release | A | B | C | E | D | F |")
    assert "| v2 | **0.6285** | 0.5885 ▲ | 0.5285 | – | 0.5215 | 0.5195 |" in md and "Adequacy" not in md
    code, out, _ = run_cli(capsys, "trend", archive, "--format", "csv", "--corpus", "c")
    assert code == 0 and len(out.splitlines()) == 1 + 2 * (6 + 6 + 5)
    code, out, _ = run_cli(capsys, "trend", archive, "--format", "json", "--metric", "m2")
    doc = json.loads(out)
    assert [t["metric"] for t in doc["trends"]] == ["m2"] and doc["trends"][0]["series"][0]["system"] == "A"
    code, _, err = run_cli(capsys, "trend", archive, "--metric", "nope")
    assert code == 2 and "known: m1 on c, m2 on c, m3 on c" in err and "Traceback" not in err
    assert run_cli(capsys, "trend", archive / "nowhere")[0] == 2


def test_trend_plot_has_one_line_per_system(built: dict[str, object]) -> None:
    from sigreport.render.figures.output import style
    from sigreport.render.figures.trend import draw_trend, trend_figure

    fluency = releases.archive_trends(releases.scan(archive_of(built)))[0]
    with style():
        fig = trend_figure(fluency)
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert [line.get_label() for line in lines] == ["A", "B", "C", "E", "D", "F"]
    assert [len(line.get_xdata()) for line in lines] == [2, 2, 2, 1, 1, 1]  # a point per release it is in
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["A", "B", "C", "E", "D", "F"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["v1", "v2"]
    assert "higher is better" in ax.get_ylabel() and "Fluency" in ax.get_ylabel()
    assert draw_trend(fluency).svg == draw_trend(fluency).svg  # deterministic


def test_index_shows_the_trends_and_reads_at_390_px(built: dict[str, object]) -> None:
    """Every table of the index sits in a box that scrolls sideways by itself (the page never does), plots
    shrink to the width; one plot per metric and corpus, without a URL (namespace declarations left out)."""
    page = (archive_of(built) / "index.html").read_text(encoding="utf-8")
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert ".scroll{overflow-x:auto;max-width:100%" in page and "figure svg{display:block;max-width:100%" in page
    assert page.count("<table") == page.count("<div class=scroll><table") == 4  # releases + 3 trends
    assert page.count("<figure><svg") == 3 and page.count("<h3>") == 3
    assert "<b>0.6285</b>" in page and "0.5885 ▲" in page
    assert "Fluency · c: <b>A</b> (0.6285)" in page  # labels and the metric's decimals, not ids
    assert not any(s in page for s in ("http:", "https:", "src=", "<script"))


def test_notes_do_not_run_a_user_aggregate(tmp_path: Path) -> None:
    """A release whose spec names a user aggregate module: the notes read no item scores (they would have to
    import the module) and say so."""
    from sigreport.api.release_notes import release_scores

    m = {"release": "r1", "inputs": [{"role": "aggregate", "name": "agg.py", "path": "agg.py", "sha256": "0" * 64}],
         "spec": {"text": "", "path": str(tmp_path / "spec.yaml")}}
    found = release_scores(tmp_path, m)
    assert found.blocks == {} and "user aggregate module" in str(found.missing)


# ---- causes on hand-made documents ----


def doc(pairs: list[dict], means: dict[str, float], correction: str = "holm") -> dict:
    return {"schema_version": 1, "alpha": 0.05, "systems": list(means), "metrics": {"m": {"label": "M",
            "higher_is_better": True, "decimals": 3}}, "analyses": [
        {"id": "m/c/descriptives", "kind": "descriptives", "metric": "m", "corpus": "c",
         "systems": [{"system": s, "mean": v, "sd": 0.1, "n": 10} for s, v in means.items()]},
        {"id": "m/c/pairwise", "kind": "pairwise", "metric": "m", "corpus": "c", "method": "paired_t",
         "correction": correction, "family_size": len(pairs), "pairs": pairs}]}


def pair(a: str, b: str, significant: bool, p: float, est: float) -> dict:
    return {"a": a, "b": b, "significant": significant, "pvalue": p, "pvalue_adjusted": p, "estimate": est}


def manifest(spec: str, numpy: str = "2.0") -> dict:
    import hashlib

    return {"release": "x", "inputs": [], "spec": {"text": spec, "sha256": hashlib.sha256(spec.encode()).hexdigest()},
            "sigreport_version": "1", "python_version": "3.11", "libraries": {"numpy": numpy}}


SPEC_TEXT = "title: t\ndata: {scores: s.csv}\nmetrics: {m: {higher_is_better: true}}\ntests: {correction: %s}\n"


def test_causes_other_systems_spec_and_software() -> None:
    old = doc([pair("A", "B", True, 0.04, 0.1), pair("A", "C", False, 0.5, 0.01), pair("B", "C", False, 0.6, 0.0)],
              {"A": 0.6, "B": 0.5, "C": 0.55})
    new = doc([pair("A", "B", False, 0.06, 0.1), pair("A", "C", True, 0.01, 0.05), pair("B", "C", False, 0.6, 0.0)],
              {"A": 0.6, "B": 0.5, "C": 0.45})
    d = diffs.diff_results(old, new, manifest(SPEC_TEXT % "holm"), manifest(SPEC_TEXT % "holm"))
    ab = next(c for c in d.changes if c.subject == "A vs B")
    assert ab.causes == ("other systems of the family changed: C (their p-values enter the Holm adjustment)",)
    ac = next(c for c in d.changes if c.subject == "A vs C")
    assert ac.causes == ("the data of C changed (mean 0.550 → 0.450)",)
    d = diffs.diff_results(old, doc(new["analyses"][1]["pairs"], {"A": 0.6, "B": 0.5, "C": 0.55}, "bonferroni"),
                           manifest(SPEC_TEXT % "holm"), manifest(SPEC_TEXT % "bonferroni"))
    ab = next(c for c in d.changes if c.subject == "A vs B")
    assert ab.causes == ("the correction changed: Holm → Bonferroni",
                         'the spec changed: tests.correction: "holm" → "bonferroni"')
    assert "-tests: {correction: holm}" in d.cause.spec_lines and "+tests: {correction: bonferroni}" in d.cause.spec_lines
    same = doc(new["analyses"][1]["pairs"], {"A": 0.6, "B": 0.5, "C": 0.55})
    d = diffs.diff_results(old, same, manifest(SPEC_TEXT % "holm"), manifest(SPEC_TEXT % "holm", numpy="2.1"))
    assert next(c for c in d.changes if c.subject == "A vs B").causes == ("the software changed: numpy 2.0 → 2.1",)
    d = diffs.diff_results(old, same)  # no manifests: nothing found, and the notes say what is unknown
    assert next(c for c in d.changes if c.subject == "A vs B").causes == (
        "no cause found in the two reports: the same data summaries, family, test and spec (no manifests: spec "
        "and software unknown)",)
    assert "spec and software: unknown (a report without a manifest)" in notes.render_text(d)


def test_trend_as_an_html_page(built: dict[str, object], capsys: pytest.CaptureFixture[str]) -> None:
    code, page, _ = run_cli(capsys, "trend", archive_of(built), "--format", "html", "--metric", "Fluency")
    assert code == 0 and page.startswith("<!DOCTYPE html>") and "<h1>Trends across releases</h1>" in page
    assert page.count("<svg") == 1 and "Fluency" in page and "Adequacy" not in page
    assert "http://" not in page.replace("http://www.w3.org", "")  # self-contained: nothing fetched


def test_a_stopped_build_leaves_an_index_the_next_build_repairs(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A release build stopped after its release was in place and before it rewrote the index leaves the index
    without that release; the next release build lists it again and says so."""
    for n in (1, 2):
        assert main(["build", str(scenario.write(tmp_path, n)), "--release", f"v{n}", "--no-cache", "-q"]) == 0
    archive = tmp_path / "reports"
    index = json.loads((archive / "index.json").read_text(encoding="utf-8"))
    index["releases"] = [r for r in index["releases"] if r["release"] != "v2"]  # as if stopped before the rewrite
    (archive / "index.json").write_text(json.dumps(index), encoding="utf-8")
    capsys.readouterr()
    assert main(["build", str(scenario.write(tmp_path, 2)), "--release", "v3", "--no-cache", "-q"]) == 0
    err = capsys.readouterr().err
    assert "index did not list v2" in err and "repaired" in err
    listed = [r["release"] for r in json.loads((archive / "index.json").read_text(encoding="utf-8"))["releases"]]
    assert listed == ["v3", "v2", "v1"]


def test_the_ci_recipe_runs_here(tmp_path: Path) -> None:
    """examples/ci-release.sh: the first release writes a one-line note and passes; the second writes the
    Markdown release notes (headline first) and fails because conclusions changed (exit 1)."""
    import os
    import subprocess
    import sys

    script = ROOT / "examples" / "ci-release.sh"
    env = {**os.environ, "SIGREPORT": f"{sys.executable} -m sigreport.cli"}
    archive, notes = tmp_path / "reports", tmp_path / "notes.md"
    results = []
    for n in (1, 2):
        spec = scenario.write(tmp_path, n)
        results.append(subprocess.run(["bash", str(script), str(spec), f"v{n}", str(archive), str(notes)],
                                      env=env, capture_output=True, text=True, timeout=300))
        if n == 1:
            assert results[0].returncode == 0, results[0].stderr
            assert notes.read_text().startswith("v1 is the first release")
    assert results[1].returncode == 1, results[1].stderr
    text = notes.read_text()
    assert text.splitlines()[0].startswith("2 conclusions changed since v1") and "| " in text
    assert len(text.splitlines()) <= 40 and "<details><summary>Details: " in text  # a pull-request comment
    assert (archive / "v2" / "diff.html").is_file() and "Traceback" not in results[1].stderr
    bad = subprocess.run(["bash", str(script), str(tmp_path / "missing.yaml"), "v3", str(archive)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_trend_csv_quotes_formula_names_not_numbers() -> None:
    """A name a spreadsheet would run (= + - @ first) gets a leading quote (OWASP); numbers never do."""
    from sigreport.archive.trends import Point, Trend, render_csv

    points = (Point("-v1", -0.12, -0.2, -0.05, True), Point("v2", -0.1, -0.18, -0.02, False, delta=0.02,
                                                              delta_low=-0.01, delta_high=0.05))
    t = Trend("=cmd|'/C calc'!A0", "@corpus", "m", True, 2, 0.95, ("-v1", "v2"), (("+A", points),))
    rows = [line.split(",") for line in render_csv([t]).splitlines()[1:]]
    assert rows[0][:8] == ["'=cmd|'/C calc'!A0", "'@corpus", "'-v1", "'+A", "-0.12", "-0.2", "-0.05", "1"], rows
    assert rows[1][2:] == ["v2", "'+A", "-0.1", "-0.18", "-0.02", "0", "0.02", "-0.01", "0.05", ""], rows


# ---- numbers beyond a double, NaN: a clear error or a diff, in every format, never a traceback ----

FORMATS = ("text", "markdown", "html", "json")


def two_reports(tmp_path: Path, example: str, old_text: str, new_text: str) -> tuple[Path, Path]:
    folders = (tmp_path / "old", tmp_path / "new")
    for folder, text in zip(folders, (old_text, new_text)):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        (folder / "results.json").write_text(text, encoding="utf-8")
    return folders


@pytest.mark.parametrize("written", ["1e400", "1" + "0" * 400, "NaN", "-Infinity"])
def test_diff_refuses_a_number_no_double_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               written: str) -> None:
    """JSON allows 1e400 (Python reads inf) and 10**400 written out (an int no float holds); sigreport writes
    neither, nor NaN: the report is refused naming the field, exit 2, in every format."""
    from conftest import GOLDEN

    text = (GOLDEN / "mt" / "results.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    i = next(i for i, a in enumerate(doc["analyses"]) if a["kind"] == "pairwise")
    estimate = json.dumps(doc["analyses"][i]["pairs"][0]["estimate"])
    assert text.count(f'"estimate": {estimate}') == 1
    old, new = two_reports(tmp_path, "mt", text, text.replace(f'"estimate": {estimate}', f'"estimate": {written}'))
    for fmt in FORMATS:
        code, out, err = run_cli(capsys, "diff", old, new, "--format", fmt)
        assert code == 2 and out == "" and "Traceback" not in err and len(err.splitlines()) == 1, (fmt, err)
        assert str(new / "results.json") in err
        if written[-1] == "0":
            assert f"analyses[{i}].pairs[0].estimate: " in err and "beyond the range of a double" in err, err


def test_diff_of_values_near_the_double_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finite values whose difference overflows (-1.7e308 -> 1.7e308) and SDs whose square does (1e200): the
    diff is given in every format; its JSON stays JSON, the overflowed values null and named in non_finite."""
    from conftest import GOLDEN

    doc = json.loads((GOLDEN / "summarizers" / "results.json").read_text(encoding="utf-8"))
    assert doc["analyses"][0]["kind"] == "descriptives"
    old_doc, new_doc = json.loads(json.dumps(doc)), json.loads(json.dumps(doc))
    old_doc["analyses"][0]["systems"][0].update(mean=-1.7e308, sd=1e200)
    new_doc["analyses"][0]["systems"][0].update(mean=1.7e308, sd=1e200)
    old, new = two_reports(tmp_path, "summarizers", json.dumps(old_doc), json.dumps(new_doc))
    for fmt in FORMATS:
        code, out, err = run_cli(capsys, "diff", old, new, "--format", fmt)
        assert code in (0, 1) and "Traceback" not in err and out, (fmt, err)
    got = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the diff's JSON"))
    system = doc["analyses"][0]["systems"][0]["system"]
    (block,) = [b for b in got["blocks"] if any(r["system"] == system and r["new"] == 1.7e308 for r in b["rows"])]
    j = next(k for k, b in enumerate(got["blocks"]) if b is block)
    r = next(k for k, row in enumerate(block["rows"]) if row["system"] == system)
    assert block["rows"][r]["delta"] is None and f"blocks[{j}].rows[{r}].delta" in got["non_finite"], got.get("non_finite")
    assert block["rows"][r]["ci_low"] is None  # no Welch interval: the SDs' squares are beyond a double


@pytest.mark.parametrize("decimals", [1.7e308, -1, 13])
def test_diff_refuses_decimals_the_spec_would_not_allow(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        decimals: float) -> None:
    from conftest import GOLDEN
    from sigreport.archive.documents import MAX_DECIMALS
    from sigreport.spec import MetricSpec

    assert MetricSpec.model_json_schema()["properties"]["decimals"]["maximum"] == MAX_DECIMALS
    doc = json.loads((GOLDEN / "mt" / "results.json").read_text(encoding="utf-8"))
    metric = next(iter(doc["metrics"]))
    text = json.dumps(doc)
    doc["metrics"][metric]["decimals"] = decimals
    old, new = two_reports(tmp_path, "mt", text, json.dumps(doc))
    for fmt in FORMATS:
        code, _, err = run_cli(capsys, "diff", old, new, "--format", fmt)
        assert code == 2 and f"metrics.{metric}.decimals: expected a whole number from 0 to 12" in err, err
