"""Figure text stays on the figure: every example's figure PDFs, on every page preset, draw no glyph outside
their MediaBox (a paper's page or a PDF viewer cuts it: "(95% CI" without its ")", the "->" of an axis label).

Each example is built once per preset (conftest's ``page_builds``: LaTeX only, the analyses from the examples'
cache, shared with test_latex_paper's papers of that preset), and every figure PDF is read with ``pdftotext
-bbox``. poppler drops a glyph that lies wholly outside the page, so each PDF is first given a MediaBox 50pt
larger on every side: a glyph past the figure's edge is then reported, at its place, and compared with the
figure's own box.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import needs, page_param
from sigreport.render.pages import PRESETS

GROW = 50.0  # pt added to the MediaBox on every side before pdftotext reads it
TOLERANCE = 0.05  # pt: pdftotext prints six decimals; less than this is rounding
MEDIABOX = re.compile(rb"/MediaBox \[ ([-\d. ]+) \]")
WORD = re.compile(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)</word>')


def outside(pdf: Path, work: Path) -> list[str]:
    """The words of ``pdf`` whose glyph boxes reach past its MediaBox, as 'word: by N pt'."""
    data = pdf.read_bytes()
    box = MEDIABOX.search(data)
    assert box is not None, f"{pdf.name}: no MediaBox"
    x0, y0, x1, y1 = (float(v) for v in box.group(1).split())
    grown = f"{x0 - GROW:g} {y0 - GROW:g} {x1 + GROW:g} {y1 + GROW:g}".encode()
    wide = work / f"{pdf.stem}.wide.pdf"  # a longer MediaBox moves the xref offsets: poppler rebuilds them
    wide.write_bytes(data[: box.start(1)] + grown + data[box.end(1):])
    text = subprocess.run(["pdftotext", "-q", "-bbox", str(wide), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "<word" in text, f"{pdf.name}: pdftotext found no text"
    width, height = x1 - x0, y1 - y0
    out = []
    for a, b, c, d, word in WORD.findall(text):
        left, top, right, bottom = (float(v) - GROW for v in (a, b, c, d))  # back to the figure's own box
        over = max(-left, -top, right - width, bottom - height)
        if over > TOLERANCE:
            out.append(f"{word!r} by {over:.2f}pt")
    return out


@needs("pdftotext")
@pytest.mark.parametrize("page", [page_param(p) for p in PRESETS])
def test_no_figure_text_outside_its_pdf(page, page_builds, tmp_path):
    """Every figure of every example on ``page``: no word's glyph box past the figure's edge."""
    reports = page_builds(page)
    pdfs = sorted(p for rep in reports.values() for p in (rep / "figures").glob("*.pdf"))
    assert len(pdfs) >= 40, f"only {len(pdfs)} figure PDFs for {page}"
    bad = {f"{p.parent.parent.name}/{p.name}": words for p in pdfs if (words := outside(p, tmp_path))}
    assert not bad, f"{page}: text past the figure's edge in {len(bad)} of {len(pdfs)} figures: {bad}"
