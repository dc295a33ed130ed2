"""What WeasyPrint reads for the PDF: the report model's print page (sigreport.render.pdf.print_page) and
figure labels as text (sigreport.render.figures.svg_text). Both exist for the PDF's speed; these
tests check the mechanism and that the figures keep their looks (same glyphs, same positions)."""

from __future__ import annotations

import html as html_lib
import re
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter

from pathlib import Path

import matplotlib
import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image, ImageFilter
from weasyprint import HTML

from conftest import CONFIGS, needs
from sigreport.render.figures import output
from sigreport.render.figures.svg_text import glyph_index, glyphs_to_text
from sigreport.render.html import render_html
from sigreport.render.model import AnalysisView, Figure, ReportModel, Section
from sigreport.render.pdf import FetchRefused, PrintFigures, _fetcher, print_page, write_pdf

SVG_NS = "{http://www.w3.org/2000/svg}"


def drawn(labels: list[dict], font: str = "DejaVu Sans") -> str:
    """An inline figure (as the report embeds it) with one text artist per ``labels`` entry (kwargs of
    ``fig.text``; ``s`` the text), in ``font`` (outputs.figure_style.font)."""
    with output.figure_style(output.FigureStyle(font=font)), output.style():
        fig = output.new_figure(3, 2)
        for i, kw in enumerate(labels):
            fig.text(0.05, 0.9 - 0.15 * i, **kw)
        return output.export(fig, "t", "caption").svg


def texts(svg: str) -> list[ET.Element]:
    return list(ET.fromstring(svg).iter(f"{SVG_NS}text"))


def refs_resolve(svg: str) -> bool:
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    return all(r in ids for r in re.findall(r'href="#([^"]+)"', svg))


def test_plain_bold_and_rotated_labels_become_text_at_matplotlibs_glyph_positions():
    svg = drawn([{"s": "S1 vs  S2"}, {"s": "AVAV", "fontweight": "bold"}, {"s": "0.5", "rotation": 90},
                 {"s": "white", "color": "white", "alpha": 0.5}])
    out = glyphs_to_text(svg)
    found = {t.text: t for t in texts(out)}
    assert set(found) == {"S1 vs  S2", "AVAV", "0.5", "white"}
    assert found["white"].get("style") == "fill: #ffffff; opacity: 0.5" and found["0.5"].get("style") is None
    # one x per character, the two spaces kept (SVG would otherwise collapse them and shift the rest)
    spaced = found["S1 vs  S2"]
    assert len(spaced.get("x").split()) == 9
    assert spaced.get("{http://www.w3.org/XML/1998/namespace}space") == "preserve"
    assert "<use" not in out and "DejaVuSans" not in out  # no glyph outline left or defined
    assert found["AVAV"].get("font-weight") == "bold" and found["S1 vs  S2"].get("font-weight") is None
    # the rotated label keeps its rotation
    assert re.search(r'<g id="t-text_3"><text [^>]*transform="translate\([^)]*\) rotate\(-90\)"', out)
    # "AVAV" is kerned: the glyph positions are matplotlib's, not plain advances. Original: <use> shifted by
    # translate(x 0) in font units of the group's scale(s -s).
    m = re.search(r'<!-- AVAV -->\s*<g transform="translate\([^)]*\) scale\(([\d.]+) [-\d.]+\)">(.*?)</g>', svg, re.S)
    scale = float(m.group(1))
    original = [0.0] + [float(x) * scale for x in re.findall(r'translate\(([\d.]+) 0\)', m.group(2))]
    converted = [float(x) for x in found["AVAV"].get("x").split()]
    assert converted == pytest.approx(original, abs=1e-5)
    assert float(found["AVAV"].get("font-size")) == pytest.approx(scale * 100)
    # ... and kerned: A then V closer than A's own advance width
    font = TTFont(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans-Bold.ttf")
    plain = font["hmtx"]["A"][0] / font["head"].unitsPerEm * scale * 100
    assert converted[1] < plain - 0.1


def test_ligatures_and_lines_become_text_and_mathtext_keeps_its_outlines():
    # "Die" first defines D, i, e; the mathtext label keeps outlines (and so its glyph definitions); the
    # "ff" ligature (one glyph for two letters) is set as two f's, the second at the first's advance.
    svg = drawn([{"s": "Die"}, {"s": "Difference\nfirst"}, {"s": r"$\alpha^2$"}])
    out = glyphs_to_text(svg)
    found = texts(out)
    assert [t.text for t in found] == ["Die", "Difference", "first"]
    assert re.search(r'<g id="t-text_2"><text [^>]*>Difference</text><text [^>]*>first</text></g>', out)
    assert "<!-- $\\alpha^2$ -->" in out and "<use" in out and refs_resolve(out)
    x = [float(v) for v in found[1].get("x").split()]
    size = float(found[1].get("font-size"))
    font = TTFont(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
    assert x[3] - x[2] == pytest.approx(font["hmtx"]["f"][0] / font["head"].unitsPerEm * size, abs=1e-5)
    assert len(re.findall(r"DejaVuSans-[0-9a-f]+\"", svg)) > len(re.findall(r"DejaVuSans-[0-9a-f]+\"", out)) > 0


def test_a_glyph_that_is_not_the_fonts_glyph_for_the_character_is_not_trusted():
    svg = drawn([{"s": "ab"}])
    b = glyph_index("DejaVuSans", "b")
    c = glyph_index("DejaVuSans", "c")
    tampered = svg.replace(f"DejaVuSans-{b:x}\"", f"DejaVuSans-{c:x}\"")
    assert tampered != svg
    assert texts(glyphs_to_text(svg)) and not texts(glyphs_to_text(tampered))


CSS = "figure.fig svg { display: block; }\n@media print { .fig svg { max-height: 64mm; } }"


def model_of(*figures: tuple[str, str, bool]) -> ReportModel:
    """A report of one analysis showing ``figures``: (name, inline SVG, screen only)."""
    figs = tuple(Figure((name,), name.upper(), svg, name=name, screen_only=screen_only)
                 for name, svg, screen_only in figures)
    return ReportModel("t", None, (), (Section("S", ("m", None), (AnalysisView("a", "pairwise", "A", figs),), "s"),),
                       (), 1, "0")


def user_css(folder: Path) -> Path:
    """A --templates folder whose stylesheet is :data:`CSS` (the page's template stays sigreport's)."""
    (folder / "html").mkdir(parents=True, exist_ok=True)
    (folder / "html" / "style.css").write_text(CSS, encoding="utf-8")
    return folder


def test_print_form_leaves_out_screen_only_figures_and_serves_figures_as_images(tmp_path):
    svg = drawn([{"s": "S1 vs S2"}])
    model = model_of(("a", svg, False), ("b", svg, True))
    assert 'id="fig-b"' in render_html(model, user_css(tmp_path)) and "<nav" in render_html(model)  # on screen
    doc = print_page(model, tmp_path)
    assert "screen-only" not in doc.html and "fig-b" not in doc.html and "<nav" not in doc.html
    # the stylesheet's rules for a figure's svg apply to its image too (so print's max-height does)
    assert "figure.fig svg, figure.fig img.figure { display: block; }" in doc.html
    assert "@media print { .fig svg, .fig img.figure { max-height: 64mm; } }" in doc.html
    assert "<svg" not in doc.html and list(doc.figures) == ["sigreport-figure:0"]
    img = re.search(r'<img class="figure" src="sigreport-figure:0" alt="caption" style="([^"]*)">', doc.html)
    assert img and "max-width:216pt" in img.group(1)  # 3 in at 72 pt
    root = ET.fromstring(doc.figures["sigreport-figure:0"])
    assert (root.get("width"), root.get("height")) == ("216pt", "144pt")  # an image needs its own size
    assert [t.text for t in root.iter(f"{SVG_NS}text")] == ["S1 vs S2"]
    other = '<svg width="10" height="10"><rect width="5" height="5"/></svg>'  # not a sigreport figure
    doc = print_page(model_of(("c", other, False)))
    assert doc.figures == {} and other in doc.html


def test_labels_font_is_matplotlibs_own_file_declared_for_the_faces_used():
    svg = drawn([{"s": "plain"}, {"s": "bold", "fontweight": "bold"}])
    doc = print_page(model_of(("a", svg, False)))
    assert sorted(doc.fonts) == ["sigreport-font:DejaVuSans", "sigreport-font:DejaVuSans-Bold"]
    assert doc.fonts["sigreport-font:DejaVuSans"] == Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"
    faces = re.findall(r'@font-face \{ font-family: "sigreport DejaVu Sans"; src: url\("([^"]+)"\); '
                       r'font-weight: (\w+)', doc.html)
    assert sorted(faces) == [("sigreport-font:DejaVuSans", "normal"), ("sigreport-font:DejaVuSans-Bold", "bold")]
    label = texts(doc.figures["sigreport-figure:0"].decode())[0]
    assert label.get("font-family") == "'sigreport DejaVu Sans', 'DejaVu Sans'"


@pytest.mark.parametrize("font, faces", [("cmr10", ["Cmr10"]),
                                         ("STIXGeneral", ["STIXGeneral-Bold", "STIXGeneral-Regular"])])
def test_paper_fonts_become_text_too(font, faces):
    """The figures' paper fonts (Computer Modern, STIX) are matplotlib's own files as well: their labels become
    text in the PDF, in a family of their own, declared for the faces used."""
    svg = drawn([{"s": "plain text"}, {"s": "bold", "fontweight": "bold"}], font)
    doc = print_page(model_of(("a", svg, False)))
    assert sorted(doc.fonts) == [f"sigreport-font:{f}" for f in faces]
    labels = texts(doc.figures["sigreport-figure:0"].decode())
    assert [t.text for t in labels] == ["plain text", "bold"]
    assert labels[0].get("font-family") == f"'sigreport {font}', '{font}'"
    assert f'@font-face {{ font-family: "sigreport {font}"' in doc.html


def test_fetcher_serves_the_pages_resources_and_refuses_everything_else():
    font = Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"
    fetch = _fetcher({"sigreport-figure:0": b"<svg/>", "sigreport-font:DejaVuSans": font})
    assert fetch("sigreport-figure:0").read() == b"<svg/>"
    assert fetch("sigreport-font:DejaVuSans").read() == font.read_bytes()
    for url in ("sigreport-figure:1", "sigreport-font:Other", font.as_uri(), "file:///etc/hostname",
                "http://example.com/a.svg", "data:,x"):
        with pytest.raises(FetchRefused):
            fetch(url)


def test_examples_print_form_has_every_figure_as_an_image_with_text_labels():
    import sigreport
    from sigreport.render.views import build_report

    model = build_report(sigreport.analyze(CONFIGS / "demsar.yaml"), figure_pdf=False)
    shown = len(re.findall(r'<figure class="fig(?: key)?" id=', render_html(model)))
    doc = print_page(model)
    assert shown and len(doc.figures) == shown and doc.html.count('<img class="figure"') == shown
    for svg in doc.figures.values():
        root = ET.fromstring(svg)  # a well-formed SVG file
        assert root.get("width", "").endswith("pt") and list(root.iter(f"{SVG_NS}text"))
        assert refs_resolve(svg.decode())


@needs("pdftotext")
@needs("pdffonts")
def test_figure_labels_are_text_in_the_pdf(example, tmp_path):
    """The critical-difference diagram's "CD = ..." label is drawn as text (pdftotext reads it) in
    matplotlib's own DejaVu Sans, embedded under the labels' family name."""
    html = (example("demsar") / "index.html").read_text(encoding="utf-8")
    label = re.search(r"<!-- (CD = [\d.]+) -->", html)
    assert label is not None
    pdf = example("demsar") / "report.pdf"  # the build's own PDF (conftest: built in every format)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert label.group(1) in text
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert "sigreport-DejaVu-Sans" in fonts


def ink(pdf: Path, png: Path) -> "Image.Image":
    subprocess.run(["pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", "-singlefile", str(pdf),
                    str(png.with_suffix(""))], check=True)
    return Image.open(png).convert("L")


def covered(a: "Image.Image", b: "Image.Image") -> float:
    """Share of ``a``'s dark pixels that are dark in ``b`` within one pixel (anti-aliasing and hinting
    differ between outlines and text; a label moved by 3 px, half a point, covers about 65%)."""
    dark = np.asarray(a) < 128
    near = np.asarray(b.filter(ImageFilter.MinFilter(3))) < 160
    return float((dark & near).sum() / dark.sum())


@needs("pdftoppm")
def test_labels_as_text_draw_where_the_outlines_were(tmp_path):
    """The PDF of a figure from its print form (labels as text, an <img>) against the same page as
    WeasyPrint drew it before (inline SVG, labels as outlines): every label, kerned, bold, rotated, in two
    lines, with ligatures, runs of spaces and minus signs, lands on the same pixels at 150 dpi."""
    svg = drawn([{"s": "Difference fi ffl\n← second    first →"}, {"s": "S1 vs  S2 (kerning: AV To)"},
                 {"s": "bold 0.003", "fontweight": "bold"}, {"s": "red, half opaque", "color": "#d62728", "alpha": 0.6},
                 {"s": "rotated 0.5", "rotation": 90}, {"s": "\u22120.016 [\u22120.020, \u22120.012]"}])
    page = '<html><head>{}</head><body><figure class="fig" id="fig-a">{}<figcaption>A</figcaption></figure></body></html>'
    html = page.format("", svg)
    figures = PrintFigures([svg])
    doc = figures.input(page.format(figures.head(), figures.tag(svg)))  # as print_page places it
    assert doc.figures["sigreport-figure:0"].count(b"<text") == 7
    HTML(string=html, url_fetcher=_fetcher(), base_url=None).write_pdf(tmp_path / "outlines.pdf")
    write_pdf(doc, tmp_path / "text.pdf")
    before, after = ink(tmp_path / "outlines.pdf", tmp_path / "a.png"), ink(tmp_path / "text.pdf", tmp_path / "b.png")
    assert covered(before, after) > 0.97 and covered(after, before) > 0.97
    shifted = Image.new("L", after.size, 255)
    shifted.paste(after, (3, 0))
    assert covered(before, shifted) < 0.8  # the measure sees a shift of half a point


def test_a_pdf_build_prints_nothing_of_the_font_library(tmp_path):
    """``build -q --formats pdf`` in a fresh process prints nothing: reading the label font's tables made
    fontTools warn "'created' timestamp seems very low" (DejaVu's stamps are Unix times) on every build."""
    import sys

    done = subprocess.run([sys.executable, "-m", "sigreport.cli", "build", "-q", "--no-cache", "--formats", "pdf",
                           str(CONFIGS / "summarizers.yaml"), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and (tmp_path / "out" / "report.pdf").is_file(), done.stderr
    assert done.stderr == "" and done.stdout == ""


def test_print_page_draws_first_cells_static_and_the_screen_page_keeps_them_sticky():
    """Print scrolls nothing, so the print page's stylesheet ends with a rule that makes the screen's sticky
    first column static (no stacking context per row for weasyprint); index.html's stylesheet is untouched."""
    import sigreport
    from sigreport.render.views import build_report

    model = build_report(sigreport.analyze(CONFIGS / "demsar.yaml"), figure_pdf=False)
    rule = ".scroll th:first-child, .scroll td:first-child { position: static; z-index: auto; }"
    css = print_page(model).html.split("</style>", 1)[0]
    assert rule in css and css.index(rule) > css.index("position: sticky")  # after the screen rule: it wins
    assert rule not in render_html(model) and "position: sticky" in render_html(model)


def numbers(text: str) -> Counter:
    return Counter(re.findall(r"\d+(?:\.\d+)?", text))


@needs("pdftotext")
def test_pdf_has_every_number_of_every_table_of_the_print_page(example):
    """Every number of every table cell of the print page (the main table's values, the p-values, the
    ranks) is in the PDF's text, as often as the tables show it: the PDF-only path keeps what the cells say."""
    import sigreport
    from sigreport.render.views import build_report

    model = build_report(sigreport.analyze(CONFIGS / "demsar.yaml"), figure_pdf=False)
    cells = re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", print_page(model).html, flags=re.S)
    shown = numbers(" ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", c)) for c in cells))
    assert shown["0.05"] and len(shown) > 20  # the tables are there to compare
    pdf = example("demsar") / "report.pdf"  # the build's own PDF (conftest: built in every format)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    missing = shown - numbers(text)
    assert not missing, missing
