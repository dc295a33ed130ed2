"""Release notes a pull request can take (issue 32, items 10 and 11), end to end through the command line.

The usual CI case: the data table updated in place for each release (tests/archive/release_scenario.py,
``write_in_place``), with one system added or one system's data changed, and the summarization example with
one system added and then one system's scores changed in place. The Markdown must lead with the conclusions
that changed, collapse the rest and fit 40 lines; systems whose data did not change get no interval and no
row; the system whose data changed is named in its conclusion; the diff is paired, from the item scores the
archive keeps by content hash, though the inputs the older release was built from are gone.
"""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest
from scipy import stats

from conftest import ROOT, cli_build, run_cli
from sigreport.archive import diff as diffs
from sigreport.archive import releases, scores
from sigreport.errors import UserError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import release_scenario as scenario  # noqa: E402

PR_LINES = 40  # issue 32, item 10: a release note fits a pull-request comment


def build(spec: Path, name: str, *extra: str) -> None:
    cli_build(spec, None, "--release", name, "--no-cache", *extra, formats=None, quiet=False)


def rounded(values: list[float]) -> list[float]:
    """Scores as the data table holds them (six decimals)."""
    return [round(v, 6) for v in values]


@pytest.fixture(scope="module")
def in_place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """v1 with scenario.scores(1), v2 with B's data changed, v3 with G added to v2's: one table, overwritten."""
    root = tmp_path_factory.mktemp("inplace")
    build(scenario.write_in_place(root, scenario.scores(1)), "v1")
    build(scenario.write_in_place(root, scenario.one_changed()), "v2")
    added = scenario.one_changed()
    for m in ("m1", "m2"):
        added[m]["G"] = scenario.one_added()[m]["G"]
    build(scenario.write_in_place(root, added), "v3")
    return root


def markdown(capsys: pytest.CaptureFixture[str], archive: Path, old: str, new: str) -> tuple[int, list[str]]:
    code, out, _ = run_cli(capsys, "diff", old, new, "--archive", archive, "--format", "markdown")
    return code, out.splitlines()


def conclusions_first(lines: list[str]) -> None:
    """The headline, then the changed conclusions' table, then everything else inside one <details>."""
    assert lines[1] == "" and lines[2].startswith("### ") and lines[2].endswith("changed")
    assert lines[4].startswith("| Where | Conclusion |")
    opened = next(i for i, x in enumerate(lines) if x.startswith("<details><summary>Details: "))
    assert all(not x.startswith("#") for x in lines[3:opened]) and lines[-1] == "</details>"
    assert all(x.startswith("#### ") for x in lines[opened:] if x.startswith("#"))


def test_one_changed_system_in_place_is_paired_from_the_archive(in_place: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """data/scores.csv was overwritten for v2, so v1's inputs are gone: the interval is still paired, from v1's
    item scores in ARCHIVE/item-scores. B's m1 scores rose by exactly 0.05 (the interval is that point); on m2
    the interval is scipy.stats.ttest_rel(new, old).confidence_interval(0.95) on the 20 items."""
    archive = in_place / "reports"
    code, out, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", archive, "--format", "json")
    doc = json.loads(out)
    assert code == 1
    rows = {(b["metric"], r["system"]): r for b in doc["blocks"] for r in b["rows"]}
    b1, b2 = rows[("m1", "B")], rows[("m2", "B")]
    assert (b1["interval"], b1["n"], b1["data_changed"]) == ("paired", 20, True)
    assert (b1["ci_low"], b1["ci_high"]) == pytest.approx((0.05, 0.05), abs=2e-6)
    want = stats.ttest_rel(rounded(scenario.one_changed()["m2"]["B"]), rounded(scenario.scores(1)["m2"]["B"])
                           ).confidence_interval(0.95)  # scipy 1.17
    assert b2["interval"] == "paired" and (b2["ci_low"], b2["ci_high"]) == pytest.approx((want.low, want.high),
                                                                                         rel=1e-9)
    # nobody else's data changed: the same hash in both releases, so no interval (no "+0.000 [-0.03, +0.03]")
    for key in [(m, s) for m in ("m1", "m2") for s in "ACE"]:
        r = rows[key]
        assert (r["data_changed"], r["delta"], r["interval"], r["ci_low"], r["significant"]) == (
            False, 0.0, "", None, None), key
    assert all("paired t interval" in b["interval_note"] for b in doc["blocks"])
    # the system whose data changed is named in the conclusion it flipped, and in the headline
    flip = next(c for c in doc["changes"] if c["subject"] == "B vs C")
    assert flip["data_changed"] == ["B"]
    assert "B vs C on Fluency · c now significant (data of B changed)" in doc["headline"]
    code, lines = markdown(capsys, archive, "v1", "v2")
    assert code == 1 and len(lines) <= PR_LINES, "\n".join(lines)
    conclusions_first(lines)
    md = "\n".join(lines)
    assert "B vs C (paired t test, Holm-adjusted; data of B changed)" in md
    assert "| Fluency · c | B (data changed) | 0.5385 | 0.5885 | **+0.0500 \\[+0.0500, +0.0500\\]** | – |" in md
    assert "| A |" not in md and "A (data changed)" not in md and "unpaired" not in md


def test_one_added_system_in_place(in_place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """v2 -> v3 adds G and changes nobody's data: G's rows (value and comparisons), no other system's."""
    archive = in_place / "reports"
    code, lines = markdown(capsys, archive, "v2", "v3")
    md = "\n".join(lines)
    assert len(lines) <= PR_LINES, md
    assert "(data changed)" not in md and md.count("| G (new) |") == 2
    assert "Not listed: 8 system values whose data is the same in both releases" in md
    if code == 1:
        conclusions_first(lines)
    else:
        assert lines[0].startswith("no conclusion changed since v2 (1 system added") and lines[2].startswith(
            "<details><summary>Details: ")
    d = diffs_of(archive, "v2", "v3")
    assert all(r.data_changed is False and r.ci_low is None for b in d.blocks for r in b.rows if r.system != "G")
    assert [r.data_changed for b in d.blocks for r in b.rows if r.system == "G"] == [None, None]


def diffs_of(archive: Path, old: str, new: str) -> diffs.Diff:
    from sigreport.api.release_notes import diff_folders

    return diff_folders(archive / old, archive / new)[0]


def test_the_store_keeps_each_content_once_and_checks_it(in_place: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """One file per distinct content: v1 kept 8 value files (4 systems x 2 metrics) and one items file (both
    metrics score the same 20 items); v2 added B's two changed value files, v3 G's two. A damaged file is
    not used: the notes fall back (to the inputs, here changed since: Welch's interval) and say why."""
    archive = in_place / "reports"
    files = sorted((archive / scores.STORE).glob("*.gz"))
    assert len(files) == 9 + 2 + 2
    for n, count in (("v1", 8), ("v2", 8), ("v3", 10)):
        kept = releases.find_release(archive, n).manifest[scores.FIELD]
        assert sum(len(e["systems"]) for e in kept) == count and len({e["items"] for e in kept}) == 1
    copy = tmp_path / "reports"
    shutil.copytree(archive, copy)
    v1 = releases.find_release(copy, "v1").manifest[scores.FIELD]
    damaged = copy / scores.STORE / f"{v1[0]['systems']['B']}.gz"
    damaged.write_bytes(damaged.read_bytes()[:-4])
    code, out, _ = run_cli(capsys, "diff", "v1", "v2", "--archive", copy, "--format", "json")
    block = json.loads(out)["blocks"][0]
    assert f"the item scores of v1 are not in {copy / scores.STORE} (or damaged)" in block["interval_note"]
    assert "has changed since v1 was built" in block["interval_note"]
    b = next(r for r in block["rows"] if r["system"] == "B")
    assert b["interval"] == "unpaired"
    # the hashes are in the manifests: A's data is still known to be the same (no interval)
    a = next(r for r in block["rows"] if r["system"] == "A")
    assert (a["data_changed"], a["interval"]) == (False, "")


def test_the_store_folder_is_no_release_name() -> None:
    with pytest.raises(UserError, match="not a valid release name"):
        releases.validate_release_name(scores.STORE)


def test_a_list_setting_is_told_by_what_was_added() -> None:
    """A systems list longer than 60 characters gained a system: the cause names it (it was cut before)."""
    base = (ROOT / "configs" / "summarization.yaml").read_text(encoding="utf-8")
    old = base.replace("systems: [lead-3, textrank, bart-large, pegasus, t5-base]",
                       "systems: [lead-3, textrank, bart-large, pegasus, t5-base, flan-t5-xxl-finetuned]")
    new = old.replace("flan-t5-xxl-finetuned]", "flan-t5-xxl-finetuned, llama-3-70b-instruct]").replace(
        "lead-3, textrank, ", "lead-3, ")
    settings = diffs.spec_settings(old, new)
    assert ("systems", "(list)", 'added "llama-3-70b-instruct"; removed "textrank"') in settings
    assert diffs.setting_text(*next(s for s in settings if s[0] == "systems")) == \
        'systems: added "llama-3-70b-instruct"; removed "textrank"'
    reordered = diffs.spec_settings(base, base.replace("[lead-3, textrank,", "[textrank, lead-3,"))
    assert reordered[0][0] == "systems" and "textrank" in reordered[0][2]


# ---- the summarization example: one system added, then one system's scores changed in place ----


@pytest.fixture(scope="module")
def summarization(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """configs/summarization.yaml as v1 without t5-base, v2 as it is (t5-base added: the spec's systems list),
    v3 with pegasus's ROUGE-1 scores 0.02 lower on every document, written into the same table."""
    root = tmp_path_factory.mktemp("summ")
    shutil.copy(ROOT / "configs" / "data" / "summarization.csv", root / "summarization.csv")
    text = (ROOT / "configs" / "summarization.yaml").read_text(encoding="utf-8").replace(
        "scores: data/summarization.csv", "scores: summarization.csv")
    spec = root / "summarization.yaml"
    spec.write_text(text.replace("pegasus, t5-base]", "pegasus]"), encoding="utf-8")
    build(spec, "v1", "--formats", "json")
    spec.write_text(text, encoding="utf-8")
    build(spec, "v2", "--formats", "json")
    with open(root / "summarization.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    for r in rows[1:]:
        if r[0] == "pegasus" and r[3] == "rouge1":
            r[4] = f"{float(r[4]) - 0.02:.4f}"
    with open(root / "summarization.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    build(spec, "v3", "--formats", "json")
    return root / "reports"


def test_summarization_with_one_added_system_fits_a_comment(summarization: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Was 144 lines (a 30-row new-pairs table): now the conclusions, then t5-base's six rows, collapsed."""
    code, lines = markdown(capsys, summarization, "v1", "v2")
    md = "\n".join(lines)
    assert code == 1 and len(lines) <= PR_LINES, md
    conclusions_first(lines)
    assert md.count("| t5-base (new) |") == 6 and "(data changed)" not in md
    assert 'the spec changed: systems: added "t5-base"' in md  # not cut before the added name
    assert "| ROUGE-1 F1 · cnn-dm | t5-base (new) | – | 0.426 | – | better than lead-3 (p = 4.11e-05), " \
           "textrank (p = 0.00741); worse than bart-large (p = 2.38e-05), pegasus (p = 7.93e-08) |" in md


def test_summarization_with_one_system_changed_in_place(summarization: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """pegasus 0.02 lower on ROUGE-1 (the table overwritten): paired intervals (the point -0.02), pegasus named
    in the conclusions it changed, nobody else listed."""
    code, lines = markdown(capsys, summarization, "v2", "v3")
    md = "\n".join(lines)
    assert code == 1 and len(lines) <= PR_LINES, md
    conclusions_first(lines)
    assert "| ROUGE-1 F1 · cnn-dm | pegasus (data changed) | **0.465** | 0.445 | **-0.020 \\[-0.020, -0.020\\]** | – |" \
        in md and md.count("(data changed) |") == 2
    assert "best system (means; data of pegasus changed)" in md and "paired t interval" in md
    d = diffs_of(summarization, "v2", "v3")
    assert {(b.metric, r.system) for b in d.blocks for r in b.rows if r.data_changed} == {
        ("rouge1", "pegasus")}
    assert all(r.interval == "paired" for b in d.blocks for r in b.rows if r.data_changed)


def test_a_damaged_item_scores_field_is_named(in_place: Path, tmp_path: Path) -> None:
    """The manifest's item_scores is checked as its other fields: a hand-edited one is one line naming it."""
    from sigreport.archive.manifest import read_manifest

    folder = tmp_path / "v1"
    shutil.copytree(in_place / "reports" / "v1", folder)
    m = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    m[scores.FIELD][0]["systems"]["A"] = "not a hash"
    (folder / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    with pytest.raises(UserError) as err:
        read_manifest(folder)
    assert "item_scores" in err.value.problems[0].render()
