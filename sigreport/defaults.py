"""Output defaults: the one place that says what a report holds when the spec does not say otherwise.

The spec's models (``outputs``) take their defaults from here, and so does the renderer for a report
rendered from a results.json alone (which carries no ``outputs`` section): the two can never drift.
Statistical defaults are not here: they belong to the spec's ``tests`` and are printed in every report.
"""

from __future__ import annotations

FORMATS: tuple[str, ...] = ("html", "pdf", "latex", "json")
"""``outputs.formats``: every output format, the one list of their names and of the order users see them in (the
spec's allowed values and its default, the JSON Schema, ``--formats`` and the API's messages). Each has its
writer in :data:`sigreport.api.outputs.WRITERS`, keyed by these names (a test checks that the two agree); the
names live here, below the spec, and the writers up there, with the rendering libraries they import."""

FIGURE_KINDS: tuple[str, ...] = ("cd", "forest", "pvalues", "confusion", "winrates", "leaderboard")
"""``outputs.figures``: every kind, each drawn where an analysis gives it."""

MAIN_TABLE_CELL = "value"
MAIN_TABLE_RANK = "ub"  # outputs.main_table.rank: Rank (UB) column for 3 or more systems (results/ranks.py)
MAIN_TABLE_MARKERS = True
"""``outputs.main_table``: the mean (or corpus-level value) with significance markers; decimals: the metric's."""

LATEX_FLOAT = "auto"
LATEX_SIUNITX = False
LATEX_PAIRWISE = "auto"
LATEX_CAPTION_PREFIX = ""
LATEX_LABEL_PREFIX: str | None = None  # None: tab:<report>- and fig:<report>- (the spec file's name)
LATEX_PAGE = "article10"
"""``outputs.latex``."""

HTML_PAIRWISE = "auto"
"""``outputs.html.pairwise``."""

FIGURE_WIDTH = "column"
FIGURE_FONT = "serif"
"""``outputs.figure_style``: the page's column width, the paper's font (its size: the page's body size minus one)."""
GENERIC_FONTS = {"serif": "", "sans": "DejaVu Sans", "sans-serif": "DejaVu Sans", "monospace": "DejaVu Sans Mono"}
"""``outputs.figure_style.font`` names that are no font family: the family each stands for (``serif``: the page's
serif, ""), valid on every machine (the DejaVu families ship inside matplotlib); any other name must be a family
matplotlib knows on this machine."""
