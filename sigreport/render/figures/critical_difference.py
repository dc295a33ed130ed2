"""Critical-difference diagrams (Demšar 2006, Fig. 1 and 2) of a Friedman post-hoc record.

The ranks and the groups come from the :class:`~sigreport.results.records.PosthocRecord` as it is: the
average ranks the Friedman test computed (1 = best; for a lower-is-better metric the lowest score already
ranks first, so nothing is flipped here) and the post-hoc test's corrected decisions. Nothing is
recomputed: a bar joins systems only when the record says every pair among them is not significantly
different, so the picture and the tables cannot disagree.

Layout follows Orange's ``graph_ranks`` (from Demšar's group): rank axis on top with 1 at the left, the
better half of the systems labelled on the left and the rest on the right, each joined to its average
rank by an elbow line; the bars lie between the axis and the labels, packed into as few lanes as
possible (autorank, aeon and sktime put rank 1 on the right by default; Orange, scmamp's default and the
paper put it on the left). Label rows are a fixed distance apart and the label columns are as wide as
the measured text, so labels cannot overlap, for 30 systems as for 3.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from sigreport.render.figures.output import FigureOutput, current_style, export, measure, new_figure, slug, style
from sigreport.results.collection import MetricInfo
from sigreport.results.names import test_name
from sigreport.results.records import PosthocRecord

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

MARGIN = 0.08  # inches, around everything
GAP = 0.2  # inches between a label column and the rank axis (the elbow lines run in it)
ROW = 0.2  # distance between label rows at 9pt text (9 pt text is about 0.15 in high); scaled with the text
LANE = 0.1  # distance between bar lanes
BAR_GAP = 0.1  # horizontal gap between two bars sharing a lane
PER_RANK = 0.15  # inches: the rank axis is at least this long per rank unit (and 0.6 in); less goes wider


@dataclasses.dataclass(frozen=True)
class RankGroups:
    """What a CD diagram shows, read from a post-hoc record.

    ``order``: systems with an average rank, best first (ties in the record's order); ``groups``: the
    bars, each a run of ``order`` whose pairs are all not significant (all pairs: maximal such runs;
    against a control: the run around the control of systems not significantly different from it);
    ``missing``: systems without an average rank (not drawn); ``undecided``: pairs whose decision is
    null (never joined).
    """

    order: tuple[str, ...]
    ranks: dict[str, float]
    groups: tuple[tuple[str, ...], ...]
    control: str | None
    missing: tuple[str, ...]
    undecided: int


def rank_groups(record: PosthocRecord) -> RankGroups:
    """The systems in rank order and the bars implied by the record's decisions."""
    known = {s: float(r) for s, r in record.average_ranks.items() if r is not None and math.isfinite(r)}
    missing = tuple(s for s in record.average_ranks if s not in known)
    position = {s: i for i, s in enumerate(record.average_ranks)}
    order = tuple(sorted(known, key=lambda s: (known[s], position[s])))
    decision = {frozenset((p.a, p.b)): p.significant for p in record.pairs}
    undecided = sum(1 for p in record.pairs if p.significant is None)
    if record.control is not None and record.control in known:
        groups = _control_group(order, record.control, decision)
    else:
        groups = _cliques(order, decision)
    return RankGroups(order, known, groups, record.control, missing, undecided)


def _cliques(order: tuple[str, ...], decision: dict[frozenset[str], bool | None]) -> tuple[tuple[str, ...], ...]:
    """Maximal runs of ``order`` in which every pair is recorded as not significant (``False``)."""
    runs = []
    for i in range(len(order)):
        j = i
        while j + 1 < len(order) and all(decision.get(frozenset((order[m], order[j + 1]))) is False
                                         for m in range(i, j + 1)):
            j += 1
        if j > i:
            runs.append((i, j))
    maximal = [(i, j) for i, j in runs if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in runs)]
    return tuple(order[i:j + 1] for i, j in maximal)


def _control_group(order: tuple[str, ...], control: str,
                   decision: dict[frozenset[str], bool | None]) -> tuple[tuple[str, ...], ...]:
    """The run around the control of systems recorded as not significantly different from it."""
    c = order.index(control)
    lo = hi = c
    while lo > 0 and decision.get(frozenset((order[lo - 1], control))) is False:
        lo -= 1
    while hi + 1 < len(order) and decision.get(frozenset((order[hi + 1], control))) is False:
        hi += 1
    return (order[lo:hi + 1],) if hi > lo else ()


def caption(record: PosthocRecord, groups: RankGroups, metric: MetricInfo | None = None) -> str:
    """Plain-text caption: what is ranked, the test, the CD, how to read the bars, what is left out."""
    what = metric.label if metric else record.metric
    where = f" on {record.corpus}" if record.corpus else ""
    method = test_name("posthoc", record.method)
    parts = [f"Critical-difference diagram of {what}{where}: average ranks over {record.level} "
             f"(1 = best{'' if metric is None or metric.higher_is_better else ', the lowest score ranks first'})"
             f" from the Friedman test, with the post-hoc {method} at \u03b1 = {record.alpha:g}"]
    if record.control is not None:
        parts[0] += f" against the control {record.control}"
    if record.critical_difference is not None:
        parts[0] += f"; CD = {record.critical_difference:.3f}"
    parts[0] += "."
    if record.control is None:
        parts.append("Systems joined by a bar are not significantly different.")
    else:
        parts.append(f"The bar spans the systems not significantly different from {record.control} "
                     "(other pairs are not tested).")
    if not groups.groups:
        parts.append("No two systems are joined.")
    if record.omnibus_significant is False:
        parts.append(f"The Friedman test itself is not significant at \u03b1 = {record.alpha:g}.")
    if groups.undecided:
        parts.append(f"{groups.undecided} pair(s) could not be decided and are not joined.")
    if groups.missing:
        parts.append(f"Not shown (no average rank): {', '.join(groups.missing)}.")
    return " ".join(parts)


Ink = list[tuple[list[tuple[float, float]], float]]  # black polylines (points in inches) and their widths


@dataclasses.dataclass(frozen=True)
class _Frame:
    """Where things go, in inches from the top left (y grows downwards)."""

    width: float
    height: float
    x0: float  # rank 1 on the axis
    x1: float  # rank k on the axis
    k: int
    y_cd: float
    y_axis: float
    y_lanes: float
    y_rows: float
    left_edge: float  # right end of the left labels' elbow lines
    right_edge: float
    row: float = ROW  # distance between label rows

    def x(self, rank: float) -> float:
        return self.x0 + (rank - 1) * (self.x1 - self.x0) / max(self.k - 1, 1)


def _label(system: str, rank: float) -> str:
    return f"{system} ({rank:.2f})"


def _lanes(spans: list[tuple[float, float]]) -> list[int]:
    """The lowest lane for each span (x from, x to) that keeps a gap to the spans already in it."""
    ends: list[float] = []
    lanes = []
    for a, b in spans:
        for lane, end in enumerate(ends):
            if a > end + BAR_GAP:
                ends[lane] = b
                lanes.append(lane)
                break
        else:
            ends.append(b)
            lanes.append(len(ends) - 1)
    return lanes


def _frame(widths: list[float], g: RankGroups, n_lanes: int, has_cd: bool, width: float, size: float) -> _Frame:
    """The layout for labels of the measured ``widths`` (inches, in ``g.order``) and ``n_lanes`` bar lanes,
    ``width`` inches wide (the rank axis takes what the labels leave, at least :func:`min_axis`) with text of
    ``size`` pt."""
    k = max(len(g.order), 2)
    half = math.ceil(len(g.order) / 2)
    left_w = max(widths[:half], default=0.0)
    right_w = max(widths[half:], default=0.0)
    row = ROW * size / 9.0
    x0 = MARGIN + left_w + GAP
    x1 = max(width - (GAP + right_w + MARGIN), x0 + min_axis(k))
    y_cd = MARGIN + (0.2 if has_cd else -0.16)  # no CD segment: the axis moves up into its place
    y_axis = y_cd + 0.36
    y_lanes = y_axis + 0.14
    y_rows = y_lanes + n_lanes * LANE + 0.12
    rows = max(half, len(g.order) - half, 1)
    height = y_rows + (rows - 1) * row + 0.12 + MARGIN
    return _Frame(width=x1 + GAP + right_w + MARGIN, height=height, x0=x0, x1=x1, k=k, y_cd=y_cd, y_axis=y_axis,
                  y_lanes=y_lanes, y_rows=y_rows, left_edge=MARGIN + left_w + 0.06, right_edge=x1 + GAP - 0.06, row=row)


def min_axis(k: int) -> float:
    """The shortest rank axis in inches for ``k`` systems."""
    return max(0.6, PER_RANK * (k - 1))


def fixed_width(widths: list[float], g: RankGroups) -> float:
    """The width in inches the labels and margins take beside the rank axis."""
    half = math.ceil(len(g.order) / 2)
    return 2 * (MARGIN + GAP) + max(widths[:half], default=0.0) + max(widths[half:], default=0.0)


def cd_figure(record: PosthocRecord, metric: MetricInfo | None = None) -> Figure:
    """The CD diagram as a matplotlib figure (call inside :func:`~.output.style`), as wide as the style's
    column (or its text width when the labels leave the rank axis less than :func:`min_axis`)."""
    fs = current_style()
    g = rank_groups(record)
    fig = new_figure(4.0, 2.0)
    has_cd = record.critical_difference is not None and math.isfinite(record.critical_difference)
    widths = [measure(fig, _label(s, g.ranks[s]), fs.size, "bold")[0] for s in g.order]  # once: text is costly
    width = fs.inches(wide=fixed_width(widths, g) + min_axis(len(g.order)) > fs.inches())
    probe = _frame(widths, g, 0, has_cd, width, fs.size)
    spans = [(probe.x(g.ranks[grp[0]]) - 0.05, probe.x(g.ranks[grp[-1]]) + 0.05) for grp in g.groups]
    lanes = _lanes(spans)
    f = _frame(widths, g, max(lanes, default=-1) + 1, has_cd, width, fs.size)
    fig.set_size_inches(f.width, f.height)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, f.width)
    ax.set_ylim(f.height, 0)
    ax.set_axis_off()
    ink: Ink = []
    _draw_axis(ax, f, ink, fs.small)
    _draw_cd(ax, f, record, g, ink, fs.small)
    for (a, b), lane in zip(spans, lanes):
        y = f.y_lanes + lane * LANE
        ink.append(([(a, y), (b, y)], 2.6))
    ax.add_collection(lines(ink), autolim=False)
    if g.control is not None and g.control in g.ranks and g.groups:
        lane = lanes[0]
        ax.plot([f.x(g.ranks[g.control])], [f.y_lanes + lane * LANE], marker="o", markersize=4.5,
                color="white", markeredgecolor="black", markeredgewidth=1.2)
    elbows: Ink = []  # drawn over the bars and the control's marker, as before
    _draw_labels(ax, f, g, elbows, fs.size)
    ax.add_collection(lines(elbows), autolim=False)
    return fig


def lines(ink: Ink) -> LineCollection:
    """Black polylines as one artist, drawn in order (butt ends, round joins: what ``ax.plot`` gave).

    Why: a CD diagram of 20 systems has about 60 lines; one ``ax.plot`` each cost argument parsing, a
    data-limit update and a separate artist draw, for the same strokes in the SVG and PDF."""
    from matplotlib.collections import LineCollection

    return LineCollection([pts for pts, _ in ink], colors="black", linewidths=[w for _, w in ink],
                          capstyle="butt", joinstyle="round", zorder=2)


def _draw_axis(ax: Axes, f: _Frame, ink: Ink, size: float) -> None:
    ink.append(([(f.x0, f.y_axis), (f.x1, f.y_axis)], 0.9))
    for r in range(1, f.k + 1):
        ink.append(([(f.x(r), f.y_axis), (f.x(r), f.y_axis - 0.07)], 0.9))
        ax.text(f.x(r), f.y_axis - 0.1, str(r), ha="center", va="bottom", fontsize=size)
        if r < f.k and f.k <= 12:
            xm = f.x(r + 0.5)
            ink.append(([(xm, f.y_axis), (xm, f.y_axis - 0.035)], 0.6))


def _draw_cd(ax: Axes, f: _Frame, record: PosthocRecord, g: RankGroups, ink: Ink, size: float) -> None:
    """The CD as a measured segment: from rank 1 (all pairs), or around the control (Demšar Fig. 2)."""
    cd = record.critical_difference
    if cd is None or not math.isfinite(cd):
        return
    if g.control is not None and g.control in g.ranks:
        centre = g.ranks[g.control]
        lo, hi = centre - cd, centre + cd
        text = f"CD = {cd:.3f} around {g.control}"
    else:
        lo, hi = 1.0, 1.0 + cd
        text = f"CD = {cd:.3f}"
    a, b = f.x(max(lo, 1.0)), f.x(min(hi, float(f.k)))
    y = f.y_cd
    ink.append(([(a, y), (b, y)], 1.2))
    for r, x in ((lo, a), (hi, b)):
        if 1.0 <= r <= f.k:  # an end inside the axis gets a tick; a clipped end stays open
            ink.append(([(x, y - 0.05), (x, y + 0.05)], 1.2))
    ax.text((a + b) / 2, y - 0.07, text, ha="center", va="bottom", fontsize=size)


def _draw_labels(ax: Axes, f: _Frame, g: RankGroups, ink: Ink, size: float) -> None:
    half = math.ceil(len(g.order) / 2)
    for i, s in enumerate(g.order):
        x = f.x(g.ranks[s])
        left = i < half
        row = i if left else len(g.order) - 1 - i
        y = f.y_rows + row * f.row
        end = f.left_edge if left else f.right_edge
        ink.append(([(x, f.y_axis), (x, y), (end, y)], 0.7))
        weight = "bold" if s == g.control else "normal"
        ax.text(end - 0.04 if left else end + 0.04, y, _label(s, g.ranks[s]), ha="right" if left else "left",
                va="center", fontsize=size, fontweight=weight)


def draw_cd(record: PosthocRecord, metric: MetricInfo | None = None) -> FigureOutput:
    """A critical-difference diagram of a Friedman post-hoc record (Nemenyi, or against a control)."""
    if record.after != "friedman":
        raise ValueError(f"{record.id}: a CD diagram needs a Friedman post-hoc test, not one after {record.after}")
    with style():
        fig = cd_figure(record, metric)
        return export(fig, f"cd-{slug(record.id)}", caption(record, rank_groups(record), metric))
