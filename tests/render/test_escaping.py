"""Names with HTML and LaTeX special characters come out right in every format."""

from __future__ import annotations

import json
import subprocess

from hypothesis import given
from hypothesis import strategies as st

from conftest import needs, pdflatex_compile
from sigreport.render.format import Safe
from sigreport.render.latex import escape

SYS_A = "<script>alert(1)</script> & co"
SYS_B = "50% #1 $x$ a_b {c} \\ ~ ^"
METRIC = "f1_macro&%"
CORPUS = "dev~set^2 #3"


def _build(cli, workdir, formats="html,pdf,latex,json"):
    rows = ["system\tcorpus\titem\tmetric\tvalue"]
    for i, (a, b) in enumerate([(0.5, 0.4), (0.6, 0.45), (0.55, 0.5), (0.7, 0.52)]):
        rows.append(f"{SYS_A}\t{CORPUS}\ti{i}\t{METRIC}\t{a}")
        rows.append(f"{SYS_B}\t{CORPUS}\ti{i}\t{METRIC}\t{b}")
    workdir.write("scores.tsv", "\n".join(rows) + "\n")
    workdir.write("spec.yaml", f"""
        title: "Escaping <b>&</b> 100% $ # _ ~ ^ \\\\"
        data:
          scores: scores.tsv
        metrics:
          "{METRIC}":
            label: "F1 (macro) & <i>more</i> 5%"
            higher_is_better: true
        """)
    r = cli("build", "-q", "-o", workdir.path / "out", "--formats", formats, workdir.path / "spec.yaml")
    assert r.code == 0, r.err
    return workdir.path / "out"


def test_html_escapes(cli, workdir):
    out = _build(cli, workdir, "html,json")
    html = (out / "index.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    assert "<i>more</i>" not in html and "&lt;i&gt;more&lt;/i&gt;" in html
    doc = json.loads((out / "results.json").read_text())
    assert doc["systems"] == [SYS_A, SYS_B]
    assert doc["analyses"][1]["pairs"][0]["a"] == SYS_A


@needs("pdflatex")
@needs("pdftotext")
def test_latex_escapes_and_compiles(cli, workdir, tmp_path):
    out = _build(cli, workdir, "latex")
    body = "\n".join(t.read_text() for t in sorted((out / "tables").glob("*.tex")))
    r = pdflatex_compile(body, tmp_path)
    assert r.returncode == 0, r.stdout[-2000:]
    text = subprocess.run(["pdftotext", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True).stdout
    # pdftotext reads the text-mode tilde and circumflex accents as U+02DC and U+02C6.
    flat = " ".join(text.split()).replace("\u02dc", "~").replace("\u02c6", "^")
    assert "<script>alert(1)</script> & co" in flat
    assert "dev~set^2 #3" in flat
    # OT1 draws \_ as a rule that pdftotext reads as a space; the source must hold the escaped form.
    assert "50% #1 $x$ a b {c} \\ ~ ^" in flat
    assert r"50\% \#1 \$x\$ a\_b \{c\} \textbackslash{} \textasciitilde{} \textasciicircum{}" in body
    assert "F1 (macro) & <i>more</i> 5%" in flat


@needs("pdftotext")
def test_pdf_shows_names(cli, workdir):
    out = _build(cli, workdir, "pdf")
    text = subprocess.run(["pdftotext", str(out / "report.pdf"), "-"], capture_output=True, text=True).stdout
    assert "<script>alert(1)</script> & co" in " ".join(text.split())


@given(st.text(alphabet=st.sampled_from(list("\\~^&%$#_{}<>ab 1")), max_size=30))
def test_escape_leaves_no_unescaped_special(s):
    e = escape(s)
    stripped = (e.replace(r"\textbackslash{}", "").replace(r"\textasciitilde{}", "")
                .replace(r"\textasciicircum{}", "").replace(r"\textless{}", "").replace(r"\textgreater{}", ""))
    for ch in "&%$#_{}":
        stripped = stripped.replace("\\" + ch, "")
    assert not any(ch in stripped for ch in "\\~^&%$#_{}<>")
    assert escape(Safe(r"$\alpha$")) == r"$\alpha$"
