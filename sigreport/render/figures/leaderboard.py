"""Leaderboard figure: every system's value with its confidence interval, best first, its tier marked.

Drawn from a descriptives record whose systems carry ``rank_ub`` and ``tier`` (set from the decision model by
the analyses: :mod:`sigreport.results.ranks`), for :data:`~sigreport.results.ranks.LEADERBOARD_MIN` or more
ranked systems; nothing is recomputed. Rows are the systems in value order (the record's means; ties keep the
table order), tiers are bands of alternating shade with their number and Rank (UB) range at the right, so that
a reader sees at once which neighbours the tests separate and which they do not. The intervals are each
system's own (the descriptives' ``ci_level``), not the pairwise tests': two intervals can overlap while the
paired test separates the systems, which the tiers show.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sigreport.render.figures.output import (EDGE, FigureOutput, current_style, export, keep_inside, measure,
                                             new_figure, slug, style, tick_labels, wrap)
from sigreport.results.collection import MetricInfo
from sigreport.results.decisions import PREFERENCE_DECIMALS, PREFERENCE_LABEL, preference_decisions
from sigreport.results.ranks import LEADERBOARD_MIN
from sigreport.results.records import DescriptivesRecord, PreferenceRecord, SystemSummary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ROW = 0.19  # inches between rows at 8.5pt text; scaled with the text
MIN_PLOT = 1.2  # inches: the plot is at least this wide (else the figure takes the text width)
MINUS = "\u2212"


def ranked(record: DescriptivesRecord) -> list[SystemSummary]:
    """The systems with a value and a tier, best value first (ties: table order)."""
    return [s for s in record.systems if s.tier is not None and s.mean is not None and math.isfinite(s.mean)]


def leaderboard_fits(record: DescriptivesRecord) -> bool:
    """Whether the record is drawn as a leaderboard (:data:`LEADERBOARD_MIN` or more ranked systems)."""
    return len(ranked(record)) >= LEADERBOARD_MIN


def order(record: DescriptivesRecord, metric: MetricInfo | None) -> list[SystemSummary]:
    higher = metric.higher_is_better if metric is not None else True
    rows = ranked(record)
    return sorted(rows, key=lambda s: (s.tier, -s.mean if higher else s.mean))  # type: ignore[operator]


def level_text(level: float) -> str:
    return f"{round(100 * float(level), 2):g}%"


def caption(record: DescriptivesRecord, metric: MetricInfo | None = None) -> str:
    what = metric.label if metric else record.metric
    where = f" on {record.corpus}" if record.corpus else ""
    direction = "" if metric is None else (" (higher is better)" if metric.higher_is_better else
                                           " (lower is better)")
    return (f"Leaderboard of {what}{where}{direction}: each system's value with its {level_text(record.ci_level)} "
            "confidence interval, by tier and, within a tier, by value. Tiers (shaded bands) come from the corrected "
            "pairwise decisions: no system is significantly better than another of its tier, and each system "
            "below tier 1 is significantly worse than one of the tier above; Rank (UB) is 1 + the number of "
            "systems significantly better. The intervals are each system's own: overlapping intervals do not "
            "mean the paired test found no difference.")


def _fmt(x: float, decimals: int) -> str:
    return f"{x:.{decimals}f}".replace("-", MINUS)


def leaderboard_figure(record: DescriptivesRecord, metric: MetricInfo | None = None) -> Figure:
    """The leaderboard as a matplotlib figure (call inside :func:`~.output.style`), as wide as the style's
    column: system names, the plot, and each tier's number and rank range at the right."""
    fs = current_style()
    size = fs.size
    rows = order(record, metric)
    labels = [s.system for s in rows]
    tiers = [int(s.tier) for s in rows]  # type: ignore[arg-type]
    ranks = [s.rank_ub for s in rows]
    notes: dict[int, str] = {}
    for k in dict.fromkeys(tiers):
        mine = [r for r, t in zip(ranks, tiers) if t == k and r is not None]
        low, high = min(mine), max(mine)
        notes[tiers.index(k)] = f"tier {k}, rank {low}" if low == high else f"tier {k}, rank {low}\u2013{high}"
    fig = new_figure(4.0, 2.0)
    left = max(measure(fig, s, size)[0] for s in labels) + 0.15
    right = max(measure(fig, s, fs.small)[0] for s in notes.values()) + 0.15
    width = fs.inches()
    if left + MIN_PLOT + right + 0.1 > width and fs.wider is not None:
        width = fs.inches(wide=True)
    plot_w = max(MIN_PLOT, width - left - right - 0.1)
    width = left + plot_w + right + 0.1
    what = metric.label if metric else str(record.metric)
    xlabel = wrap(f"{what} ({level_text(record.ci_level)} CI)", size, width - 2 * EDGE / 72)
    row = ROW * size / 8.5
    bottom = 0.45 + (xlabel.count("\n") + 1) * size / 72 * 1.25
    height = 0.12 + len(rows) * row + bottom
    fig.set_size_inches(width, height)
    ax = fig.add_axes((left / width, bottom / height, plot_w / width, len(rows) * row / height))
    xs = [v for s in rows for v in (s.mean, s.ci_low, s.ci_high) if v is not None and math.isfinite(v)]
    lo, hi = min(xs), max(xs)
    pad = 0.06 * (hi - lo) if hi > lo else 1.0
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    start = 0
    for i in range(1, len(rows) + 1):  # one band per tier, alternating shades
        if i == len(rows) or tiers[i] != tiers[start]:
            if tiers[start] % 2 == 1:
                ax.axhspan(start - 0.5, i - 0.5, color="0.9", linewidth=0, zorder=0)
            if start:
                ax.axhline(start - 0.5, color="0.55", linewidth=0.6, zorder=1)
            start = i
    for i, s in enumerate(rows):
        colour = "black" if s.tier == 1 else "0.3"
        if s.ci_low is not None and s.ci_high is not None:
            ax.plot([s.ci_low, s.ci_high], [i, i], color=colour, linewidth=1.2, solid_capstyle="butt", zorder=2)
        ax.plot([s.mean], [i], marker="o", markersize=4.5, color=colour,
                markerfacecolor=colour if s.tier == 1 else "white", markeredgewidth=1.1, zorder=3)
    ax.yaxis.set_visible(False)
    tick_labels(ax, [], list(enumerate(labels)), size)
    ax.tick_params(axis="x", labelsize=fs.small)
    from matplotlib.ticker import MaxNLocator
    from matplotlib.transforms import ScaledTranslation

    ax.xaxis.set_major_locator(MaxNLocator(nbins=4 if plot_w > 1.6 else 3))
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    beside = ax.get_yaxis_transform() + ScaledTranslation(6 / 72, 0, fig.dpi_scale_trans)
    for i, text in notes.items():
        ax.text(1.0, i, text, transform=beside, ha="left", va="center", fontsize=fs.small)
    ax.set_xlabel(xlabel, fontsize=size)
    for t in keep_inside(fig):
        t.set_visible(False)
    return fig


def strength_board(record: PreferenceRecord) -> DescriptivesRecord:
    """The Bradley-Terry strengths of a preference record as the rows a leaderboard draws: each strength with its
    bootstrap interval, and the Rank (UB) and tier of the decision model
    (:func:`~sigreport.results.decisions.preference_decisions`: the intervals, Chatbot Arena's rule), so the
    figure shows the tiers the Conclusions state (never recomputed here)."""
    ranks = preference_decisions(record).ranks
    assert ranks is not None
    rows = tuple(SystemSummary(system=s.system, n=s.votes, mean=s.strength, sd=None, median=None, ci_low=s.ci_low,
                               ci_high=s.ci_high, warnings=(), rank_ub=ranks.rank_ub.get(s.system),
                               tier=ranks.tier.get(s.system)) for s in record.systems)
    return DescriptivesRecord(id=record.id, kind="descriptives", metric=record.metric, corpus=record.corpus,
                              level="votes", ci_level=record.ci_level, n_items=record.n_votes, dropped_items=0,
                              aggregate="bradley_terry", systems=rows, warnings=(),
                              ci_method="bootstrap_percentile")


STRENGTH = MetricInfo(label=PREFERENCE_LABEL, higher_is_better=True, decimals=PREFERENCE_DECIMALS, aggregate="bradley_terry")


def strength_caption(record: PreferenceRecord) -> str:
    unit = "items with all their votes" if record.unit == "items" else "votes"
    return (f"Leaderboard of the Bradley-Terry strengths from {record.n_votes:,} preference votes (higher is better): "
            f"each system's strength with its {level_text(record.ci_level)} bootstrap percentile interval "
            f"({record.n_resamples:,} replicates resampling {unit}), by tier and, within a tier, by strength. A system "
            "is significantly better than another when its interval lies wholly above the other's (Chatbot Arena's "
            "rule); tiers (shaded bands): no system is significantly better than another of its tier, and each "
            "system below tier 1 is significantly worse than one of the tier above; Rank (UB) is 1 + the number of "
            "systems significantly better.")


def draw_strengths(record: PreferenceRecord) -> FigureOutput:
    """The leaderboard of a preference record's strengths (:func:`strength_board`)."""
    board = strength_board(record)
    if not leaderboard_fits(board):
        raise ValueError(f"{record.id}: a leaderboard shows {LEADERBOARD_MIN} or more ranked systems; this record "
                         f"has {len(ranked(board))}")
    with style():
        return export(leaderboard_figure(board, STRENGTH), f"leaderboard-{slug(record.id)}", strength_caption(record))


def draw_leaderboard(record: DescriptivesRecord, metric: MetricInfo | None = None) -> FigureOutput:
    """The leaderboard figure of a ranked descriptives record (module doc)."""
    if not leaderboard_fits(record):
        raise ValueError(f"{record.id}: a leaderboard shows {LEADERBOARD_MIN} or more ranked systems; this record "
                         f"has {len(ranked(record))}")
    with style():
        return export(leaderboard_figure(record, metric), f"leaderboard-{slug(record.id)}", caption(record, metric))
