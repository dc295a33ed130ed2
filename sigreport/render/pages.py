"""The page a report's LaTeX is set for (``outputs.latex.page``): widths, font sizes and the table font's
character widths, from the measurements in :mod:`.page_metrics` (pdflatex, ``scripts/measure_pages.py``).

A preset names a venue's page (``article10``, ``acl``, ``ieee``, ``neurips``, ``lncs``); a custom page gives
``columnwidth``, ``textwidth`` (pt) and ``fontsize`` (the body size, pt). The fit rule of
:mod:`sigreport.render.latex` and the figures' size (:mod:`sigreport.render.figures.output`) read it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping

from sigreport import defaults
from sigreport.render.page_metrics import BOLD, CHAR_WIDTHS, PAGES

PRESETS = tuple(PAGES)
DEFAULT = defaults.LATEX_PAGE
# the figures' default font per preset: the paper's own where matplotlib ships it (Computer Modern as
# cmr10, Times as STIX), DejaVu behind it for any glyph it lacks
SERIF = {"article10": "cmr10", "lncs": "cmr10", "acl": "STIXGeneral", "ieee": "STIXGeneral",
         "neurips": "STIXGeneral"}
# the presets whose venue style loads natbib (acl.sty, neurips_2024.sty), where ``\\cite`` is textual ("Holm
# [1979]"): the methods paragraph cites with ``\\citep`` there, ``\\cite`` on the others
NATBIB = frozenset({"acl", "neurips"})


HEIGHTS = ("float_base", "row", "panel", "group_head", "note", "note_line", "caption_line")
"""The measured heights of a table float's pieces (:func:`scripts.measure_pages.measure_heights`), in pt."""


@dataclasses.dataclass(frozen=True)
class Page:
    """A page: ``columnwidth`` and ``textwidth`` in pt (equal on a one-column page), ``fontsize`` the body
    text and ``small`` the tables' ``\\small`` size in pt, ``serif`` the figures' default serif font;
    ``textheight`` in pt and ``heights`` (:data:`HEIGHTS`, measured) for the height of a float. A custom page
    gives neither: it is taken to be as tall as the 10pt article's text block, its pieces that article's scaled to
    its ``\\small`` size."""

    name: str
    columnwidth: float
    textwidth: float
    fontsize: float
    small: float
    serif: str = "STIXGeneral"
    textheight: float = 0.0  # 0: the default page's
    heights: tuple[tuple[str, float], ...] = ()

    def height(self, piece: str) -> float:
        """The height in pt of ``piece`` (one of :data:`HEIGHTS`) of a table float on this page."""
        found = dict(self.heights).get(piece)
        return found if found is not None else float(PAGES[DEFAULT][piece]) * self.small / float(PAGES[DEFAULT]["small"])

    @property
    def text_height(self) -> float:
        """``\\textheight`` in pt: no float may be taller."""
        return self.textheight or float(PAGES[DEFAULT]["textheight"])

    @property
    def two_columns(self) -> bool:
        return self.textwidth > self.columnwidth + 1

    @property
    def natbib(self) -> bool:
        """Whether the venue's style loads natbib (:data:`NATBIB`; a custom page is taken not to)."""
        return self.name in NATBIB

    @property
    def widths(self) -> Mapping[str, float]:
        """Width in pt of each character in the tables' font at this page's ``\\small`` size."""
        return _scaled(self.small)

    @property
    def bold(self) -> float:
        """Bold over normal width of the tables' font."""
        return BOLD[_base(self.small)]

    @property
    def other_width(self) -> float:
        """The width assumed for a character not measured (Greek, accented letters, symbols)."""
        return 6.0 * self.small / 9.0

    def describe(self) -> str:
        """'ieee (\\columnwidth 252pt, \\textwidth 516pt, 10pt text)' for README files and the docs."""
        cols = (f"\\columnwidth {self.columnwidth:g}pt, \\textwidth {self.textwidth:g}pt" if self.two_columns
                else f"one column, \\textwidth {self.textwidth:g}pt")
        return f"{self.name} ({cols}, {self.fontsize:g}pt text, tables in \\small = {self.small:g}pt)"


def _base(small: float) -> float:
    """The measured ``\\small`` size closest to ``small``."""
    return min(CHAR_WIDTHS, key=lambda s: abs(s - small))


@functools.lru_cache(maxsize=8)
def _scaled(small: float) -> dict[str, float]:
    base = _base(small)
    k = small / base
    return {ch: w * k for ch, w in CHAR_WIDTHS[base].items()}


def preset(name: str) -> Page:
    """The measured preset ``name`` (see :data:`PRESETS`)."""
    m = PAGES[name]
    return Page(name, float(m["columnwidth"]), float(m["textwidth"]), float(m["fontsize"]), float(m["small"]),
                SERIF.get(name, "STIXGeneral"), float(m["textheight"]), tuple((k, float(m[k])) for k in HEIGHTS))


def small_of(fontsize: float) -> float:
    """``\\small`` of the standard classes for a body size: 9pt at 10pt, 10pt at 11pt, 10.95pt at 12pt."""
    return 9.0 if fontsize < 10.5 else 10.0 if fontsize < 11.5 else 10.95


def page_of(value: str | Mapping[str, float] | None) -> Page:
    """The page of ``outputs.latex.page``: a preset name, or a mapping with ``columnwidth``, ``textwidth`` and
    ``fontsize`` (pt)."""
    if value is None:
        return preset(DEFAULT)
    if isinstance(value, str):
        return preset(value)
    size = float(value.get("fontsize", 10.0))
    return Page("custom", float(value["columnwidth"]), float(value["textwidth"]), size, small_of(size), "STIXGeneral")
