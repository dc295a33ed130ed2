"""Figures: drawn from the records' own decisions, readable, and byte-identical across runs."""

from __future__ import annotations

import hashlib
import itertools
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import sigreport
from conftest import CONFIGS, ROOT
from sigreport.render.figures import (
    FigureOutput,
    draw_cd,
    draw_confusion,
    draw_figures,
    draw_forest,
    draw_pvalues,
    figures_of,
    rank_groups,
)
from sigreport.render.figures.critical_difference import cd_figure
from sigreport.render.figures.forest import forest_figure
from sigreport.render.figures.heatmaps import NOT_SIGNIFICANT, SIGNIFICANT, p_text, pvalue_figure
from sigreport.render.figures.output import FigureStyle, figure_style, style
from sigreport.results import MetricInfo
from sigreport.results.records import PosthocRecord, PosthocRow



@pytest.fixture(scope="module")
def demsar():
    return sigreport.analyze(CONFIGS / "demsar.yaml")


@pytest.fixture(scope="module")
def uci():
    return sigreport.analyze(CONFIGS / "uci.yaml")


@pytest.fixture(scope="module")
def classifiers():
    return sigreport.analyze(CONFIGS / "classifiers.yaml")


def posthoc(ranks: dict[str, float], decisions: dict[tuple[str, str], bool | None], *, control: str | None = None,
            cd: float | None = None, method: str = "nemenyi") -> PosthocRecord:
    """A synthetic post-hoc record: the given ranks and decisions (no statistics involved)."""
    rows = tuple(PosthocRow(a=a, b=b, statistic=None, rank_difference=ranks[a] - ranks[b], pvalue=None,
                            pvalue_adjusted=None, significant=sig) for (a, b), sig in decisions.items())
    return PosthocRecord(id="m/*/posthoc", kind="posthoc", metric="m", corpus=None, level="corpora", method=method,
                         after="friedman", omnibus_significant=True, critical_difference=cd, q_alpha=None,
                         control=control, alpha=0.05, average_ranks=dict(ranks), pairs=rows, selection=None,
                         warnings=())


def by_cd(ranks: dict[str, float], cd: float, control: str | None = None) -> dict[tuple[str, str], bool]:
    """Decisions of a CD rule |R_a - R_b| > cd, all pairs or against the control (a test fixture)."""
    pairs = [(a, control) for a in ranks if a != control] if control else itertools.combinations(ranks, 2)
    return {(a, b): abs(ranks[a] - ranks[b]) > cd for a, b in pairs}


def check_groups_match_decisions(record: PosthocRecord) -> None:
    """Independent check of the bars: every pair inside a bar is recorded as not significant, the bars are
    runs of the rank order, and no bar can be extended by a neighbour without a significant/undecided pair."""
    g = rank_groups(record)
    sig = {frozenset((p.a, p.b)): p.significant for p in record.pairs}
    for grp in g.groups:
        i = g.order.index(grp[0])
        assert g.order[i:i + len(grp)] == grp
        assert all(sig[frozenset(p)] is False for p in itertools.combinations(grp, 2))
        for ext in (g.order[i - 1:i + len(grp)] if i else None, g.order[i:i + len(grp) + 1]):
            if ext and len(ext) > len(grp):
                assert not all(sig.get(frozenset(p)) is False for p in itertools.combinations(ext, 2))


# ---------------------------------------------------------------- CD diagram: the bars are the decisions

def test_demsar_cd_at_alpha_005_is_one_group(demsar):
    # Demšar (2006), section 3.2.1: CD = 2.569 * sqrt(4 * 5 / (6 * 14)) = 1.25 at alpha = 0.05, and the
    # largest difference, C4.5 (3.143) vs C4.5+m+cf (1.929) = 1.214, is below it: at 0.05 the post-hoc
    # test separates no pair. The record says so, and the diagram draws one bar over all four.
    rec = demsar["auc/*/posthoc"]
    assert rec.critical_difference == pytest.approx(1.2536, abs=1e-4)
    assert not any(p.significant for p in rec.pairs)
    g = rank_groups(rec)
    assert g.order == ("C4.5cf,m", "C4.5m", "C4.5cf", "C4.5")
    assert g.groups == (g.order,)
    check_groups_match_decisions(rec)


def test_demsar_cd_at_alpha_010_matches_figure_1(tmp_path):
    # Demšar (2006), Fig. 1 (Nemenyi at p = 0.10, CD = 2.291 * sqrt(20 / 84) = 1.12): C4.5 is separated
    # from C4.5+m and C4.5+m+cf; groups {C4.5+m+cf, C4.5+m, C4.5+cf} and {C4.5+cf, C4.5}.
    text = (CONFIGS / "demsar.yaml").read_text(encoding="utf-8")
    text = text.replace("alpha: 0.05", "alpha: 0.10").replace("data/demsar_auc.csv",
                                                                str(CONFIGS / "data" / "demsar_auc.csv"))
    (tmp_path / "demsar10.yaml").write_text(text, encoding="utf-8")
    rec = sigreport.analyze(tmp_path / "demsar10.yaml")["auc/*/posthoc"]
    assert rec.critical_difference == pytest.approx(1.118, abs=1e-3)
    g = rank_groups(rec)
    assert g.groups == (("C4.5cf,m", "C4.5m", "C4.5cf"), ("C4.5cf", "C4.5"))
    check_groups_match_decisions(rec)


def test_bars_follow_decisions_not_ranks():
    ranks = {"A": 1.0, "B": 1.5, "C": 2.2, "D": 3.0, "E": 3.4}
    # with CD 1.25: A-C 1.2 and C-E 1.2 are within, B-D 1.5 is not -> {A, B, C} and {C, D, E}
    assert rank_groups(posthoc(ranks, by_cd(ranks, 1.25), cd=1.25)).groups == (("A", "B", "C"), ("C", "D", "E"))
    # a recorded decision overrides the distance: D-E significant splits the second bar
    decisions = by_cd(ranks, 1.25) | {("D", "E"): True}
    rec = posthoc(ranks, decisions, cd=1.25)
    assert rank_groups(rec).groups == (("A", "B", "C"), ("C", "D"))
    check_groups_match_decisions(rec)
    # an undecided pair (null) is never joined
    rec = posthoc(ranks, by_cd(ranks, 1.25) | {("A", "B"): None}, cd=1.25)
    assert rank_groups(rec).groups == (("B", "C"), ("C", "D", "E"))
    assert rank_groups(rec).undecided == 1


def test_control_bar_spans_systems_not_different_from_control(uci):
    rec = uci["accuracy/*/posthoc"]  # Bonferroni-Dunn against Alg. 3: only Alg. 1 differs
    g = rank_groups(rec)
    assert g.control == "Alg. 3"
    assert g.groups == (tuple(s for s in g.order if s != "Alg. 1"),)
    ranks = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0, "E": 5.0}
    rec = posthoc(ranks, by_cd(ranks, 1.5, control="C"), control="C", cd=1.5, method="bonferroni_dunn")
    assert rank_groups(rec).groups == (("B", "C", "D"),)
    rec = posthoc(ranks, by_cd(ranks, 0.5, control="C"), control="C", cd=0.5, method="holm")
    assert rank_groups(rec).groups == ()


def test_missing_ranks_are_left_out_and_said():
    rec = posthoc({"A": 1.2, "B": None, "C": 1.8}, {("A", "C"): False}, cd=1.0)  # type: ignore[dict-item]
    g = rank_groups(rec)
    assert g.order == ("A", "C") and g.missing == ("B",) and g.groups == (("A", "C"),)
    assert "Not shown (no average rank): B." in draw_cd(rec).caption


def label_boxes(fig) -> list:
    renderer = fig.canvas.get_renderer()
    return [t.get_window_extent(renderer) for ax in fig.axes for t in ax.texts if t.get_text()]


def thirty_systems() -> PosthocRecord:
    rng = np.random.default_rng(30)
    ranks = np.sort(rng.uniform(1, 30, 30))
    ranks[5] = ranks[4]  # a tie
    names = [f"system-{i:02d}" + ("-with-a-long-name" if i % 7 == 0 else "") for i in range(30)]
    r = {n: float(v) for n, v in zip(names, ranks)}
    return posthoc(r, by_cd(r, 4.2), cd=4.2)


def test_thirty_systems_labels_do_not_overlap():
    rec = thirty_systems()
    with style():
        fig = cd_figure(rec)
        boxes = label_boxes(fig)
        size = fig.get_size_inches() * fig.dpi
    assert len(boxes) == 30 + 30 + 1  # system labels, tick labels 1..30, the CD
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b), (a, b)
    for box in boxes:
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= size[0] and box.y1 <= size[1]
    assert len(rank_groups(rec).groups) > 3
    check_groups_match_decisions(rec)


def test_cd_labels_do_not_overlap_on_examples(demsar, uci, classifiers):
    for rec in (demsar["auc/*/posthoc"], uci["accuracy/*/posthoc"], classifiers["accuracy/reviews/posthoc"]):
        with style():
            boxes = label_boxes(cd_figure(rec))
        assert all(not a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


def test_cd_caption_states_method_cd_and_direction(uci):
    rec = uci["accuracy/*/posthoc"]
    cap = draw_cd(rec, uci.metrics["accuracy"]).caption
    assert "Bonferroni-Dunn" in cap and "CD = 1.472" in cap and "control Alg. 3" in cap
    lower = MetricInfo(label="Error", higher_is_better=False, decimals=2, aggregate="mean")
    assert "the lowest score ranks first" in draw_cd(rec, lower).caption


# ---------------------------------------------------------------- forest plot and heatmaps

def markers(fig, filled: bool) -> int:
    return sum(1 for line in fig.axes[0].lines if line.get_marker() == "o"
               and (line.get_markerfacecolor() != "white") == filled)


def test_forest_marks_corrected_decisions(uci, demsar):
    for results, rid in ((uci, "accuracy/*/pairwise"), (demsar, "auc/*/pairwise")):
        rec = results[rid]
        with style():
            fig = forest_figure(rec, results.metrics[rec.metric])
        assert markers(fig, True) == sum(1 for p in rec.pairs if p.significant)
        assert markers(fig, False) == sum(1 for p in rec.pairs if p.significant is False)
        with figure_style(FigureStyle(width=469.0, wider=None)), style():  # the text width has room for the values
            wide = forest_figure(rec, results.metrics[rec.metric])
        assert len(wide.axes[0].texts) == len(rec.pairs)  # each pair's estimate [interval] beside its row
        assert len(fig.axes[0].texts) in (0, len(rec.pairs))  # a column may leave them out
        assert round(fig.get_figwidth() * 72, 1) == 229.5 and round(wide.get_figwidth() * 72, 1) == 469.0
    cap = draw_forest(uci["accuracy/*/pairwise"], uci.metrics["accuracy"]).caption
    # the nominal level (1 - alpha), as every interval of the report; the achieved 95.7% is in results.json
    assert "95% confidence interval" in cap and "95.7%" not in cap


def test_forest_is_not_drawn_for_all_pairs_of_many_systems(demsar):
    rec = demsar["auc/*/pairwise"]
    names = [f"s{i}" for i in range(11)]
    row = rec.pairs[0]
    many = type(rec)(**{**rec.__dict__, "pairs": tuple(type(row)(a=a, b=b, test=row.test, pvalue_adjusted=row.pvalue_adjusted,
                                                                       significant=row.significant)
                                                       for a, b in itertools.combinations(names, 2))})
    with pytest.raises(ValueError, match="at most 10 systems"):
        draw_forest(many)
    kinds = [f.name.split("-")[0] for f in figures_of(many)]
    assert kinds == ["pvalues"]


def test_pvalue_heatmap_cells_are_the_record(classifiers):
    for rid in ("accuracy/reviews/pairwise", "classification/reviews/mcnemar", "accuracy/tweets/posthoc"):
        rec = classifiers[rid]
        with style():
            fig = pvalue_figure(rec)
        ax = fig.axes[0]
        fills = cells_by_colour(ax)
        k = len({s for p in rec.pairs for s in (p.a, p.b)})
        assert sum(fills.values()) == k * (k - 1) // 2  # every cell of the lower triangle, once
        assert fills.get(SIGNIFICANT, 0) == sum(1 for p in rec.pairs if p.significant)
        assert fills.get(NOT_SIGNIFICANT, 0) == sum(1 for p in rec.pairs if p.significant is False)
        assert sorted(t.get_text() for t in ax.texts) == sorted(p_text(p.pvalue_adjusted) for p in rec.pairs)


def cells_by_colour(ax) -> dict[str, int]:
    """Filled cells per fill colour (hex) of a heatmap axes: its one collection holds a compound path of
    squares per colour (then unfilled outline paths)."""
    from matplotlib.colors import to_hex
    from matplotlib.path import Path as MPath

    (cells,) = ax.collections
    out: dict[str, int] = {}
    for path, face in zip(cells.get_paths(), cells.get_facecolors()):
        if face[3] > 0:
            out[to_hex(face)] = out.get(to_hex(face), 0) + int((path.codes == MPath.MOVETO).sum())
    return out


def undecided_pvalues() -> PosthocRecord:
    """Four systems; A-B undecided without a p-value ('n/a'), B-C undecided with one, the rest decided."""
    ranks = {"A": 1.0, "B": 2.0, "C": 3.0, "D": 4.0}
    rows = tuple(PosthocRow(a=a, b=b, statistic=z, rank_difference=rd, pvalue=p, pvalue_adjusted=p_adj, significant=sig)
                 for a, b, z, rd, p, p_adj, sig in (("A", "B", None, -1.0, None, None, None),
                                                    ("A", "C", 2.0, -2.0, 0.01, 0.02, True),
                                                    ("A", "D", 3.0, -3.0, 0.001, 0.0004, True),
                                                    ("B", "C", 1.0, -1.0, 0.3, 0.4, None),
                                                    ("B", "D", 2.0, -2.0, 0.1, 0.2, False),
                                                    ("C", "D", 1.0, -1.0, 0.5, 0.6, False)))
    return PosthocRecord(id="m/*/posthoc", kind="posthoc", metric="m", corpus=None, level="corpora", method="nemenyi",
                         after="friedman", omnibus_significant=True, critical_difference=1.5, q_alpha=None,
                         control=None, alpha=0.05, average_ranks=ranks, pairs=rows, selection=None, warnings=())


def test_undecided_cells_are_white_outlined_and_say_na():
    rec = undecided_pvalues()
    with style():
        ax = pvalue_figure(rec).axes[0]
    assert cells_by_colour(ax) == {"#ffffff": 2, SIGNIFICANT: 2, NOT_SIGNIFICANT: 2}
    (cells,) = ax.collections
    strokes = [(path, edge, width) for path, face, edge, width in
               zip(cells.get_paths(), cells.get_facecolors(), cells.get_edgecolors(), cells.get_linewidths())
               if face[3] == 0]
    grid, outline = strokes  # the white lines between all six cells, then the grey undecided outlines
    assert tuple(grid[1][:3]) == (1.0, 1.0, 1.0) and grid[2] == 1.0 and len(grid[0].vertices) == 6 * 5
    assert tuple(outline[1][:3]) == pytest.approx((0.6, 0.6, 0.6)) and len(outline[0].vertices) == 2 * 5
    inset = outline[0].vertices[:4]  # inside cell (row 0, col 0): A-B, the first undecided pair
    assert inset.min() == pytest.approx(-0.45) and inset.max() == pytest.approx(0.45)
    assert sorted(t.get_text() for t in ax.texts) == sorted(["n/a", "0.020", "<0.001", "0.400", "0.200", "0.600"])


def test_heatmap_svg_is_vector_with_one_path_per_colour():
    """No raster image; one filled path per cell colour whose subpaths are the cells; labels as paths."""
    out = draw_pvalues(undecided_pvalues())
    svg = out.svg
    assert "<image" not in svg and "base64" not in svg
    background, *fills = re.findall(r'<path d="([^"]*)"[^>]*style="fill: (#[0-9a-f]{6})"', svg)
    assert background[1] == "#ffffff" and background[0].count("M") == 1  # the figure's own background
    assert sorted((colour, d.count("M")) for d, colour in fills) == sorted(
        [("#ffffff", 2), (SIGNIFICANT, 2), (NOT_SIGNIFICANT, 2)])
    assert 'stroke: #999999; stroke-width: 0.6' in svg  # the undecided outline survives into the file
    assert b"/Subtype /Image" not in out.pdf


def test_confusion_cells_are_the_counts(classifiers):
    rec = classifiers["classification/reviews/classification"]
    out = draw_confusion(rec)
    with style():
        from sigreport.render.figures.heatmaps import confusion_figure
        fig = confusion_figure(rec)
    for ax, s in zip(fig.axes, rec.systems):
        assert ax.get_title() == s.system
        assert [t.get_text() for t in ax.texts] == [str(v) for row in s.confusion_matrix.matrix for v in row]
    assert "360 items" in out.caption


def test_confusion_axis_names_lie_inside_the_figure(classifiers):
    """'gold' (rotated, left of the first column's row labels) and 'predicted' are drawn whole: an earlier
    layout left no room for 'gold' and cut it at the figure's left edge."""
    rec = classifiers["classification/reviews/classification"]
    with style():
        from sigreport.render.figures.heatmaps import confusion_figure
        fig = confusion_figure(rec)
        renderer = fig.canvas.get_renderer()
        fig.draw(renderer)
        names = {t.get_text(): t.get_window_extent(renderer) for t in fig.artists if getattr(t, "get_text", lambda: "")() in ("gold", "predicted")}
    assert set(names) == {"gold", "predicted"}
    width, height = fig.bbox.width, fig.bbox.height
    for box in names.values():
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height, box


# ---------------------------------------------------------------- files: bytes, SVG, PDF, LaTeX

def digest(figs: tuple[FigureOutput, ...] | list[FigureOutput]) -> str:
    h = hashlib.sha256()
    for f in figs:
        h.update(f.name.encode() + f.svg.encode() + f.pdf)
    return h.hexdigest()


def test_same_record_same_bytes_across_draws_and_processes(demsar):
    import matplotlib

    first = draw_figures(demsar)
    assert [f.name for f in first] == ["forest-auc-all-pairwise", "pvalues-auc-all-pairwise", "cd-auc-all-posthoc",
                                       "pvalues-auc-all-posthoc"]
    assert digest(first) == digest(draw_figures(demsar))
    code = textwrap.dedent(f"""
        import hashlib, sigreport
        from sigreport.render.figures import draw_figures
        h = hashlib.sha256()
        for f in draw_figures(sigreport.analyze({str(CONFIGS / 'demsar.yaml')!r})):
            h.update(f.name.encode() + f.svg.encode() + f.pdf)
        print(h.hexdigest())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == digest(first)
    # the style was local: the user's settings are untouched and pyplot was never loaded
    assert matplotlib.rcParams["svg.hashsalt"] is None
    assert "matplotlib.pyplot" not in sys.modules


def test_svg_is_inline_ready_and_self_contained(classifiers):
    figs = draw_figures(classifiers)
    assert {f.name.split("-")[0] for f in figs} == {"cd", "forest", "pvalues", "confusion"}
    all_ids: list[str] = []
    for f in figs:
        svg = f.svg
        assert svg.startswith("<svg ") and "<?xml" not in svg and "<!DOCTYPE" not in svg
        assert re.search(r'viewBox="0 0 [\d.]+ [\d.]+"', svg) and 'width="100%"' in svg
        assert "<metadata" not in svg and "<style" not in svg and "<title>" in svg
        no_ns = re.sub(r'\sxmlns(:\w+)?="[^"]*"', "", svg)
        assert "http" not in no_ns and "file:" not in no_ns
        ids = re.findall(r'\bid="([^"]+)"', svg)
        assert all(i.startswith(f.name + "-") for i in ids)
        refs = re.findall(r'href="([^"]*)"', svg) + re.findall(r"url\(([^)]*)\)", svg)
        assert all(r.startswith("#") and r[1:] in ids for r in refs)
        all_ids += ids
    assert len(all_ids) == len(set(all_ids))  # every figure on one HTML page: no id is used twice


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is missing")
def test_pdf_is_vector_with_searchable_names(uci, tmp_path):
    for f in draw_figures(uci):
        assert f.pdf.startswith(b"%PDF")
        assert b"CreationDate" not in f.pdf and b"Matplotlib" not in f.pdf
        path = tmp_path / f"{f.name}.pdf"
        path.write_bytes(f.pdf)
        text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
        for system in uci.systems:
            assert system in text, (f.name, system)


def test_latex_snippet_escapes_caption(uci):
    f = draw_cd(uci["accuracy/*/posthoc"], uci.metrics["accuracy"])  # the label holds a '%'
    assert f.latex.startswith("\\providecommand{\\sigreportdir}{.}\n\\begin{figure}[t]\n\\centering\n")
    assert "\\includegraphics[width=\\columnwidth]{\\sigreportdir/figures/cd-accuracy-all-posthoc.pdf}" in f.latex
    assert "Accuracy (\\%)" in f.latex and "$\\alpha$ = 0.05" in f.latex
    assert "\\label{fig:cd-accuracy-all-posthoc}\n\\end{figure}\n" in f.latex


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is missing")
def test_latex_snippets_compile(uci, tmp_path):
    figs = draw_figures(uci)
    (tmp_path / "figures").mkdir()
    for f in figs:
        (tmp_path / "figures" / f"{f.name}.pdf").write_bytes(f.pdf)
    body = "\n".join(f.latex for f in figs)
    doc = f"\\documentclass[twocolumn]{{article}}\n\\usepackage{{graphicx}}\n\\begin{{document}}\n{body}\n\\end{{document}}\n"
    (tmp_path / "paper.tex").write_text(doc, encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "Overfull" not in run.stdout


def test_matplotlib_is_not_imported_until_a_figure_is_drawn():
    code = ("import sys, sigreport.cli, sigreport.render.figures\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_figures_skip_the_vector_pdf_when_latex_is_not_written(demsar, tmp_path):
    """Only LaTeX output uses a figure's PDF (HTML and the PDF report embed the SVG), so a model built with
    ``figure_pdf=False`` carries the same SVGs and no PDF bytes; an html build writes no figures/ folder,
    a latex build writes every figure's PDF."""
    from sigreport.cli import main
    from sigreport.render.views import build_report

    with_pdf, without = build_report(demsar), build_report(demsar, figure_pdf=False)
    assert with_pdf.figures() and all(f.pdf for f in with_pdf.figures())
    assert [f.svg for f in without.figures()] == [f.svg for f in with_pdf.figures()]
    assert not any(f.pdf for f in without.figures())
    html = tmp_path / "html"
    assert main(["build", "-q", "--no-cache", "--formats", "html", "-o", str(html), str(CONFIGS / "demsar.yaml")]) == 0
    assert not (html / "figures").exists() and "<svg" in (html / "index.html").read_text(encoding="utf-8")
    tex = tmp_path / "tex"
    assert main(["build", "-q", "--no-cache", "--formats", "latex", "-o", str(tex), str(CONFIGS / "demsar.yaml")]) == 0
    pdfs = sorted((tex / "figures").glob("*.pdf"))
    assert pdfs and all(p.read_bytes().startswith(b"%PDF") for p in pdfs)


# ---------------------------------------------------------------- cheap drawing, same picture

def test_category_labels_sit_where_matplotlib_ticks_put_them():
    """output.tick_labels replaces set_xticks/set_yticks(labels) + tick_params(length=0): every label's box
    must be matplotlib's own tick label box (the heatmaps and forest rely on it to look unchanged)."""
    from sigreport.render.figures.output import new_figure, tick_labels

    names = ["A", "system-two", "a-much-longer-name", "Ω-4"]
    with style():
        ticks, plain = new_figure(3.0, 3.0), new_figure(3.0, 3.0)
        for fig in (ticks, plain):
            ax = fig.add_axes((0.4, 0.4, 0.5, 0.5))
            ax.set_xlim(-0.5, 3.5)
            ax.set_ylim(3.5, -0.5)
        ax = ticks.axes[0]
        ax.set_xticks(range(4), names, rotation=90, fontsize=8.0)
        ax.set_yticks(range(4), names, fontsize=8.0)
        ax.tick_params(length=0)
        plain.axes[0].set_axis_off()
        texts = tick_labels(plain.axes[0], list(enumerate(names)), list(enumerate(names)), 8.0)
        renderer = ticks.canvas.get_renderer()
        expected = [b for t in ax.get_xticklabels() + ax.get_yticklabels() for b in t.get_window_extent(renderer).bounds]
        got = [b for t in texts for b in t.get_window_extent(plain.canvas.get_renderer()).bounds]
    assert len(texts) == 8 and got == pytest.approx(expected, abs=1e-6)


def test_measure_is_the_renderers_measurement():
    """measure() remembers sizes; the remembered value is what the figure's own renderer measures."""
    from matplotlib.font_manager import FontProperties

    from sigreport.render.figures.output import font_families, measure, new_figure

    with style():
        fig = new_figure(2.0, 2.0)
        renderer = fig.canvas.get_renderer()
        for text, size, weight in (("C4.5cf,m (1.93)", 9.0, "bold"), ("system-01-long", 8.0, "normal"), ("0.037", 7.0, "normal")):
            prop = FontProperties(family=list(font_families()), size=size, weight=weight)
            w, h, _ = renderer.get_text_width_height_descent(text, prop, ismath=False)
            for _ in range(2):  # measured, then remembered
                assert measure(fig, text, size, weight) == (w / 72, h / 72)
        assert measure(fig, "x", 9.0, "bold")[0] > measure(fig, "x", 9.0)[0] * 0.99


def test_shared_text_metrics_give_the_bytes_of_fresh_measurements(demsar, uci, monkeypatch):
    """Measuring each text once per process (speed.mpl.shared_text_metrics) must not change a byte: the figures
    drawn after others (warm measurements) equal the figures drawn with matplotlib's own per-renderer
    measurement. A key without the renderer class would fail here: SVG and PDF measure digits differently."""
    import contextlib

    from sigreport.render.figures import output
    from sigreport.speed import mpl

    mpl._METRICS.clear()
    warm = draw_figures(uci) + draw_figures(demsar)  # demsar's drawn after uci's: the cache is warm
    assert mpl._METRICS  # the figures were measured through it
    monkeypatch.setattr(output, "shared_text_metrics", contextlib.nullcontext)
    fresh = draw_figures(uci) + draw_figures(demsar)
    assert [f.name for f in warm] == [f.name for f in fresh]
    for a, b in zip(warm, fresh):
        assert a.svg == b.svg, a.name
        assert a.pdf == b.pdf, a.name


def test_cmr10_is_not_used_for_names_it_would_draw_wrongly(tmp_path):
    """matplotlib's cmr10 (the article10 and lncs presets' serif) has TeX's OT1 encoding: '_' is a dot accent,
    '<' an inverted '!', '|' an en dash (fontTools: cmr10.ttf's cmap maps U+005F to the glyph 'dotaccent').
    A report whose names hold such a character draws all its figures in STIX instead: lm_eval's model
    folders (org__model-base) were drawn 'org˙˙model-base'. A report of safe names keeps cmr10."""
    import matplotlib
    from fontTools.agl import UV2AGL
    from fontTools.ttLib import TTFont

    from sigreport.cli import main
    from sigreport.render.figures.output import CMR10_FALLBACK, CMR10_WRONG, readable_style

    cmap = TTFont(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "cmr10.ttf").getBestCmap()
    wrong = {chr(c) for c in range(32, 127) if cmap.get(c) != UV2AGL[c]}  # glyph names other than the character's
    assert cmap[ord("_")] == "dotaccent" and CMR10_WRONG <= wrong
    assert wrong - CMR10_WRONG == set("'^`~")  # close enough: a right quote, a circumflex and a tilde
    fs = FigureStyle()
    assert fs.font == "cmr10" and readable_style(fs, ["A", "B-2", "news (2024)"]) is fs
    for name in ("org__model", "a<b", "x|y", "{z}"):
        assert readable_style(fs, ["A", name]).font == CMR10_FALLBACK
    assert readable_style(FigureStyle(font="DejaVu Sans"), ["org__model"]).font == "DejaVu Sans"

    def glyph_fonts(html: str) -> set[str]:
        return {m.group(1) for m in re.finditer(r'<path id="[^"]*-pairwise-(Cmr10|STIXGeneral)', html)}

    for config, fonts in (("lm_eval", {"STIXGeneral"}), ("summarizers", {"Cmr10"})):
        out = tmp_path / config
        assert main(["build", "-q", "--no-cache", "--formats", "html", str(CONFIGS / f"{config}.yaml"), "-o",
                     str(out)]) == 0
        assert glyph_fonts((out / "index.html").read_text(encoding="utf-8")) == fonts, config


def test_generic_figure_fonts_draw_their_family():
    """outputs.figure_style.font's generic names: serif is the page's, sans and sans-serif DejaVu Sans, monospace
    DejaVu Sans Mono (all shipped inside matplotlib); a family is drawn in itself."""
    from sigreport.render.figures.output import font_families, style_of
    from sigreport.render.options import FigureStyleOptions
    from sigreport.render.pages import page_of

    page = page_of("acl")
    got = {f: style_of(page, FigureStyleOptions(font=f)).font
           for f in ("serif", "sans", "sans-serif", "monospace", "DejaVu Serif")}
    assert got == {"serif": page.serif, "sans": "DejaVu Sans", "sans-serif": "DejaVu Sans",
                   "monospace": "DejaVu Sans Mono", "DejaVu Serif": "DejaVu Serif"}
    with figure_style(style_of(page, FigureStyleOptions(font="monospace"))):
        assert font_families()[0] == "DejaVu Sans Mono"  # an installed family comes first in matplotlib's list
