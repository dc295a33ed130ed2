"""The PDF report with WeasyPrint, from a page made for print; nothing is fetched from anywhere.

WeasyPrint's cost grows with every element it parses, styles and draws, even those the print CSS hides,
and the screen page's figures are most of its elements. So the PDF is made from the report model through
the page's own template in its print form (:func:`print_page`), not from the screen page:

- the template leaves out what print does not show: figures marked ``screen_only`` (the forest plot of a
  family shown as a matrix, unreadable at print size) and the table of contents;
- each figure is an image (``<img src="sigreport-figure:N">``) served from memory by the URL fetcher, so
  its thousands of SVG elements are parsed by the SVG reader alone and never enter the HTML tree, the CSS
  cascade and the box tree;
- each figure's labels are text instead of glyph outlines (:mod:`.figures.svg_text`): the same glyphs at
  the same positions, several times cheaper to draw, and searchable in the PDF;
- the stylesheet ends with :data:`PRINT_ONLY_CSS`, rules that draw the same page with less work (this page
  alone: ``index.html`` keeps its stylesheet as it is).

What the PDF shows is what print shows of the screen page: the print CSS hides the left-out parts there,
and the image is sized as the inline SVG was (the container's width up to the figure's natural width, the
stylesheet's rules for the SVG applied to the image, so ``max-height`` from the print CSS, the aspect ratio
kept).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sigreport.render.figures import svg_text
from sigreport.render.figures.svg_text import glyphs_to_text
from sigreport.render.html import render_page
from sigreport.render.logs import quiet
from sigreport.render.model import ReportModel

FIGURE_SCHEME = "sigreport-figure"
FONT_SCHEME = "sigreport-font"
# a selector whose last part is the element svg (``figure.fig svg``), before the next "," or "{"
_SVG_SELECTOR = re.compile(r"(?:^|(?<=[{},;]))(\s*)([^\s{},;@/][^{},;@/]*?\s)?svg(?=\s*[,{])")


# The screen page's sticky first column (a wide table scrolls under it) makes each row's first cell a positioned
# box with a z-index: a stacking context of its own, laid out and painted apart from its row (2.3% of the PDF's
# Python calls in the 10 x 3 x 2 bootstrap report). Print scrolls nothing, ``left: 0`` moves nothing and the
# cell's white background is drawn either way, so a static cell gives the same pixels.
PRINT_ONLY_CSS = ("\n@media print { .scroll th:first-child, .scroll td:first-child "
                  "{ position: static; z-index: auto; } }\n")


class FetchRefused(Exception):
    pass


def refuse_fetch(url: str, *args: object, **kwargs: object) -> dict:
    """url_fetcher that refuses every URL: the report is self-contained, so nothing may be loaded."""
    raise FetchRefused(f"sigreport reports fetch nothing (refused {url[:80]})")


@dataclasses.dataclass(frozen=True)
class PrintInput:
    """What WeasyPrint reads: the print page, its figures (``sigreport-figure:N`` -> SVG bytes) and the
    font faces their labels are set in (``sigreport-font:<face>`` -> the font file)."""

    html: str
    figures: dict[str, bytes]
    fonts: dict[str, Path] = dataclasses.field(default_factory=dict)

    def resources(self) -> dict[str, bytes | Path]:
        """Every URL the page may load, and what it gets."""
        return {**self.figures, **self.fonts}


class PrintFigures:
    """The figures of a print page, each an image file served from memory with its labels as text, and the
    font faces those labels are set in.

    ``svgs``: the figures the page shows (their inline SVG), converted once here, so that the page's head can
    declare their fonts before its body places them (:meth:`tag`, in page order)."""

    def __init__(self, svgs: Iterable[str]) -> None:
        self._files: dict[str, tuple[str, str, str] | None] = {}
        for svg in svgs:
            self._file(svg)
        self.figures: dict[str, bytes] = {}

    def _file(self, svg: str) -> tuple[str, str, str] | None:
        if svg not in self._files:
            self._files[svg] = image_file(svg)
        return self._files[svg]

    def faces(self) -> list[str]:
        """The :data:`.svg_text.FACES` the figures' labels are set in."""
        return sorted(set().union(*(svg_text.faces(f[0]) for f in self._files.values() if f is not None)))

    def head(self) -> str:
        """The ``@font-face`` rules of :meth:`faces` (empty without labels as text)."""
        faces = self.faces()
        return font_faces(faces) if faces else ""

    def tag(self, svg: str | None) -> str:
        """What the page shows in place of a figure's inline ``svg``: the ``<img>`` of the next figure URL (the
        image is then served at it), or the SVG as it is when it is not a figure as sigreport draws them."""
        found = self._file(svg) if svg else None
        if found is None:
            return svg or ""
        url = f"{FIGURE_SCHEME}:{len(self.figures)}"
        self.figures[url] = found[0].encode("utf-8")
        return image_tag(url, found[1], found[2]) + svg[svg.rfind("</svg>") + len("</svg>"):]  # the line end kept

    def input(self, page: str) -> PrintInput:
        """What WeasyPrint reads: ``page`` (whose figures :meth:`tag` placed), the figures and the fonts."""
        return PrintInput(page, dict(self.figures), {f"{FONT_SCHEME}:{face}": svg_text.font_path(face)
                                                     for face in self.faces()})


def print_page(report: ReportModel, user_dir: str | Path | None = None) -> PrintInput:
    """The page the PDF is made from: ``report`` through the page's template in its print form (see the
    module docstring), with the stylesheet's rules for a figure's SVG applied to its image and the print-only
    rules (:func:`print_rules`)."""
    figures = PrintFigures(f.svg for f in report.figures() if f.svg and not f.screen_only)
    page = render_page(report, user_dir, for_print=True, figure=figures.tag, css=print_rules, head=figures.head())
    return figures.input(page)


def font_faces(faces: list[str]) -> str:
    """The ``@font-face`` rules of the labels' families (:func:`.svg_text.family_of`): matplotlib's own files of
    ``faces``, so the PDF shows the glyphs matplotlib measured whatever fonts the machine has."""
    rules = []
    for face in faces:
        _, weight, style, _ = svg_text.FACES[face]
        rules.append(f'@font-face {{ font-family: "{svg_text.family_of(face)}"; src: url("{FONT_SCHEME}:{face}"); '
                     f"font-weight: {weight}; font-style: {style}; }}")
    return "<style>\n" + "\n".join(rules) + "\n</style>\n"


def print_rules(css: str) -> str:
    """The print page's stylesheet: ``css`` with its figure rules for images too (:func:`image_rules`), then
    :data:`PRINT_ONLY_CSS` (after the page's and a user's rules, so it wins over both)."""
    return image_rules(css) + PRINT_ONLY_CSS


def image_rules(css: str) -> str:
    """``css`` with every rule for a figure's inline ``<svg>`` (its last selector part ``svg``) applying
    to the figure's image (``img.figure``) too: the image is sized as the SVG was (by the page's own
    stylesheet or a user's), e.g. ``figure.fig svg { max-height: 64mm }`` in print."""
    def both(m: re.Match[str]) -> str:
        ancestors = m.group(2) or ""
        return f"{m.group(1)}{ancestors}svg, {ancestors}img.figure"

    return _SVG_SELECTOR.sub(both, css)


def as_image(svg: str, url: str) -> tuple[str, str] | None:
    """(the figure's SVG as an image file, the ``<img>`` that shows it at ``url``), or None for an SVG
    without the ``viewBox`` sigreport's figures have (:func:`image_file`, :func:`image_tag`)."""
    found = image_file(svg)
    return None if found is None else (found[0], image_tag(url, found[1], found[2]))


def image_file(svg: str) -> tuple[str, str, str] | None:
    """(the figure's inline SVG as an image file with its labels as text, its natural width in pt, its label),
    or None for an SVG without the ``viewBox`` sigreport's figures have.

    The inline root is sized by its container (``width="100%"``, the natural width as ``max-width``); an
    image needs its own size, so the root gets the natural size from its ``viewBox`` (in pt, the unit
    matplotlib writes). ``aria-label`` becomes the image's ``alt`` text.
    """
    root = re.match(r"<svg\b[^>]*>", svg)
    if root is None or "</svg>" not in svg:
        return None
    svg = svg[:svg.rfind("</svg>") + len("</svg>")]  # the element alone, without the line end after it
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', root.group(0))
    label = re.search(r'aria-label="([^"]*)"', root.group(0))
    if box is None:
        return None
    width, height = box.groups()
    new_root = re.sub(r'\swidth="100%" style="[^"]*"', "", root.group(0), count=1)
    new_root = new_root.replace("<svg", f'<svg width="{width}pt" height="{height}pt"', 1)
    return glyphs_to_text(new_root + svg[root.end():]), width, label.group(1) if label else ""


def image_tag(url: str, width: str, alt: str) -> str:
    """The ``<img>`` of a figure served at ``url``, sized as its inline SVG was (``alt``: already escaped)."""
    return (f'<img class="figure" src="{url}" alt="{alt}" '
            f'style="width:100%;max-width:{width}pt;height:auto">')


def _fetcher(resources: dict[str, bytes | Path] | None = None) -> Any:
    """weasyprint >= 70 takes a URLFetcher object; older versions a function. Both refuse everything but
    the print page's own resources (:meth:`PrintInput.resources`): its figures, served from memory, and
    the labels' font files, read from matplotlib's own folder."""
    resources = resources or {}

    def body(url: str) -> bytes:
        found = resources[url]
        return found.read_bytes() if isinstance(found, Path) else found

    def kind(url: str) -> str:
        return "image/svg+xml" if url.startswith(FIGURE_SCHEME + ":") else "font/ttf"

    try:
        from weasyprint.urls import URLFetcher, URLFetcherResponse
    except ImportError:  # pragma: no cover - older weasyprint
        def fetch(url: str, *args: object, **kwargs: object) -> dict:
            if url in resources:
                return {"string": body(url), "mime_type": kind(url)}
            return refuse_fetch(url)

        return fetch

    class RefusingFetcher(URLFetcher):
        def fetch(self, url: str, headers: object = None) -> Any:
            if url in resources:
                return URLFetcherResponse(url, body(url), {"Content-Type": kind(url)})
            refuse_fetch(url)

        def __call__(self, url: str, *args: object, **kwargs: object) -> Any:
            return self.fetch(url)

    return RefusingFetcher()


def report_pdf(report: ReportModel, out: Path, user_dir: str | Path | None = None) -> None:
    """``out``: the PDF of ``report``, from its print page (:func:`print_page`)."""
    write_pdf(print_page(report, user_dir), out)


def render_pdf(html: str, out: Path) -> None:
    """``out``: the PDF of the page ``html`` as it is (nothing is fetched)."""
    write_pdf(PrintInput(html, {}), out)


def write_pdf(doc: PrintInput, out: Path) -> None:
    """``out``: the PDF of ``doc``'s page, with its figures and fonts and nothing else."""
    from weasyprint import HTML

    with quiet("weasyprint", "fontTools"):
        HTML(string=doc.html, url_fetcher=_fetcher(doc.resources()), base_url=None).write_pdf(str(out))
