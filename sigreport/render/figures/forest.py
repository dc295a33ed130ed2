"""Forest plot of a pairwise family: each pair's estimated difference with its confidence interval.

Rows are the record's pairs in record order (against the baseline when the family compares with it, else
all pairs); the marker is filled when the record's corrected decision is significant, open when not,
and a cross when the decision is null. The interval level is the record's ``ci_level`` (it can differ
from 1 - alpha, e.g. the sign test's exact order-statistic interval). A bound that is not finite (a
one-sided interval) runs to the plot's edge and ends in an arrow head.

All pairs of more than :data:`MAX_SYSTEMS` systems (over 45 rows) are not drawn as a forest: the rows
would be unreadable and any subset would be a selection the spec did not make; the p-value heatmap shows
that family instead (:func:`~sigreport.render.figures.draw_figures` does this).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sigreport.render.figures.output import (EDGE, FigureOutput, current_style, export, family_systems,
                                             keep_inside, measure, new_figure, slug, style, tick_labels, wrap)
from sigreport.results.collection import MetricInfo
from sigreport.results.names import correction_name, test_name
from sigreport.results.records import PairwiseRecord

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

MAX_SYSTEMS = 10
ROW = 0.22  # inches between rows at 8.5pt text; scaled with the text
MINUS = "\u2212"


def forest_fits(record: PairwiseRecord) -> bool:
    """Whether the family is drawn as a forest (against a baseline, or all pairs of at most 10 systems)."""
    return bool(record.pairs) and (record.comparisons == "vs_baseline" or len(family_systems(record)) <= MAX_SYSTEMS)


def _fmt(x: float | None, decimals: int) -> str:
    if x is None or not math.isfinite(x):
        return "\u221e" if x is not None and x > 0 else (MINUS + "\u221e" if x is not None else "n/a")
    return f"{x:.{decimals}f}".replace("-", MINUS)


def level_text(level: float) -> str:
    """0.95 -> '95%', 0.995 -> '99.5%' (as the report's tables print a level)."""
    return f"{round(100 * float(level), 2):g}%"


def caption(record: PairwiseRecord, metric: MetricInfo | None = None) -> str:
    what = metric.label if metric else record.metric
    where = f" on {record.corpus}" if record.corpus else ""
    pairs = "each system against the baseline" if record.comparisons == "vs_baseline" else "all pairs"
    direction = "" if metric is None else (" (higher is better)" if metric.higher_is_better else " (lower is better)")
    interval = (f" with its {level_text(record.ci_level)} confidence interval" if has_intervals(record) else
                "; this test gives no confidence interval")
    return (f"Differences in {what}{where}{direction}, {pairs}: estimate of first minus second system "
            f"({test_name(record.kind, record.method)} over {record.level}){interval}. "
            f"Filled markers: significant at \u03b1 = {record.alpha:g} "
            + ("without correction" if record.correction == "none" else
               f"after the {correction_name(record.correction)} correction over the family")
            + "; open markers: not significant"
            f"{'; crosses: no decision' if any(p.significant is None for p in record.pairs) else ''}. "
            + (" The intervals are per pair, not adjusted for the family: one can exclude zero while the "
               "corrected decision is not significant." if has_intervals(record) else ""))


def has_intervals(record: PairwiseRecord) -> bool:
    """Whether some pair of the family has a confidence interval (the 5x2cv F test gives none)."""
    return any(p.ci_low is not None or p.ci_high is not None for p in record.pairs)


MIN_PLOT = 1.1  # inches: the plot area is at least this wide; the values column goes first, then the figure widens


def forest_figure(record: PairwiseRecord, metric: MetricInfo | None = None) -> Figure:
    """The forest plot as a matplotlib figure (call inside :func:`~.output.style`), as wide as the style's
    column: pair labels, the plot, and each pair's estimate [interval] beside it when they fit; without the
    values (the pairwise table has them) when the plot would be narrower than :data:`MIN_PLOT`; at the text
    width when even that does not fit."""
    fs = current_style()
    size = fs.size
    decimals = metric.decimals if metric else 3
    rows = record.pairs
    labels = [f"{p.a} {MINUS} {p.b}" for p in rows]
    values = [f"{_fmt(p.estimate, decimals)} [{_fmt(p.ci_low, decimals)}, {_fmt(p.ci_high, decimals)}]"
              if p.ci_low is not None or p.ci_high is not None else _fmt(p.estimate, decimals) for p in rows]
    fig = new_figure(4.0, 2.0)
    left = max(measure(fig, s, size)[0] for s in labels) + 0.15
    right = max(measure(fig, s, size)[0] for s in values) + 0.15
    width = fs.inches()
    if left + MIN_PLOT + 0.1 > width and fs.wider is not None:  # the labels alone leave no room: text width
        width = fs.inches(wide=True)
    if left + MIN_PLOT + right + 0.1 > width:
        right, values = 0.1, []
    plot_w = max(MIN_PLOT, width - left - right - 0.1)
    width = left + plot_w + right + 0.1
    xlabel = _fitted_xlabel(_xlabel(record, metric), size, width - 2 * EDGE / 72)
    row = ROW * size / 8.5
    bottom = 0.55 + max(2, xlabel.count("\n") + 1) * size / 72 * 1.25  # the tick labels, the axis label's lines
    height = 0.12 + len(rows) * row + bottom
    fig.set_size_inches(width, height)
    ax = fig.add_axes((left / width, bottom / height, plot_w / width, len(rows) * row / height))
    lo, hi = _limits(record)
    ax.set_xlim(lo, hi)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.axvline(0.0, color="0.35", linewidth=0.8, linestyle=(0, (4, 2)), zorder=1)
    for i, p in enumerate(rows):
        _draw_row(ax, i, p.estimate, p.ci_low, p.ci_high, p.significant, lo, hi)
    ax.yaxis.set_visible(False)  # the pair names as plain texts: a tick per row cost more than its row
    tick_labels(ax, [], list(enumerate(labels)), size)
    ax.tick_params(axis="x", labelsize=fs.small)
    from matplotlib.ticker import MaxNLocator  # lazy, like every matplotlib import here

    ax.xaxis.set_major_locator(MaxNLocator(nbins=4 if plot_w > 1.6 else 3))  # few labels, never run together
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    from matplotlib.transforms import ScaledTranslation

    # right of the plot, 8 points out (a plain text: an annotation re-resolves its coordinates at every save)
    beside = ax.get_yaxis_transform() + ScaledTranslation(8 / 72, 0, fig.dpi_scale_trans)
    for i, text in enumerate(values):
        ax.text(1.0, i, text, transform=beside, ha="left", va="center", fontsize=size)
    ax.set_xlabel(xlabel, fontsize=size)
    for text in keep_inside(fig):  # a tick label past the edge (the plot reaches it): the others give the scale
        text.set_visible(False)
    return fig


def _fitted_xlabel(label: str, size: float, width: float) -> str:
    """The axis label in lines no wider than ``width`` inches (the figure's): the description broken between
    words, the direction line ("<- b better    a better ->") between its two halves. Most labels fit as
    they are; :func:`~.output.keep_inside` then moves one that is off-centre back inside the figure."""
    head, _, direction = label.partition("\n")
    lines = [wrap(head, size, width)] + ([wrap(direction, size, width, sep="    ")] if direction else [])
    return "\n".join(lines)


def _xlabel(record: PairwiseRecord, metric: MetricInfo | None) -> str:
    what = metric.label if metric else record.metric
    label = f"Difference in {what}" + (f" ({level_text(record.ci_level)} CI)" if has_intervals(record) else "")
    if metric is None:
        return label
    baselines = {p.b for p in record.pairs}
    second = next(iter(baselines)) if len(baselines) == 1 else "second"
    first = "system" if len(baselines) == 1 else "first"
    better, worse = (f"{first} better", f"{second} better")
    if not metric.higher_is_better:
        better, worse = worse, better
    return f"{label}\n\u2190 {worse}    {better} \u2192"


def _limits(record: PairwiseRecord) -> tuple[float, float]:
    """x range: every finite bound and estimate, and zero, with a 6% margin."""
    xs = [0.0] + [v for p in record.pairs for v in (p.estimate, p.ci_low, p.ci_high)
                  if v is not None and math.isfinite(v)]
    lo, hi = min(xs), max(xs)
    pad = 0.06 * (hi - lo) if hi > lo else 1.0
    return lo - pad, hi + pad


def _draw_row(ax: Axes, i: int, est: float | None, low: float | None, high: float | None,
              significant: bool | None, lo: float, hi: float) -> None:
    colour = "black" if significant else "0.45"
    a = low if low is not None and math.isfinite(low) else lo
    b = high if high is not None and math.isfinite(high) else hi
    if low is not None or high is not None:
        ax.plot([a, b], [i, i], color=colour, linewidth=1.3, solid_capstyle="butt", zorder=2)
        for bound, x, mark in ((low, a, "<"), (high, b, ">")):
            if bound is not None and not math.isfinite(bound):
                ax.plot([x], [i], marker=mark, color=colour, markersize=5, zorder=2)
    if est is None or not math.isfinite(est):
        return
    if significant is None:
        ax.plot([est], [i], marker="x", color="0.3", markersize=5, zorder=3)
    else:
        ax.plot([est], [i], marker="o", markersize=5.5, zorder=3, markeredgewidth=1.2,
                color=colour, markerfacecolor=colour if significant else "white")


def draw_forest(record: PairwiseRecord, metric: MetricInfo | None = None) -> FigureOutput:
    """A forest plot of a pairwise (or cross-validation) family's differences and intervals."""
    if not forest_fits(record):
        raise ValueError(f"{record.id}: a forest plot shows pairs against a baseline or all pairs of at most "
                         f"{MAX_SYSTEMS} systems; this family has {len(family_systems(record))} systems")
    with style():
        return export(forest_figure(record, metric), f"forest-{slug(record.id)}", caption(record, metric))
