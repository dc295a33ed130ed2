"""The win-rate matrix of pairwise preference votes (a ``preferences`` record): row system i against column
system j, the share of their votes i won (a tie counts half), systems in the order of their Bradley-Terry
strengths (strongest first, top and left). Cells are shaded from red (0) through white (0.5) to blue
(1) in :data:`LEVELS` steps (one compound path per step: a 100-system matrix is 21 paths, not 10,000), never-met
pairs are left white with a grey outline, and the rates are written in the cells up to :data:`ANNOTATE_UP_TO`
systems. Drawn from the record's ``win_rates``; nothing is recomputed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sigreport.render.figures.heatmaps import Colour, Square, _axis_names, cell_layers, square
from sigreport.render.figures.output import (FigureOutput, current_style, export, measure, new_figure, slug, style,
                                             tick_labels)
from sigreport.results.records import PreferenceRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ANNOTATE_UP_TO = 12
LEVELS = 20
HALF = 0.46  # half a cell's side: the white gaps between cells are the background (no stroke per cell)


def strength_order(record: PreferenceRecord) -> list[int]:
    """Indices of the record's systems, strongest first (ties of strength keep the systems' order)."""
    key = [-(s.strength if s.strength is not None else float("-inf")) for s in record.systems]
    return sorted(range(len(record.systems)), key=lambda i: (key[i], i))


def winrate_caption(record: PreferenceRecord) -> str:
    return (f"Win rates of {record.n_votes:,} preference votes: the share of the votes between the row's and the "
            "column's system that the row's won (a tie counts half); systems in the order of their Bradley-Terry "
            "strengths, strongest first; white cells: never compared.")


def winrate_figure(record: PreferenceRecord) -> Figure:
    """The matrix (call inside :func:`~.output.style`), as wide as the style's column (the text width when its
    cells cannot hold their rates there)."""
    import matplotlib

    fs = current_style()
    order = strength_order(record)
    names = [record.systems[i].system for i in order]
    k = len(names)
    annotate = k <= ANNOTATE_UP_TO
    fig = new_figure(4.0, 4.0)
    label_w = max(measure(fig, s, fs.size)[0] for s in names) + 0.15
    need = (measure(fig, "0.00", fs.small)[0] + 0.08) if annotate else 0.08
    width = fs.inches()
    if label_w + k * need + 0.3 > width and fs.wider is not None:
        width = fs.inches(wide=True)
    cell = max(need, min(0.45 if annotate else 0.2, (width - label_w - 0.3) / k))
    below = measure(fig, "opponent", fs.size)[1] + 0.15
    content = label_w + k * cell + 0.3
    width = max(width, content)
    height = label_w + k * cell + below + 0.1
    fig.set_size_inches(width, height)
    x0 = (width - content) / 2 + label_w + 0.15
    ax = fig.add_axes((x0 / width, (label_w + below) / height, k * cell / width, k * cell / height))
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_axis_off()
    cmap = matplotlib.colormaps["RdBu"]
    fills: dict[Colour, list[Square]] = {}
    outlines: list[Square] = []
    for r, i in enumerate(order):
        for c, j in enumerate(order):
            if i == j:
                fills.setdefault("0.85", []).append(square(r, c, HALF))
                continue
            rate = record.win_rates[i][j]
            if rate is None:
                fills.setdefault("white", []).append(square(r, c, HALF))
                outlines.append(square(r, c, 0.42))
                continue
            level = round(rate * LEVELS) / LEVELS
            fills.setdefault(tuple(float(x) for x in cmap(0.1 + 0.8 * level)), []).append(square(r, c, HALF))
            if annotate:
                ax.text(c, r, f"{rate:.2f}", ha="center", va="center", fontsize=fs.small,
                        color="white" if abs(level - 0.5) > 0.3 else "black")
    ax.add_collection(cell_layers(fills, [(outlines, "0.6", 0.6)]), autolim=False)
    labels = tick_labels(ax, list(enumerate(names)), list(enumerate(names)), fs.size)
    _axis_names(ax, labels, "opponent", None)
    return fig


def draw_winrates(record: PreferenceRecord) -> FigureOutput:
    with style():
        return export(winrate_figure(record), f"winrates-{slug(record.id)}", winrate_caption(record))
