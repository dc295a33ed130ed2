"""Names with HTML and LaTeX special characters come out right in every format."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess

from hypothesis import given
from hypothesis import strategies as st

from conftest import build_files, cli_build, needs, pdflatex_compile
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
    # cli_build, not build_files: results.json is written only with json among the formats, and some tests
    # build pdf alone
    cli_build(workdir.path / "spec.yaml", workdir.path / "out", formats=formats, cli=cli)
    return workdir.path / "out"


def test_html_escapes(cli, workdir):
    out = _build(cli, workdir, "html,json")
    html = (out / "index.html").read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    assert html.count("<script>") <= 1  # sigreport's own inline script (sortable tables), never a name's
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


# ---- Markdown (main.md, methods.md) and CSV (main.csv): names shown literally, never run ----

MD_IMG = "<img src=x onerror=alert(1)>"
MD_LINK = "[l](javascript:alert(1))"
FORMULA = '=HYPERLINK("http://x","y")'


def live_markup(md: str) -> list[str]:
    """HTML tags and link targets a Markdown renderer would make of ``md``, backslash escapes removed first
    (no Markdown renderer is installed: an escaped ``\\<`` or ``\\[`` is literal text in CommonMark)."""
    return re.findall(r"<(?:img|script|a)\b|\]\(|<javascript:", re.sub(r"\\.", "", md))


def _build_names(cli, workdir):
    rows = ["system\tcorpus\titem\tmetric\tvalue"]
    for i, (a, b, c) in enumerate([(-0.5, -0.4, -0.3), (-0.6, -0.45, -0.2), (-0.55, -0.5, -0.35), (-0.7, -0.52, -0.1)]):
        rows += [f"{MD_IMG}\tdev\ti{i}\tm\t{a}", f"{MD_LINK}\tdev\ti{i}\tm\t{b}", f"{FORMULA}\tdev\ti{i}\tm\t{c}"]
    build_files(cli, workdir, """
        title: t
        data:
          scores: scores.tsv
        metrics:
          m:
            label: "@SUM(1) <img src=y onerror=alert(2)>"
            higher_is_better: true
        """, {"scores.tsv": "\n".join(rows) + "\n"}, formats="html,json")
    return workdir.path / "out"


def test_markdown_outputs_show_names_literally(cli, workdir):
    out = _build_names(cli, workdir)
    for name in ("main.md", "methods.md"):
        md = (out / name).read_text(encoding="utf-8")
        assert not live_markup(md), (name, live_markup(md), md)
        assert "\\<img src=x onerror=alert(1)>" in md and "\\[l\\](javascript:alert(1))" in md, md
    assert live_markup("<img src=x> [l](javascript:x)") == ["<img", "]("]  # the check itself sees markup


def test_main_csv_quotes_formulas_but_not_numbers(cli, workdir):
    out = _build_names(cli, workdir)
    rows = list(csv.reader(io.StringIO((out / "main.csv").read_text(encoding="utf-8"))))
    assert rows[0][1] == "Rank (UB)" and rows[0][2] == "'@SUM(1) <img src=y onerror=alert(2)> \u2191 \u2014 dev", \
        rows[0]  # the Rank (UB) column (three systems) is one number, then each value column with its marks
    assert all(r[1].isdigit() for r in rows[1:])
    systems = {r[0]: r[2] for r in rows[1:]}
    # the means of the scores above: (-0.3 - 0.2 - 0.35 - 0.1) / 4 and (-0.5 - 0.6 - 0.55 - 0.7) / 4
    # (no cell has a significance letter with four items, so the names carry none: issue 32 item 7)
    assert systems[f"'{FORMULA}"] == "-0.2375" and systems[MD_IMG] == "-0.5875", systems
    assert all(not v.startswith("'") for v in systems.values())


@given(st.text(alphabet=st.sampled_from(list("\\`*_[]<>|#()!:=ab \n\x1b")), max_size=30))
def test_markdown_text_leaves_no_markup_and_keeps_the_text(s):
    from sigreport.escaping import clean, markdown_text

    e = markdown_text(s)
    assert not live_markup(e) and "\n" not in e and "\x1b" not in e
    assert re.sub(r"\\(.)", r"\1", e) == clean(s)  # unescaped by a renderer, it reads as the name


def test_csv_safe_quotes_formula_starts_only():
    from sigreport.escaping import csv_safe

    assert [csv_safe(s) for s in ("=1+1", "+A", "-cmd", "@SUM(A1)", "\tx", "\rx")] == \
        ["'=1+1", "'+A", "'-cmd", "'@SUM(A1)", "'\tx", "'\rx"]
    assert [csv_safe(s) for s in ("-0.12", "+3", "-1e-05", "A=B", "", "'x")] == ["-0.12", "+3", "-1e-05", "A=B", "", "'x"]
