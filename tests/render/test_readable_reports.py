"""Reports people read: the p-value note, the baseline tag, sentences with verbs, the PDF's
first page and pages, figure fonts for names DejaVu Sans cannot draw.

One small build (four systems, one of them the baseline, one identical to it, two with CJK / Hangul
names; paired bootstrap) serves most tests; it is built once per module.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import types
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import ROOT
from sigreport.cli import main
from sigreport.render.figures.output import font_families, missing_glyphs, style
from sigreport.render.html import is_baseline
from sigreport.render.model import Text
from sigreport.render.views.scores import pair_sentence
from sigreport.render.views.settings import WHY_P_TEXT, WHY_P_TITLE, why_p_rows

HAN, HANGUL = "\u7cfb\u7edf\u7532", "\ud55c\uad6d\uc5b4"  # a Chinese and a Korean system name
# Values: 'base' and 'twin' are equal on every item (estimated difference zero); 'strong' is higher.
BASE = [0.40, 0.42, 0.38, 0.45, 0.41, 0.39, 0.44, 0.43, 0.37, 0.46, 0.40, 0.42]
SYSTEMS = {"base": BASE, "twin": BASE, HAN: [v + 0.01 * (i % 3 - 1) for i, v in enumerate(BASE)],
           HANGUL: [v + 0.10 for v in BASE]}
SPEC = """\
title: Reading test
seed: 3
data:
  scores: scores.csv
systems: [base, twin, {han}, {hangul}]
baseline: base
metrics:
  m:
    label: Score
    higher_is_better: true
tests:
  pairwise: bootstrap
  resamples: 999
  omnibus: none
"""


def write_case(folder: Path, spec: str = SPEC) -> Path:
    rows = ["system,corpus,item,metric,value"]
    rows += [f"{s},c,t{i},m,{v:.4f}" for s, vals in SYSTEMS.items() for i, v in enumerate(vals)]
    (folder / "scores.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    path = folder / "spec.yaml"
    path.write_text(spec.format(han=HAN, hangul=HANGUL), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reading")
    spec = write_case(folder)
    formats = "json,html,pdf" if shutil.which("pdftotext") else "json,html"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(["build", str(spec), "-o", str(folder / "out"), "--formats", formats, "--quiet", "--no-cache"])
    assert code == 0
    return types.SimpleNamespace(out=folder / "out", html=(folder / "out" / "index.html").read_text("utf-8"),
                                 warnings=[str(w.message) for w in caught])


class Collect(HTMLParser):
    """The text of every <li> of the per-analysis sentences and every conclusions <dd>."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[str] = []
        self._in = 0
        self._ul = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        cls = dict(attrs).get("class", "")
        if tag == "ul" and cls == "sentences":
            self._ul = True
        if (tag == "li" and self._ul) or tag == "dd":
            self.items.append("")
            self._in += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "ul":
            self._ul = False
        if tag in ("li", "dd") and self._in:
            self._in -= 1

    def handle_data(self, data: str) -> None:
        if self._in:
            self.items[-1] += data


# ------------------------------------------------------------------ why another tool's p differs


def test_why_p_paragraph_is_in_the_report_and_linked(built):
    html = built.html
    assert f'<tr id="why-p-values"><td>{WHY_P_TITLE}</td>' in html
    section = html[html.index('id="m-c"') if 'id="m-c"' in html else html.index("<h3>Pairwise"):]
    assert f'<a href="#why-p-values">{WHY_P_TITLE}</a>' in section
    assert "sacrebleu" in html and "centres the" in html
    assert not re.search(r'(href|src)="(https?:)?//', html)  # offline: no link to the network


def test_why_p_paragraph_only_for_resampling_tests():
    rec = lambda m: types.SimpleNamespace(kind="pairwise", method=m)  # noqa: E731
    assert why_p_rows(types.SimpleNamespace(records=[rec("paired_t"), rec("wilcoxon")])) == []
    for m in ("bootstrap", "bootstrap_t", "permutation"):
        assert why_p_rows(types.SimpleNamespace(records=[rec(m)])) == [(WHY_P_TITLE, WHY_P_TEXT)]


def test_why_p_numbers_are_the_calibration_tables():
    """The rates quoted in the report and in docs/methods.md are docs/calibration.md's (normal shape, n = 20, 50,
    100), as printed there; a new calibration run that changes them fails here."""
    doc = (ROOT / "docs" / "calibration.md").read_text()
    readme = (ROOT / "docs" / "methods.md").read_text()
    assert f"## {WHY_P_TITLE}" in readme
    for test in ("bootstrap", "bootstrap_t", "permutation"):
        rates = []
        for n in (20, 50, 100):
            block = doc.split(f"## Pairwise tests (system 0 vs 1), n = {n} items")[1].split("\n## ")[0]
            rates.append(re.search(rf"^\| {test} \| normal \| ([\d.]+) \|", block, re.M).group(1))
        text = " / ".join(rates)
        name = "bootstrap-t" if test == "bootstrap_t" else test
        assert f"{name} {text}" in WHY_P_TEXT, (test, text)
        assert f"{test} {text}" in " ".join(readme.split()), (test, text)  # docs/methods.md quotes them too


# ------------------------------------------------------------------ baseline tag


def test_baseline_is_tagged_in_the_html_tables(built):
    html = built.html
    main = html[html.index('<section id="main-results">'):html.index('<section id="settings">')]
    rows = re.findall(r"<tr[^>]*><td class=\"l\">([^<]*)(<span class=\"tag\">\(baseline\)</span>)?", main)
    tagged = [name.strip() for name, tag in rows if tag]
    assert len(tagged) == 1 and tagged[0].startswith("base"), rows
    assert html.count('<span class="tag">(baseline)</span>') >= 2  # main table and descriptives


@pytest.mark.parametrize("text, expected", [("base", True), ("base (a)", True), ("base vs twin", False),
                                            ("baseline", False), ("twin", False)])
def test_is_baseline(text, expected):
    assert is_baseline(Text(text), "base") is expected
    assert is_baseline(Text(text), None) is False


# ------------------------------------------------------------------ sentences have verbs

VERBS = re.compile(r"\b(is|are|has|have|differs?|do|does|could|puts|was|were|beats?|rejects?|follow|finds|share|separates)\b")


def test_every_sentence_in_the_report_has_a_verb(built):
    parser = Collect()
    parser.feed(built.html)
    assert len(parser.items) >= 7  # 6 pairs and the conclusions
    for line in parser.items:
        for sentence in re.split(r"(?<=\.) (?=[A-Z])", line.strip()):
            assert VERBS.search(sentence), sentence
    assert "the estimated difference is zero" in built.html  # base vs twin


def pair(**kw):
    base = dict(a="x", b="y", statistic=0.5, pvalue=0.4, pvalue_adjusted=0.8, estimate=0.0, significant=False,
                warnings=(), df=None, extra={"n_resamples": 999})
    return types.SimpleNamespace(**{**base, **kw})


@pytest.mark.parametrize("kw, phrase", [
    ({}, "the difference is not significant at \u03b1 = 0.05 after Holm (the estimated difference is zero)."),
    ({"estimate": -0.2}, "(the estimate puts x below y)."),
    ({"estimate": 0.3, "pvalue": 0.001, "pvalue_adjusted": 0.002, "significant": True},
     "; the difference is significant at \u03b1 = 0.05 after Holm."),
    ({"statistic": None, "pvalue": None, "warnings": ("fewer than 2 items",)},
     "x vs y on Score: the test could not be computed (fewer than 2 items)."),
])
def test_pair_sentence_reads_in_every_case(kw, phrase):
    r = types.SimpleNamespace(kind="pairwise", metric="m", correction="holm", alpha=0.05, method="bootstrap")
    lab = types.SimpleNamespace(metric=lambda m: "Score")
    sentence = pair_sentence(r, pair(**kw), lab)
    assert sentence.endswith(phrase), sentence
    assert VERBS.search(sentence), sentence


# ------------------------------------------------------------------ figures: fonts


def test_figure_names_without_glyphs_warn_once_in_the_report_not_on_stderr(built):
    assert not [w for w in built.warnings if "missing from font" in w]
    if "Droid Sans Fallback" not in font_families():
        pytest.skip("needs the Debian package fonts-droid-fallback (scripts/test installs it): a fallback font "
                    "with Chinese and without Korean glyphs")
    lost = missing_glyphs([HANGUL, HAN])
    if not lost:
        pytest.skip("an installed font has every glyph of the test names")
    assert lost == missing_glyphs([HANGUL])  # the Hangul name; the Chinese one is drawn by a fallback font
    if any(f != "DejaVu Sans" for f in font_families()):
        assert HAN[0] not in lost
    assert built.html.count("as boxes: no installed font has these characters") == 1
    assert " ".join(lost) in built.html


def test_fallback_font_figures_are_byte_identical():
    from sigreport.render.figures.output import export, new_figure

    def draw() -> tuple[str, bytes]:
        with style():
            fig = new_figure(3, 1.5)
            ax = fig.add_subplot()
            ax.set_yticks([0, 1], [HAN, HANGUL])
            out = export(fig, "fonts", "caption")
        return out.svg, out.pdf

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a glyph warning would fail here
        assert draw() == draw()


# ------------------------------------------------------------------ PDF


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="needs pdftotext")
def test_pdf_first_page_has_conclusions_main_table_and_figure(built):
    pdf = built.out / "report.pdf"
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-layout", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout
    assert "Conclusions" in first and "Main results" in first
    assert "Critical" in first or "Differences" in first or "differences" in first  # the key figure's caption
