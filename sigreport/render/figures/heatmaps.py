"""Heatmaps: the adjusted p-values and decisions of a pairwise family, and confusion matrices.

The p-value map is the lower triangle of the k x k matrix of a family of all pairs (pairwise tests,
McNemar's tests or an all-pairs post-hoc test): a cell is shaded when the record's corrected decision is
significant, light when it is not, and left white with "n/a" when the decision is null; the adjusted
p-value is written in the cell (up to :data:`ANNOTATE_UP_TO` systems; beyond that the cells are too
small for text and the shading carries the decisions). Nothing is compared with alpha here.

A confusion-matrix figure has one panel per system: counts in the cells, shaded by the share of the
gold row (so rows of different sizes compare), rows gold and columns predicted labels.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Union

from sigreport.render.figures.output import (FigureOutput, current_style, export, family_systems, measure,
                                             new_figure, slug, style, tick_labels)
from sigreport.results.collection import MetricInfo
from sigreport.results.names import correction_name, test_name
from sigreport.results.records import ClassificationRecord, FamilyPair, McNemarRecord, PairwiseRecord, PosthocRecord

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.collections import PathCollection
    from matplotlib.figure import Figure
    from matplotlib.text import Text

PairFamily = Union[PairwiseRecord, McNemarRecord, PosthocRecord]
Colour = Union[str, tuple[float, ...]]  # a matplotlib colour: a name or hex string, or RGBA values
ANNOTATE_UP_TO = 12
SIGNIFICANT = "#2c5d8f"
NOT_SIGNIFICANT = "#e8e8e8"
UNDECIDED = "white"


def p_text(p: float | None) -> str:
    """An adjusted p-value for a cell: three decimals, '<0.001' below, 'n/a' when null."""
    if p is None or not math.isfinite(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def heatmap_fits(record: PairFamily) -> bool:
    """Whether the family is all pairs (a vs-baseline or vs-control family is one row: the forest shows it)."""
    if isinstance(record, PosthocRecord):
        return record.control is None and len(record.pairs) > 0
    return record.comparisons == "all_pairs" and len(record.pairs) > 0


def pvalue_caption(record: PairFamily, metric: MetricInfo | None = None) -> str:
    what = metric.label if metric else record.metric
    where = f" on {record.corpus}" if record.corpus else ""
    if isinstance(record, PosthocRecord):  # rank post-hoc (paired t ones: below)
        test = f"post-hoc {test_name('posthoc', record.method)} after the {test_name('omnibus', record.after)}"
        corr = "the post-hoc test's own adjustment"
    else:
        test = test_name(record.kind, record.method)
        if isinstance(record, McNemarRecord) and record.after:
            test += f" after {test_name('cochran_q', None)}"
        corr = ("no correction" if record.correction == "none" else
                f"the {correction_name(record.correction)} correction over the family")
    return (f"Adjusted p-values of every pair of systems for {what}{where} ({test}, {corr}). Dark cells: "
            f"significant at \u03b1 = {record.alpha:g}; light cells: not significant"
            + ("; n/a: no decision." if any(p.significant is None for p in record.pairs) else "."))


def pvalue_figure(record: PairFamily) -> Figure:
    """The lower-triangle p-value heatmap as a matplotlib figure (call inside :func:`~.output.style`), as wide
    as the style's column (the matrix centred in it; at the text width when its cells cannot hold their
    p-values at the style's small size there)."""
    fs = current_style()
    systems = family_systems(record)
    k = len(systems)
    n = k - 1
    annotate = k <= ANNOTATE_UP_TO
    fig = new_figure(4.0, 4.0)
    label_w = max(measure(fig, s, fs.size)[0] for s in systems) + 0.15
    need = (measure(fig, "<0.001", fs.small, "bold")[0] + 0.08) if annotate else 0.16  # a cell's least side
    width = fs.inches()
    if label_w + n * need + 0.15 > width and fs.wider is not None:
        width = fs.inches(wide=True)
    cell = max(need, min(0.5 if annotate else 0.24, (width - label_w - 0.15) / n))
    content = label_w + n * cell + 0.15
    width = max(width, content)
    height = label_w + n * cell + 0.15
    fig.set_size_inches(width, height)
    x0 = (width - content) / 2 + label_w
    ax = fig.add_axes((x0 / width, label_w / height, n * cell / width, n * cell / height))
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_axis_off()
    found = {(p.a, p.b): p for p in record.pairs} | {(p.b, p.a): p for p in record.pairs}
    cells = [(i - 1, j, found.get((systems[i], systems[j]))) for i in range(1, k) for j in range(i)]
    _pvalue_cells(ax, cells, annotate, fs.small)
    tick_labels(ax, list(enumerate(systems[:-1])), list(enumerate(systems[1:])), fs.size)
    return fig


Square = list[tuple[float, float]]


def square(row: int, col: int, half: float) -> Square:
    """The corners of a square of side ``2 * half`` centred on cell (row, col), in data units."""
    return [(col - half, row - half), (col + half, row - half), (col + half, row + half), (col - half, row + half)]


def cell_layers(fills: dict[Colour, list[Square]], strokes: list[tuple[list[Square], str, float]]) -> PathCollection:
    """A heatmap's cells as one artist holding one compound path per fill colour (in ``fills`` order),
    then one outline path per ``(squares, colour, width)`` of ``strokes``, drawn after every fill.

    Why: a ``Rectangle`` per cell cost a limit update, a draw and an SVG/PDF element each (190 for 20
    systems); this is a handful of paths whatever k is, and still vector (no image). It looks the same:
    cells do not overlap, and stroking each cell's edge right after its fill gave the same picture as
    stroking every edge after all fills, because each shared edge is stroked by both of its cells and the
    later stroke covers the earlier fill. Corners are mitred and ends butt, as a ``Rectangle``'s are.
    """
    import numpy as np
    from matplotlib.collections import PathCollection
    from matplotlib.path import Path

    layers: list[tuple[list[Square], Colour, Colour, float]] = [(sq, colour, "none", 0.0) for colour, sq in fills.items()]
    layers += [(sq, "none", colour, width) for sq, colour, width in strokes if sq]
    return PathCollection([Path.make_compound_path_from_polys(np.array(sq, dtype=float)) for sq, *_ in layers],
                          facecolors=[face for _, face, _, _ in layers], edgecolors=[edge for *_, edge, _ in layers],
                          linewidths=[width for *_, width in layers], joinstyle="miter", capstyle="butt")


def _pvalue_cells(ax: Axes, cells: list[tuple[int, int, FamilyPair | None]], annotate: bool, size: float) -> None:
    """Shade every (row, col, pair) cell by its decision, outline the undecided ones and write their p."""
    fills: dict[Colour, list[Square]] = {}
    squares, outlines = [], []
    for row, col, pair in cells:
        significant = pair.significant if pair is not None else None
        colour = UNDECIDED if pair is None or significant is None else (SIGNIFICANT if significant else NOT_SIGNIFICANT)
        squares.append(square(row, col, 0.5))
        fills.setdefault(colour, []).append(squares[-1])
        if pair is None:
            continue
        if significant is None:  # white cell: outline it so the missing decision is visible
            outlines.append(square(row, col, 0.45))
        if annotate:
            ax.text(col, row, p_text(pair.pvalue_adjusted), ha="center", va="center",
                    fontsize=size, color="white" if significant else "black",
                    fontweight="bold" if significant else "normal")
    # white lines between the cells, then the grey outline inside each undecided cell
    ax.add_collection(cell_layers(fills, [(squares, "white", 1.0), (outlines, "0.6", 0.6)]), autolim=False)


def draw_pvalues(record: PairFamily, metric: MetricInfo | None = None) -> FigureOutput:
    """The adjusted p-value / decision heatmap of a family of all pairs."""
    if not heatmap_fits(record):
        raise ValueError(f"{record.id}: a p-value heatmap needs a family of all pairs")
    with style():
        return export(pvalue_figure(record), f"pvalues-{slug(record.id)}", pvalue_caption(record, metric))


def confusion_caption(record: ClassificationRecord) -> str:
    return (f"Confusion matrices on {record.corpus} ({record.n_items} items): rows are gold labels, columns "
            "predicted labels; cells give counts, shaded by their share of the gold row.")


def confusion_figure(record: ClassificationRecord) -> Figure:
    """One confusion-matrix panel per system (call inside :func:`~.output.style`), as many panels to a row as
    the style's column holds (at most four), centred in it; at the text width when the column would stack
    more than two rows of panels."""
    import matplotlib

    fs = current_style()
    labels = record.labels
    m = len(labels)
    fig = new_figure(4.0, 4.0)
    cell = max(0.32 if m <= 6 else 0.2, measure(fig, "8888", fs.small)[0] + 0.06) if m <= 10 else 0.2
    label_w = max(measure(fig, s, fs.size)[0] for s in labels) + 0.2
    # room left of the first column's row labels for the rotated "gold" (its height, the label pad and a margin)
    left = label_w + measure(fig, "gold", fs.size)[1] + matplotlib.rcParams["axes.labelpad"] / 72 + 0.05
    panel = m * cell
    gap = max(0.25, max(measure(fig, s.system, fs.size)[0] for s in record.systems) - panel + 0.1)
    width = fs.inches()
    fits = lambda c, w: left + c * panel + (c - 1) * gap + 0.15 <= w  # noqa: E731
    most = min(len(record.systems), 4)
    cols = max([c for c in range(1, most + 1) if fits(c, width)], default=1)
    if fs.wider is not None and math.ceil(len(record.systems) / cols) > 2:  # a tall column: use the text width
        width = fs.inches(wide=True)
        cols = max([c for c in range(1, most + 1) if fits(c, width)], default=1)
    content = left + cols * panel + (cols - 1) * gap + 0.15
    width = max(width, content)
    rows = math.ceil(len(record.systems) / cols)
    block = panel + label_w + 0.3 + 2.2 * fs.size / 72  # title above; rotated labels and axis name below
    height = rows * block + 0.05
    fig.set_size_inches(width, height)
    x_off = (width - content) / 2
    for idx, s in enumerate(record.systems):
        r, c = divmod(idx, cols)
        x = x_off + left + c * (panel + gap)
        y = height - (r + 1) * block + label_w + 0.2
        ax = fig.add_axes((x / width, y / height, panel / width, panel / height))
        _confusion_panel(ax, s.system, s.confusion_matrix.matrix, labels, show_rows=c == 0, annotate=m <= 10)
    return fig


def _confusion_panel(ax: Axes, title: str, matrix: tuple[tuple[int, ...], ...], labels: tuple[str, ...],
                     show_rows: bool, annotate: bool) -> None:
    import matplotlib
    import numpy as np

    counts = np.array(matrix, dtype=float)
    totals = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
    m = len(labels)
    ax.set_xlim(-0.5, m - 0.5)
    ax.set_ylim(m - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.xaxis.set_visible(False)  # labels drawn by tick_labels; the spines stay as the panel's frame
    ax.yaxis.set_visible(False)
    # one collection of squares, not imshow: imshow would embed a raster image in the SVG and PDF
    colours = matplotlib.colormaps["Blues"](share)
    fills: dict[Colour, list[Square]] = {}
    for i in range(m):
        for j in range(m):
            fills.setdefault(tuple(colours[i, j]), []).append(square(i, j, 0.5))
    ax.add_collection(cell_layers(fills, []), autolim=False)
    if annotate:
        for i in range(m):
            for j in range(m):
                ax.text(j, i, str(int(counts[i, j])), ha="center", va="center", fontsize=current_style().small,
                        color="white" if share[i, j] > 0.5 else "black")
    size = current_style().size
    names = tick_labels(ax, list(enumerate(labels)), list(enumerate(labels)) if show_rows else [], size)
    ax.set_title(title, fontsize=size, pad=4)
    _axis_names(ax, names, "predicted", "gold" if show_rows else None)


def _axis_names(ax: Axes, names: list[Text], below: str, left: str | None) -> None:
    """Axis titles where ``set_xlabel`` / ``set_ylabel`` put them: ``axes.labelpad`` points beyond the
    outermost category label, measured when the figure is saved (with that backend's text metrics, as
    matplotlib's axis does) but without the rest of the axis machinery."""
    import matplotlib
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox

    fig = ax.get_figure()
    assert fig is not None
    pad = matplotlib.rcParams["axes.labelpad"]

    def extent(renderer: object, rotated: bool) -> Bbox:
        boxes = [ax.bbox] + [t.get_window_extent(renderer) for t in names if (t.get_rotation() == 90) == rotated]
        return Bbox.union(boxes)

    fig.add_artist(Annotation(below, (0.5, 0.0), xycoords=lambda r: extent(r, True), xytext=(0, -pad),
                              textcoords="offset points", ha="center", va="top", fontsize=current_style().size))
    if left is not None:
        fig.add_artist(Annotation(left, (0.0, 0.5), xycoords=lambda r: extent(r, False), xytext=(-pad, 0),
                                  textcoords="offset points", ha="center", va="bottom", rotation=90,
                                  rotation_mode="anchor", fontsize=current_style().size))


def draw_confusion(record: ClassificationRecord) -> FigureOutput:
    """The confusion matrices of a classification record, one panel per system."""
    with style():
        return export(confusion_figure(record), f"confusion-{slug(record.id)}", confusion_caption(record))
