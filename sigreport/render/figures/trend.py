"""Line plot of every system's value across the releases of an archive, each with its interval.

One line per system (x: the releases in build order, y: the value as its release's report gives it),
each point with the interval of that release's report (the descriptives' interval of the mean), the
intervals of one release side by side so that they do not hide each other; a filled marker where the
value changed significantly from the release before (:mod:`sigreport.archive.trends`: the Welch interval
of the difference excludes 0), an open one elsewhere. Systems are told apart by colour and marker
shape (readable in grey print and for colour-blind readers), named in a legend below the plot. Drawn in
the report figures' style (:func:`~.output.style`) and exported by :func:`~.output.export` (deterministic
SVG; no PDF: the archive's index is a web page).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sigreport.archive.trends import Trend
from sigreport.render.figures.output import (FigureOutput, FigureStyle, export, figure_settings, figure_style, measure,
                                             new_figure, slug, style)

SCREEN = FigureStyle(font="DejaVu Sans")  # the archive index's plots are for the screen: its sans font, not a paper's

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FONT = 8.5
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")  # Okabe-Ito
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")
DODGE = 0.07  # x distance between two systems' intervals at one release


def caption(t: Trend) -> str:
    direction = "higher is better" if t.higher_is_better else "lower is better"
    return (f"{t.where} across the releases ({direction}): each system's value with its "
            f"{round(100 * t.ci_level, 2):g}% interval as its release's report gives it; filled markers: the value "
            "changed significantly from the release before (Welch interval of the difference excluding 0).")


def trend_figure(t: Trend) -> Figure:
    """The trend plot as a matplotlib figure (call inside :func:`~.output.style`)."""
    n = len(t.releases)
    fig = new_figure(5.2, 2.6)
    names = [s for s, _ in t.series]
    cols = max(1, min(len(names), 4))
    legend_rows = math.ceil(len(names) / cols)
    widest = max((measure(fig, s, FONT)[0] for s in t.releases), default=0.3)
    rotate = widest * n > 3.6  # long or many release names: turned labels
    bottom = 0.35 + (widest * 0.75 if rotate else 0.12) + 0.2 * legend_rows
    height = 1.9 + bottom
    fig.set_size_inches(5.2, height)
    ax = fig.add_axes((0.8 / 5.2, bottom / height, 4.25 / 5.2, 1.75 / height))
    half = (len(names) - 1) / 2
    for k, (system, points) in enumerate(t.series):
        colour, marker = COLOURS[k % len(COLOURS)], MARKERS[k % len(MARKERS)]
        xs = [i + (k - half) * DODGE for i, p in enumerate(points) if p.value is not None]
        kept = [p for p in points if p.value is not None]
        ax.plot(xs, [p.value for p in kept], color=colour, linewidth=1.2, marker=marker, markersize=4.5,
                markerfacecolor="white", markeredgewidth=1.1, label=system, zorder=3)
        for x, p in zip(xs, kept):
            if p.ci_low is not None and p.ci_high is not None:
                ax.plot([x, x], [p.ci_low, p.ci_high], color=colour, linewidth=0.9, zorder=2)
            if p.change:
                ax.plot([x], [p.value], marker=marker, markersize=4.5, color=colour, zorder=4)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_xticks(range(n), list(t.releases), fontsize=FONT, rotation=90 if rotate else 0)
    ax.tick_params(axis="y", labelsize=FONT - 0.5)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.set_ylabel(f"{t.label}\n({'higher' if t.higher_is_better else 'lower'} is better)", fontsize=FONT)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(axis="y", color="0.9", linewidth=0.6, zorder=0)
    fig.legend(loc="lower center", ncols=cols, fontsize=FONT, frameon=False, bbox_to_anchor=(0.5, 0.0),
               handlelength=2.0, columnspacing=1.2)
    return fig


def draw_trend(t: Trend) -> FigureOutput:
    """The trend plot as a figure (SVG only)."""
    key = f"{t.metric}/{t.corpus if t.corpus is not None else '*'}"
    with figure_style(SCREEN), style(), figure_settings(pdf=False):
        return export(trend_figure(t), f"trend-{slug(key)}", caption(t))
