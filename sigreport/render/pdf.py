"""PDF from the report's own HTML with weasyprint; nothing is fetched from anywhere.

WeasyPrint gets the page in a form made for print (:func:`print_input`), not the screen page as it is:
its cost grows with every element it parses, styles and draws, even those the print CSS hides, and the
screen page's figures are most of its elements. The print form:

- leaves out what print does not show: figures marked ``screen-only`` (the forest plot of a family shown
  as a matrix, unreadable at print size) and the table of contents;
- gives each figure as an image (``<img src="sigreport-figure:N">``) served from memory by the URL
  fetcher, so its thousands of SVG elements are parsed by the SVG reader alone and never enter the HTML
  tree, the CSS cascade and the box tree;
- writes each figure's labels as text instead of glyph outlines (:mod:`.figures.svg_text`): the same
  glyphs at the same positions, several times cheaper to draw, and searchable in the PDF.

What the PDF shows is unchanged: the print CSS already hid the left-out parts, and the image is sized as
the inline SVG was (the container's width up to the figure's natural width, the stylesheet's rules for
the SVG applied to the image, so ``max-height`` from the print CSS, the aspect ratio kept).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sigreport.render.figures import svg_text
from sigreport.render.figures.svg_text import glyphs_to_text

FIGURE_SCHEME = "sigreport-figure"
FONT_SCHEME = "sigreport-font"
_SCREEN_ONLY = re.compile(r'<figure class="[^"]*\bscreen-only\b[^"]*"[^>]*>.*?</figure>\n?', re.S)
_TOC = re.compile(r'<nav class="toc"[^>]*>.*?</nav>\n?', re.S)
_SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.S)
_STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S)
# a selector whose last part is the element svg (``figure.fig svg``), before the next "," or "{"
_SVG_SELECTOR = re.compile(r"(?:^|(?<=[{},;]))(\s*)([^\s{},;@/][^{},;@/]*?\s)?svg(?=\s*[,{])")


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


def print_input(page: str) -> PrintInput:
    """The report page ``page`` (``render_html``'s output) in the form made for print (module docstring)."""
    page = _TOC.sub("", _SCREEN_ONLY.sub("", page))
    page = _STYLE.sub(lambda m: m.group(1) + image_rules(m.group(2)) + m.group(3), page)
    figures: dict[str, bytes] = {}

    def hoist(m: re.Match[str]) -> str:
        url = f"{FIGURE_SCHEME}:{len(figures)}"
        image = as_image(m.group(0), url)
        if image is None:  # not a figure as sigreport draws them: left inline
            return m.group(0)
        figures[url] = image[0].encode("utf-8")
        return image[1]

    page = _SVG.sub(hoist, page)
    faces = sorted(set().union(*(svg_text.faces(f.decode("utf-8")) for f in figures.values())))
    fonts = {f"{FONT_SCHEME}:{face}": svg_text.font_path(face) for face in faces}
    if fonts:
        page = page.replace("</head>", font_faces(faces) + "</head>", 1)
    return PrintInput(page, figures, fonts)


def font_faces(faces: list[str]) -> str:
    """The ``@font-face`` rules of the labels' family (:data:`.svg_text.FAMILY`): matplotlib's own files of
    ``faces``, so the PDF shows the glyphs matplotlib measured whatever fonts the machine has."""
    rules = []
    for face in faces:
        _, weight, style = svg_text.FACES[face]
        rules.append(f'@font-face {{ font-family: "{svg_text.FAMILY}"; src: url("{FONT_SCHEME}:{face}"); '
                     f"font-weight: {weight}; font-style: {style}; }}")
    return "<style>\n" + "\n".join(rules) + "\n</style>\n"


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
    without the ``viewBox`` sigreport's figures have.

    The inline root is sized by its container (``width="100%"``, the natural width as ``max-width``); an
    image needs its own size, so the root gets the natural size from its ``viewBox`` (in pt, the unit
    matplotlib writes) and the ``<img>`` the container rule. ``aria-label`` becomes the ``alt`` text.
    """
    root = re.match(r"<svg\b[^>]*>", svg)
    assert root is not None
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', root.group(0))
    label = re.search(r'aria-label="([^"]*)"', root.group(0))
    if box is None:
        return None
    width, height = box.groups()
    new_root = re.sub(r'\swidth="100%" style="[^"]*"', "", root.group(0), count=1)
    new_root = new_root.replace("<svg", f'<svg width="{width}pt" height="{height}pt"', 1)
    alt = label.group(1) if label else ""
    img = (f'<img class="figure" src="{url}" alt="{alt}" '
           f'style="width:100%;max-width:{width}pt;height:auto">')
    return glyphs_to_text(new_root + svg[root.end():]), img


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


def render_pdf(html: str, out: Path) -> None:
    """``out``: the PDF of the report page ``html`` (``render_html``'s output), from its print form."""
    from weasyprint import HTML

    doc = print_input(html)
    with quiet("weasyprint", "fontTools"):
        HTML(string=doc.html, url_fetcher=_fetcher(doc.resources()), base_url=None).write_pdf(str(out))


@contextlib.contextmanager
def quiet(*loggers: str) -> Iterator[None]:
    """Within the block, ``loggers`` report errors only (WeasyPrint's and fontTools' warnings about CSS
    and fonts mean nothing to the reader of a report); their levels are put back after, so a caller's
    logging is left as it was."""
    found = [logging.getLogger(name) for name in loggers]
    levels = [log.level for log in found]
    for log in found:
        log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for log, level in zip(found, levels):
            log.setLevel(level)
