"""Paper-ready outputs: the main results table (marks from the records), main.md / main.csv / main.tex,
figures wired into HTML, PDF and LaTeX, conclusions first, options validated, every file listed."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import sigreport
from conftest import CONFIGS, assert_user_error, needs, pdflatex_compile
from sigreport.archive import store
from sigreport.cli import main
from sigreport.render.model import Int, Marked
from sigreport.render.views import build_report
from sigreport.render.views.main import DAGGER, DDAGGER, MAX_COLUMNS, letters
from sigreport.results import from_json


@pytest.fixture(scope="module")
def summ(example) -> Path:
    """configs/summarization.yaml built (every format): the session's shared, read-only build (conftest)."""
    return example("summarization")


def estimate(p) -> float:
    """A pair's estimate a - b, typed (``test.estimate``) or read back from results.json (``estimate``)."""
    return p.test.estimate if hasattr(p, "test") else p.estimate


def raw_p(p) -> float:
    return p.test.pvalue if hasattr(p, "test") else p.pvalue


def expected_marks(results) -> dict[tuple[str, str | None, str], tuple[str, str]]:
    """(metric, corpus, system) -> (emphasis, markers) computed here from the records alone: values as
    shown (rounded to the metric's decimals), the direction of each metric, and the corrected decisions
    (``significant``) of the pairwise record, the winner by the sign of the recorded estimate a - b."""
    out = {}
    lett = letters(results.systems)
    for d in results.of_kind("descriptives"):
        info = results.metrics[d.metric]
        shown = {s.system: round(s.mean, info.decimals) for s in d.systems}
        distinct = sorted(set(shown.values()), reverse=info.higher_is_better)
        pw = [r for r in results.of_kind("pairwise") if r.metric == d.metric and r.corpus == d.corpus][0]
        beats: dict[str, set[str]] = {}
        for p in pw.pairs:
            if p.significant:
                a_better = (estimate(p) > 0) == info.higher_is_better
                beats.setdefault(p.a if a_better else p.b, set()).add(p.b if a_better else p.a)
        for s in results.systems:
            rank = distinct.index(shown[s])
            emphasis = "best" if rank == 0 else "second" if rank == 1 else ""
            out[(d.metric, d.corpus, s)] = (emphasis, "".join(lett[x] for x in results.systems
                                                               if x in beats.get(s, set())))
    return out


def test_main_table_marks_follow_the_records(summ):
    results = from_json((summ / "results.json").read_text(encoding="utf-8"))
    model = build_report(results, figures=())  # the main table does not depend on the figures
    assert len(model.main) == 1 and model.main[0].name == "main"  # 6 columns: not split
    t = model.main[0]
    want = expected_marks(results)
    cols = [(d.metric, d.corpus) for d in results.of_kind("descriptives")]
    assert len(t.columns) == 2 + len(cols) and len(cols) <= MAX_COLUMNS  # System, Rank (UB), the values
    assert [row[0].text.split(" (")[0] for row in t.rows] == list(results.systems)  # spec order
    # Rank (UB) of the first column (rouge1 on cnn-dm): 1 + the systems whose letters name it, counted here
    first = {s: want[(cols[0][0], cols[0][1], s)][1] for s in results.systems}
    lett = letters(results.systems)
    assert [row[1] for row in t.rows] == [Int(1 + sum(lett[s] in m for m in first.values())) for s in results.systems]
    seen_marks = 0
    for row, system in zip(t.rows, results.systems):
        for cell, (metric, corpus) in zip(row[2:], cols):
            assert isinstance(cell, Marked)
            assert (cell.emphasis, cell.marks) == want[(metric, corpus, system)], (metric, corpus, system)
            seen_marks += bool(cell.marks)
    assert seen_marks > 5
    # lower is better for length_ratio: the best is the smallest mean shown
    d = [r for r in results.of_kind("descriptives") if r.metric == "length_ratio" and r.corpus == "cnn-dm"][0]
    best = min(d.systems, key=lambda s: s.mean).system
    col = cols.index(("length_ratio", "cnn-dm")) + 2
    assert t.rows[list(results.systems).index(best)][col].emphasis == "best"


def test_markers_come_from_corrected_decisions_not_raw_p(summ):
    """A pair with raw p < alpha that Holm's correction does not reject has no marker."""
    results = from_json((summ / "results.json").read_text(encoding="utf-8"))
    want = expected_marks(results)
    lett = letters(results.systems)
    raw_only = [(r, p) for r in results.of_kind("pairwise") for p in r.pairs
                if raw_p(p) < results.alpha and not p.significant]
    assert raw_only, "the example has a pair significant only before correction"
    for r, p in raw_only:
        for winner, loser in ((p.a, p.b), (p.b, p.a)):
            assert lett[loser] not in want[(r.metric, r.corpus, winner)][1]
    t = build_report(results, figures=()).main[0]
    cols = [(d.metric, d.corpus) for d in results.of_kind("descriptives")]
    for r, p in raw_only:
        c = cols.index((r.metric, r.corpus)) + 2
        for winner, loser in ((p.a, p.b), (p.b, p.a)):
            assert lett[loser] not in t.rows[list(results.systems).index(winner)][c].marks


def test_legend_names_alpha_test_correction_and_family(summ):
    notes = " ".join(build_report(from_json((summ / "results.json").read_text()), figures=()).main[0].notes)
    assert "paired t test" in notes and "Holm correction over the 10 comparisons" in notes
    assert "\u03b1 = 0.05" in notes and "never raw p-values" in notes
    assert "lower is better for Length ratio" in notes and "a = lead-3" in notes


def test_vs_baseline_markers_are_daggers_from_the_records():
    """uci.yaml compares every system with the baseline (sign test): dagger better, double dagger worse."""
    results = sigreport.analyze(CONFIGS / "uci.yaml")
    model = build_report(results, figures=())
    t = model.main[0]
    pw = results.of_kind("pairwise")[0]
    assert pw.comparisons == "vs_baseline"
    base = "Alg. 3"  # configs/uci.yaml: baseline (the system in every pair)
    assert all(base in (p.a, p.b) for p in pw.pairs)
    higher = results.metrics[pw.metric].higher_is_better
    want = {}
    for p in pw.pairs:
        other = p.b if p.a == base else p.a
        if not p.significant:
            want[other] = ""
        else:
            other_better = ((estimate(p) > 0) == higher) == (p.a == other)
            want[other] = DAGGER if other_better else DDAGGER
    got = {row[0].text: row[2].marks for row in t.rows}  # (row[1]: Rank (UB))
    assert got[base] == ""
    assert {s: got[s] for s in want} == want
    legend = " ".join(t.notes)  # each marker a cell shows is explained, and only those (issue 32 item 7)
    assert any(want.values())
    assert all((f"{m}: significantly" in legend) == (m in want.values()) for m in (DAGGER, DDAGGER))
    assert f"the baseline {base}" in legend
    assert model.figures() == []  # figures=() draws none


def test_conclusions_have_a_verb_and_come_first(summ):
    html = (summ / "index.html").read_text(encoding="utf-8")
    i_conc, i_main, i_set = (html.index('id="conclusions"'), html.index('id="main-results"'),
                             html.index('id="settings"'))
    assert i_conc < i_main < i_set
    model = build_report(from_json((summ / "results.json").read_text()), figures=())
    assert len(model.conclusions) == 6
    verbs = re.compile(r"\b(has|is|are|do|does|differs|finds|could|compared|follow|share|separates|disagrees)\b")
    for _, lines in model.conclusions:
        assert lines and all(verbs.search(s) for s in lines), lines
    rouge = dict(model.conclusions)["ROUGE-1 F1 \u2014 cnn-dm"]
    assert rouge[0].startswith("pegasus has the highest value")
    assert rouge[1] == "Decisions here follow the paired t test, Holm-adjusted: the spec's pairwise test on item-level data (tests.pairwise)."


def test_md_csv_tex_outputs(summ, tmp_path):
    md = (summ / "main.md").read_text(encoding="utf-8")
    lines = [x for x in md.splitlines() if x.startswith("|")]
    assert len(lines) == 2 + 5 and "**0.465**<sup>abe</sup>" in md
    rows = list(csv.reader(io.StringIO((summ / "main.csv").read_text(encoding="utf-8"))))
    assert rows[0][:2] == ["system", "Rank (UB)"] and len(rows) == 6 and len(rows[0]) == 2 + 3 * 6
    pegasus = rows[4]
    assert pegasus[0] == "pegasus (d)" and pegasus[1:5] == ["1", "0.465", "best", "abe"]
    tex = (summ / "tables" / "main.tex").read_text(encoding="utf-8")
    assert r"\textbf{0.465}\textsuperscript{abe}" in tex and r"\underline{0.453}" in tex


@needs("pdflatex")
def test_main_tex_and_figure_snippets_compile(summ, tmp_path):
    shutil.copytree(summ / "figures", tmp_path / "figures")
    body = (summ / "tables" / "main.tex").read_text(encoding="utf-8")
    snippets = sorted((summ / "figures").glob("*.tex"))
    assert snippets
    body += "\n".join(p.read_text(encoding="utf-8") for p in snippets[:3])
    run = pdflatex_compile(body, tmp_path, "\\usepackage{graphicx}\n")
    assert run.returncode == 0, run.stdout[-2000:]


def test_figures_in_html_and_latex_and_listed(summ):
    results = from_json((summ / "results.json").read_text())
    model = build_report(results)
    figs = model.figures()
    assert len(figs) == 12  # forest and p-value heatmap for each of the 6 pairwise families
    html = (summ / "index.html").read_text(encoding="utf-8")
    for f in figs:
        assert f'id="fig-{f.name}"' in html
        assert (summ / "figures" / f"{f.name}.pdf").read_bytes()[:5] == b"%PDF-"
        assert f"figures/{f.name}.pdf" in (summ / "figures" / f"{f.name}.tex").read_text()
    assert html.count("<svg") == len(figs)  # the key figure is shown once, at the top
    assert model.key_figure is not None and html.index(f'id="fig-{model.key_figure.name}"') < html.index(
        'id="settings"')
    readme = (summ / "figures" / "README.txt").read_text()
    assert all(f"{f.name}.pdf" in readme for f in figs)
    listed = (summ / store.MARKER).read_text().splitlines()[1:]
    on_disk = sorted(p.relative_to(summ).as_posix() for p in summ.rglob("*") if p.is_file() and p.name != store.MARKER)
    assert sorted(listed) == on_disk


def test_rebuild_with_figures_is_accepted(cli, tmp_path, example):
    out = tmp_path / "out"
    shutil.copytree(example("demsar"), out)  # a report with figures/ (the shared build, copied: it is replaced)
    r = cli("build", "-q", "--formats", "json,html,latex", "-o", out, CONFIGS / "demsar.yaml")
    assert r.code == 0, r.err
    assert (out / "figures" / "cd-auc-all-posthoc.pdf").exists() and (out / "main.md").exists()


def test_figures_option_switches_kinds(cli, tmp_path):
    spec = (CONFIGS / "demsar.yaml").read_text(encoding="utf-8").replace("data/", str(CONFIGS / "data") + "/")
    for kinds, want in (("[cd]", ["cd-auc-all-posthoc"]), ("[]", [])):
        (tmp_path / "spec.yaml").write_text(spec + f"\noutputs:\n  figures: {kinds}\n", encoding="utf-8")
        out = tmp_path / f"out{len(want)}"
        r = cli("build", "-q", "--formats", "json,html,latex", "-o", out, tmp_path / "spec.yaml")
        assert r.code == 0, r.err
        got = sorted(p.stem for p in (out / "figures").glob("*.pdf")) if (out / "figures").exists() else []
        assert got == want
        assert (out / "index.html").read_text().count("<svg") == len(want)


DATA = "system,corpus,item,metric,value\nA,c,t1,m,0.59\nA,c,t2,m,0.58\nB,c,t1,m,0.39\nB,c,t2,m,0.44\n"
BASE = "title: t\ndata:\n  scores: s.csv\nmetrics:\n  m:\n    higher_is_better: true\noutputs:\n  formats: [json]\n"


@pytest.mark.parametrize("name, extra, fragments", [
    ("unknown metric", "  main_table:\n    metrics: [m, nope]\n",
     ["outputs.main_table.metrics[1] (line 10): metric 'nope' is not analysed; known: m"]),
    ("unknown corpus", "  main_table:\n    corpora: [zz]\n",
     ["outputs.main_table.corpora[0] (line 10): corpus 'zz' is not analysed; known: c"]),
    ("bad cell", "  main_table:\n    cell: value_se\n", ["outputs.main_table.cell (line 10): 'value_se' is not allowed"]),
    ("unknown option", "  main_table:\n    bold: true\n", ["outputs.main_table.bold (line 10): unknown key 'bold'"]),
    ("markers not boolean", "  main_table:\n    markers: 1\n", ["outputs.main_table.markers (line 10)"]),
    ("bad figure kind", "  figures: [cd, bars]\n", ["outputs.figures[1] (line 9): 'bars' is not allowed"]),
    ("figure twice", "  figures: [cd, cd]\n", ["outputs.figures (line 9): figure kinds are listed more than once"]),
    # two systems: no omnibus test, so no Friedman post-hoc for a CD diagram; scores only: no confusion matrix
    ("figure without its analysis", "  figures: [forest, cd, confusion]\n",
     ["outputs.figures[1] (line 9): figure 'cd' needs a post-hoc test on Friedman's average ranks",
      "outputs.figures[2] (line 9): figure 'confusion' needs a classification analysis"]),
])
def test_option_errors(cli, workdir, name, extra, fragments):
    workdir.write("s.csv", DATA)
    spec = workdir.write("spec.yaml", BASE + extra)
    assert_user_error(cli, spec, workdir.path / "out", name, fragments)


def test_main_table_options_and_split(workdir, cli):
    """cell value_ci, decimals and markers off; more than MAX_COLUMNS columns split per metric."""
    rows = ["system,corpus,item,metric,value"]
    for m in ("m1", "m2"):
        for c in ("c1", "c2", "c3", "c4"):
            for i in range(6):
                rows += [f"A,{c},t{i},{m},{0.5 + i / 100}", f"B,{c},t{i},{m},{0.4 + (i % 3) / 50}"]
    workdir.write("s.csv", "\n".join(rows) + "\n")
    spec = workdir.write("spec.yaml", "title: t\ndata:\n  scores: s.csv\nmetrics:\n  m1: {higher_is_better: true}\n"
                         "  m2: {higher_is_better: false}\noutputs:\n  formats: [json, latex]\n  main_table:\n"
                         "    cell: value_ci\n    decimals: 2\n    markers: false\n")
    r = cli("build", "-q", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    out = workdir.path / "out"
    assert sorted(p.name for p in (out / "tables").glob("main*.tex")) == ["main-m1.tex", "main-m2.tex"]
    tex = (out / "tables" / "main-m1.tex").read_text()
    assert r"\textbf{0.53 [" in tex and "textsuperscript" not in tex  # A's mean 0.525 -> 0.53 with CI
    assert "markers are switched off" in tex
    assert "B (b)" not in (out / "main.md").read_text()  # no letters without markers
    m2 = (out / "tables" / "main-m2.tex").read_text()  # lower is better: B (mean 0.42) is the best
    assert r"\textbf{0.42 [" in m2 and r"\underline{0.53 [" in m2


@needs("pdftotext")
def test_pdf_first_page_has_conclusions_and_main_table(example):
    out = example("uci")  # conftest: built once per session in every format, the PDF included
    text = subprocess.run(["pdftotext", "-l", "1", str(out / "report.pdf"), "-"], capture_output=True,
                          text=True).stdout
    assert "Conclusions" in text and "Main results" in text and "significantly" in text


@pytest.mark.parametrize("name", ["demsar", "summarization", "classifiers"])
def test_html_prose_shows_notation_not_underscores(example, name):
    """Captions and notes in the HTML set the notation as symbols (p<sub>adj</sub>, chi-square with its
    subscript), as the LaTeX sets it in math mode: no typed token such as ``p_adj`` or ``q_alpha`` is left
    in a caption or a note."""
    from sigreport.render.format import PROSE_NOTATION

    page = (example(name) / "index.html").read_text(encoding="utf-8")
    prose = re.findall(r'<(?:figcaption|p class="(?:tablenote|why)")[^>]*>(.*?)</(?:figcaption|p)>', page, re.S)
    assert prose
    text = "\n".join(re.sub(r"<svg.*?</svg>", "", p, flags=re.S) for p in prose)
    left = {tok for tok in PROSE_NOTATION if "_" in tok and re.search(rf"(?<![\w.]){re.escape(tok)}(?!\w)", text)}
    assert not left, left
    assert "<sub>" in text
