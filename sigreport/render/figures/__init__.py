"""Figures drawn from analysis records: critical-difference diagrams, forest plots, p-value and
confusion-matrix heatmaps, each as deterministic SVG (inline-ready) and vector PDF with a caption and a
LaTeX ``figure`` snippet.

Pure functions of the records (:mod:`sigreport.results`): nothing is recomputed, every mark comes from a
recorded estimate, interval or corrected decision. matplotlib is imported only when a figure is drawn,
so importing this package (or running ``sigreport --help`` / ``validate``) does not load it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator

from sigreport.render.figures.critical_difference import RankGroups, draw_cd, rank_groups
from sigreport.render.figures.forest import draw_forest, forest_fits
from sigreport.render.figures.heatmaps import draw_confusion, draw_pvalues, heatmap_fits
from sigreport.render.figures.output import FigureOutput, latex_snippet
from sigreport.results.collection import Results
from sigreport.results.records import Record

KINDS = ("cd", "forest", "pvalues", "confusion")


def figures_of(record: Record, results: Results | None = None,
               kinds: Collection[str] = KINDS) -> Iterator[FigureOutput]:
    """Every figure one record implies, in a fixed order.

    A Friedman post-hoc record gives a CD diagram (and, for all pairs, its p-value heatmap); a pairwise
    or cross-validation family a forest plot when it fits (vs baseline, or all pairs of at most 10
    systems) and a p-value heatmap when it is all pairs; McNemar's family a heatmap; a classification
    record its confusion matrices. ``results`` supplies the metric's label and direction.
    """
    metric = results.metrics.get(record.metric) if results is not None and record.metric else None
    kind = record.kind  # by kind and fields, so records read back from results.json draw the same figures
    if kind == "posthoc" and getattr(record, "after", None) == "friedman":
        if "cd" in kinds:
            yield draw_cd(record, metric)  # type: ignore[arg-type]
        if "pvalues" in kinds and heatmap_fits(record) and len(record.pairs) > 1:  # type: ignore[attr-defined]
            yield draw_pvalues(record, metric)  # type: ignore[arg-type]
    elif kind in ("pairwise", "cv") or (kind == "posthoc" and hasattr(record, "correction")):
        if "forest" in kinds and forest_fits(record):  # type: ignore[arg-type]
            yield draw_forest(record, metric)  # type: ignore[arg-type]
        if "pvalues" in kinds and heatmap_fits(record) and len(record.pairs) > 1:  # type: ignore[attr-defined]
            yield draw_pvalues(record, metric)  # type: ignore[arg-type]
    elif kind == "mcnemar":
        if "pvalues" in kinds and heatmap_fits(record) and len(record.pairs) > 1:  # type: ignore[attr-defined]
            yield draw_pvalues(record, metric)  # type: ignore[arg-type]
    elif kind == "classification" and "confusion" in kinds:
        yield draw_confusion(record)  # type: ignore[arg-type]


def draw_figures(results: Results, kinds: Collection[str] = KINDS) -> tuple[FigureOutput, ...]:
    """Every figure of a run, in record order (``kinds``: a subset of :data:`KINDS`)."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown figure kinds: {', '.join(sorted(unknown))}; known: {', '.join(KINDS)}")
    return tuple(fig for record in results.records for fig in figures_of(record, results, kinds))


__all__ = [
    "KINDS", "FigureOutput", "RankGroups", "draw_cd", "draw_confusion", "draw_figures", "draw_forest",
    "draw_pvalues", "figures_of", "forest_fits", "heatmap_fits", "latex_snippet", "rank_groups",
]
