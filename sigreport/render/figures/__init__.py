"""Figures drawn from analysis records: critical-difference diagrams, forest plots, p-value and
confusion-matrix heatmaps, each as deterministic SVG (inline-ready) and vector PDF with a caption and a
LaTeX ``figure`` snippet.

Pure functions of the records (:mod:`sigreport.results`): nothing is recomputed, every mark comes from a
recorded estimate, interval or corrected decision. matplotlib is imported only when a figure is drawn,
so importing this package (or running ``sigreport --help`` / ``validate``) does not load it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator

from sigreport import defaults
from sigreport.render.figures.critical_difference import RankGroups, draw_cd, rank_groups
from sigreport.render.figures.forest import draw_forest, forest_fits
from sigreport.render.figures.heatmaps import draw_confusion, draw_pvalues, heatmap_fits
from sigreport.render.figures.leaderboard import draw_leaderboard, draw_strengths, leaderboard_fits, strength_board
from sigreport.render.figures.output import FigureOutput, latex_snippet
from sigreport.render.figures.winrates import draw_winrates
from sigreport.results.collection import MetricInfo, Results
from sigreport.results.figure_rules import FIGURE_RULES, gives, source_of
from sigreport.results.records import (ClassificationRecord, DescriptivesRecord, McNemarRecord, PairwiseRecord,
                                       PosthocRecord, PreferenceRecord, Record)

KINDS = defaults.FIGURE_KINDS


def figure_plan(record: Record, results: Results | None = None,
                kinds: Collection[str] = KINDS) -> list[Callable[[], FigureOutput]]:
    """The drawings one record implies, in a fixed order, not yet drawn (cheap: the rules alone).

    The kinds a record gives come from :data:`~sigreport.results.figure_rules.FIGURE_RULES`: a post-hoc test on
    Friedman's ranks a CD diagram; a pairwise or cross-validation family (or post-hoc paired t tests) a forest
    plot when it fits (vs baseline, or all pairs of at most 10 systems); every family a p-value heatmap when
    it fits; a classification record its confusion matrices; descriptives of 6 or more ranked systems a
    leaderboard. ``results`` supplies the metric's label and
    direction.
    """
    metric = results.metrics.get(record.metric) if results is not None and record.metric else None
    return record_plan(record, metric, kinds)


def record_plan(record: Record, metric: MetricInfo | None,
                kinds: Collection[str] = KINDS) -> list[Callable[[], FigureOutput]]:
    """:func:`figure_plan` with the record's metric (its ``MetricInfo``, or None) given instead of the results.

    Which kinds a record gives is the one table :data:`~sigreport.results.figure_rules.FIGURE_RULES` (the spec
    check reads it too); whether this record's family fits a figure (a forest plot of at most 10 systems, a
    heatmap of at least two pairs) is decided here, from the record."""
    r = record
    source = source_of(record)
    out: list[Callable[[], FigureOutput]] = []
    for figure in FIGURE_RULES:
        if figure not in kinds or not gives(figure, source):
            continue
        if figure == "cd" and isinstance(r, PosthocRecord):
            out.append(lambda r=r: draw_cd(r, metric))
        elif figure == "forest" and isinstance(r, PairwiseRecord) and forest_fits(r):
            out.append(lambda r=r: draw_forest(r, metric))
        elif figure == "pvalues" and isinstance(r, (PairwiseRecord, McNemarRecord, PosthocRecord)) and \
                heatmap_fits(r) and len(r.pairs) > 1:
            out.append(lambda r=r: draw_pvalues(r, metric))
        elif figure == "confusion" and isinstance(r, ClassificationRecord):
            out.append(lambda r=r: draw_confusion(r))
        elif figure == "winrates" and isinstance(r, PreferenceRecord) and len(r.systems) > 1:
            out.append(lambda r=r: draw_winrates(r))
        elif figure == "leaderboard" and isinstance(r, DescriptivesRecord) and leaderboard_fits(r):
            out.append(lambda r=r: draw_leaderboard(r, metric))
        elif figure == "leaderboard" and isinstance(r, PreferenceRecord) and leaderboard_fits(strength_board(r)):
            out.append(lambda r=r: draw_strengths(r))
    return out


def draw_record(item: tuple[object, ...]) -> tuple[FigureOutput, ...]:
    """The figures of one record, drawn: ``item`` is (record, its metric's MetricInfo or None, figure kinds,
    whether to make PDFs[, the :class:`~.output.FigureStyle`]), everything :func:`record_plan` reads, so that a
    worker forked before the records existed can be sent it (pickled) and draw the same bytes as the caller
    would."""
    from sigreport.render.figures.output import current_style, figure_settings, figure_style

    record, metric, kinds, pdf = item[:4]
    fs = item[4] if len(item) > 4 else current_style()
    with figure_settings(pdf, 1), figure_style(fs):
        return tuple(draw() for draw in record_plan(record, metric, kinds))


def warm_up() -> None:
    """Make this process ready to draw (a figure worker forked ahead, :class:`sigreport.speed.workers.Ready`):
    import matplotlib's figure, SVG and PDF modules and fontTools' subsetter, and export one small figure
    with text in both formats. What it leaves behind are caches keyed by their inputs (fonts, text
    measurements, font subsets), so the figures drawn after it are the bytes they would be without it."""
    from sigreport.render.figures.output import export, figure_settings, new_figure, style

    with style():
        fig = new_figure(1.0, 0.5)
        fig.text(0.1, 0.5, "0123456789 (.) CD = around", fontsize=8)
        fig.text(0.1, 0.2, "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ", fontsize=7, fontweight="bold")
        with figure_settings(True, 1):
            export(fig, "warm-up", "")


def figures_of(record: Record, results: Results | None = None,
               kinds: Collection[str] = KINDS) -> Iterator[FigureOutput]:
    """Every figure one record implies (:func:`figure_plan`), drawn, in order."""
    for draw in figure_plan(record, results, kinds):
        yield draw()


def draw_figures(results: Results, kinds: Collection[str] = KINDS) -> tuple[FigureOutput, ...]:
    """Every figure of a run, in record order (``kinds``: a subset of :data:`KINDS`)."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown figure kinds: {', '.join(sorted(unknown))}; known: {', '.join(KINDS)}")
    return tuple(fig for record in results.records for fig in figures_of(record, results, kinds))


__all__ = [
    "KINDS", "FigureOutput", "RankGroups", "draw_cd", "draw_confusion", "draw_figures", "draw_forest",
    "draw_leaderboard", "draw_record", "draw_pvalues", "draw_winrates", "figure_plan", "figures_of", "forest_fits",
    "heatmap_fits", "latex_snippet", "leaderboard_fits", "rank_groups",
    "record_plan", "warm_up",
]
