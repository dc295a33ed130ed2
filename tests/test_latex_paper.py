"""LaTeX that fits and composes: every configs/ example's tables and figure snippets \\input into one
two-column paper (10pt article) and compiled with the real pdflatex, with no error and no overfull box
wider than 1pt; and the outputs.latex options (float, siunitx, pairwise, caption and label prefix).

Built once per module (formats json and latex only) and compiled once per module, so that the file
stays fast.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CONFIGS, GOOD_DATA, needs
from sigreport.cli import main
from sigreport.render.latex import COLUMN_WIDTH, TEXT_WIDTH, table_format

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
PREAMBLE = "\\usepackage{booktabs}\n\\usepackage{amsmath}\n\\usepackage{amssymb}\n\\usepackage{graphicx}\n"
FLOATS_PER_PAGE = 6  # \clearpage after this many inputs: LaTeX holds at most 18 unprocessed floats


def build(spec: Path, out: Path) -> None:
    code = main(["build", str(spec), "-o", str(out), "--formats", "json,latex"])
    assert code == 0, f"build of {spec.name} failed"


def paper_body(reports: dict[str, Path], work: Path) -> tuple[str, list[str]]:
    """\\input lines of every table and figure snippet of every report (copied under work/<name>/)."""
    lines, inputs = [], []
    for name, rep in reports.items():
        shutil.copytree(rep / "tables", work / name / "tables")
        if (rep / "figures").exists():
            shutil.copytree(rep / "figures", work / name / "figures")
        lines.append(f"\\section{{{name.replace('_', '-')}}}\\graphicspath{{{{{name}/}}}}")
        files = sorted((work / name / "tables").glob("*.tex")) + sorted((work / name / "figures").glob("*.tex"))
        for i, f in enumerate(files, 1):
            rel = f.relative_to(work).as_posix()
            inputs.append(rel)
            lines.append(f"\\input{{{rel}}}" + ("\n\\clearpage" if i % FLOATS_PER_PAGE == 0 else ""))
        lines.append("\\clearpage")
    return "\n".join(lines), inputs


def compile_paper(body: str, work: Path, preamble: str = PREAMBLE) -> tuple[int, str]:
    """pdflatex on a 10pt two-column article; (exit code, log)."""
    doc = "\\documentclass[10pt,twocolumn]{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"
    (work / "paper.tex").write_text(doc, encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=work,
                       capture_output=True, text=True, timeout=600)
    return r.returncode, (work / "paper.log").read_text(encoding="utf-8", errors="replace")


def errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("!")]


def overfull(log: str) -> list[float]:
    """Widths (pt) by which boxes are too wide, from pdflatex's 'Overfull \\hbox (12.3pt too wide)' lines."""
    return [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]


# -------------------------------------------------------------------------------------------- every example


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("reports")
    out = {}
    for name in EXAMPLES:
        build(CONFIGS / f"{name}.yaml", root / name)
        out[name] = root / name
    return out


@pytest.fixture(scope="module")
def paper(reports, tmp_path_factory) -> tuple[int, str, list[str]]:
    work = tmp_path_factory.mktemp("paper")
    body, inputs = paper_body(reports, work)
    code, log = compile_paper(body, work)
    return code, log, inputs


@needs("pdflatex")
def test_two_column_paper_compiles_without_error(paper):
    code, log, inputs = paper
    assert not errors(log), errors(log)[:5]
    assert code == 0
    for rel in inputs:  # every file was read
        assert f"./{rel}" in log.replace("\n", ""), rel


@needs("pdflatex")
def test_no_overfull_box_wider_than_1pt(paper):
    _, log, _ = paper
    too_wide = [w for w in overfull(log) if w > 1.0]
    assert not too_wide, f"{len(too_wide)} overfull boxes, widest {max(too_wide):.1f}pt"


@needs("pdflatex")
def test_paper_holds_every_table_and_figure(paper, reports):
    _, _, inputs = paper
    tables = sum(len(list((r / "tables").glob("*.tex"))) for r in reports.values())
    figures = sum(len(list((r / "figures").glob("*.tex"))) for r in reports.values() if (r / "figures").exists())
    assert len(inputs) == tables + figures and tables > 100 and figures > 30


def test_paper_dimensions_are_the_measured_ones(tmp_path):
    """The fit rule's widths are those of a 10pt two-column article (pdflatex's \\the\\columnwidth)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    _, log = compile_paper("\\typeout{COLW=\\the\\columnwidth}\\typeout{TEXTW=\\the\\textwidth}x", tmp_path)
    assert f"COLW={COLUMN_WIDTH}pt" in log and f"TEXTW={TEXT_WIDTH:.1f}pt" in log


def test_no_literal_underscore_in_latex(reports):
    """Notation in math mode, words in words: no escaped underscore in any table outside a spec key in
    typewriter type (\\texttt{tests.mauchly\\_p}) or a name from the data (lm-eval's task arc_easy)."""
    for name, rep in reports.items():
        results = json.loads((rep / "results.json").read_text(encoding="utf-8"))
        names = [*results["systems"], *(c for c in results["corpora"] if c), *results["metrics"],
                 *(m.get("label") or "" for m in results["metrics"].values())]
        escaped = sorted({n.replace("_", "\\_") for n in names if "_" in n}, key=len, reverse=True)
        for f in (rep / "tables").glob("*.tex"):
            text = re.sub(r"\\texttt\{[a-z0-9.\\_]+\}", "", f.read_text(encoding="utf-8"))
            for n in escaped:
                text = text.replace(n, "")
            assert "\\_" not in text, f"{name}/{f.name}: {text[text.index(chr(92) + '_') - 40:][:80]!r}"
    sphericity = (reports["summarization"] / "tables" / "rouge1--cnn-dm--sphericity.tex").read_text()
    assert "\\texttt{tests.mauchly\\_p}: r)" in sphericity


def test_notation_in_math_mode(reports):
    omnibus = (reports["demsar"] / "tables").glob("*omnibus.tex")
    text = "".join(f.read_text() for f in omnibus)
    assert r"Friedman $\chi^2_F$" in text and r"Iman-Davenport $F_F$" in text and r"Kendall's $W$" in text
    pairwise = (reports["summarizers"] / "tables" / "rouge1_recall--texts--pairwise.tex").read_text()
    assert r"$p_{\text{adj}}$" in pairwise and "$d_z$ = 3.68" in pairwise and " & $n$ & " in pairwise
    matrix = (reports["summarization"] / "tables" / "rouge1--cnn-dm--pairwise.tex").read_text()
    assert r"\textbf{\boldmath $2.4\times 10^{-12}$}" in matrix  # significant: bold, math included


def test_every_float_is_table_or_table_star_and_wide_tables_are_split(reports):
    kinds: dict[str, int] = {}
    for rep in reports.values():
        for f in (rep / "tables").glob("*.tex"):
            text = f.read_text()
            found = re.findall(r"\\begin\{(table\*?)\}", text)
            assert found, f.name
            for k in found:
                kinds[k] = kinds.get(k, 0) + 1
            n = len(found)
            if n > 1:  # parts say so in their captions
                assert f"(part {n} of {n})" in text
    assert kinds.get("table", 0) > 30 and kinds.get("table*", 0) > 30, kinds


def test_readme_is_plain_text_listing_every_file_and_package(reports):
    rep = reports["summarization"]
    readme = (rep / "tables" / "README.txt").read_text(encoding="utf-8")
    assert "\\_" not in readme and "\\textbackslash" not in readme
    for f in (rep / "tables").glob("*.tex"):
        assert f"  {f.name}: " in readme, f.name
    for f in (rep / "figures").glob("*.tex"):
        assert f"../figures/{f.name}: " in readme, f.name
    assert "Preamble: \\usepackage{amssymb, booktabs, graphicx}" in readme
    assert "pairwise.tex: table* (p-value matrix); booktabs" in readme
    assert "amsmath" in (reports["summarizers"] / "tables" / "README.txt").read_text()  # p_adj's \text
    assert "siunitx" not in readme.split("Tables (")[1]  # siunitx is off by default


def test_integers_as_integers(reports):
    """Counts (n, df, sign-test wins) without decimals."""
    text = (reports["uci"] / "tables" / "accuracy--all--posthoc.tex").read_text()
    assert ".000 &" not in text
    desc = (reports["summarization"] / "tables" / "rouge1--cnn-dm--descriptives.tex").read_text()
    assert re.search(r"\\\\\n\S+ & \d+ & ", desc), desc


# -------------------------------------------------------------------------------------------- options

THREE = GOOD_DATA + "C,c,t1,m,0.49\nC,c,t2,m,0.52\nC,c,t3,m,0.50\n"
SPEC = """\
title: t
data:
  scores: scores.csv
metrics:
  m:
    higher_is_better: true
tests:
  pairwise: paired_t
outputs:
  latex:
{options}
"""
VARIANTS = {
    "none": "    float: none",
    "star": "    float: table*",
    "siunitx": "    siunitx: true\n    pairwise: rows",
    "matrix": "    pairwise: matrix\n    caption_prefix: 'Exp. 1 & 2:'\n    label_prefix: 'sig:'",
    "rows": "    pairwise: rows",
}


@pytest.fixture(scope="module")
def variants(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("variants")
    (root / "scores.csv").write_text(THREE, encoding="utf-8")
    out = {}
    for name, opts in VARIANTS.items():
        spec = root / f"{name}.yaml"
        spec.write_text(SPEC.format(options=opts), encoding="utf-8")
        build(spec, root / name)
        out[name] = root / name / "tables"
    return out


@pytest.fixture(scope="module")
def variants_paper(variants, tmp_path_factory) -> tuple[int, str]:
    """Every variant's tables in one two-column paper with siunitx loaded (bare tabulars wrapped in table*, as
    their author would)."""
    work = tmp_path_factory.mktemp("variants-paper")
    lines = []
    for name, tables in variants.items():
        shutil.copytree(tables, work / name)
        wrap = ("\\begin{table*}\\centering\n", "\n\\end{table*}") if name == "none" else ("", "")
        lines += [f"{wrap[0]}\\input{{{name}/{f.name}}}{wrap[1]}" for f in sorted((work / name).glob("*.tex"))]
        lines.append("\\clearpage")
    return compile_paper("\n".join(lines), work, PREAMBLE + "\\usepackage{siunitx}\n")


def _all(tables: Path) -> str:
    return "\n".join(f.read_text(encoding="utf-8") for f in sorted(tables.glob("*.tex")))


@needs("pdflatex")
def test_variants_compile(variants_paper):
    code, log = variants_paper
    assert not errors(log), errors(log)[:5]
    assert code == 0 and not [w for w in overfull(log) if w > 1.0]


def test_float_none_is_bare_tabular(variants):
    text = _all(variants["none"])
    assert "\\begin{table" not in text and "\\caption" not in text and "\\begin{tabular}" in text


def test_float_table_star_when_asked(variants):
    text = _all(variants["star"])
    assert re.findall(r"\\begin\{(table\*?)\}", text) and set(re.findall(r"\\begin\{(table\*?)\}", text)) == {"table*"}


def test_siunitx_s_columns(variants):
    text = _all(variants["siunitx"])
    assert "S[table-format=" in text and "siunitx" in text.splitlines()[0]
    assert "siunitx" in (variants["siunitx"] / "README.txt").read_text()
    assert "S[table-format=" not in _all(variants["rows"])


def test_table_format_holds_every_number():
    assert table_format(["0.123", "-12.5", "3"]) == "-2.3"
    assert table_format(["1.9e-9", "0.04277", "1"]) == "1.5e-1"
    assert table_format(["21", "0"]) == "2.0"


def test_pairwise_matrix_is_k_by_k(variants):
    text = (variants["matrix"] / "m--c--pairwise.tex").read_text()
    assert "\\begin{tabular}{@{}lrrr@{}}" in text  # a row-label column and k = 3 system columns
    body = text.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    assert [row.split(" & ")[0] for row in body] == ["A", "B", "C"]
    assert all(row.count(" & ") == 3 for row in body)
    assert body[0].split(" & ")[1] == "---"  # the diagonal
    rows = (variants["rows"] / "m--c--pairwise.tex").read_text()
    assert "A vs B" in rows and "A vs B" not in text


def test_caption_and_label_prefix(variants):
    text = _all(variants["matrix"])
    assert "\\caption{Exp. 1 \\& 2:" in text and "\\label{sig:m--c--pairwise}" in text
    assert "\\label{tab:" not in text
    assert "\\label{tab:m--c--pairwise}" in _all(variants["rows"])


@pytest.mark.parametrize("option, value, field", [
    ("float", "wide", "outputs.latex.float"),
    ("pairwise", "columns", "outputs.latex.pairwise"),
    ("siunitx", "'yes'", "outputs.latex.siunitx"),
    ("unknown", "1", "outputs.latex.unknown"),
    ("label_prefix", "'a b'", "outputs.latex.label_prefix"),
])
def test_bad_latex_option_is_a_user_error(cli, workdir, option, value, field):
    workdir.write("scores.csv", THREE)
    spec = workdir.write("s.yaml", SPEC.format(options=f"    {option}: {value}"))
    r = cli("validate", spec)
    assert r.code == 2 and "Traceback" not in r.err
    assert field in r.err and "line 11" in r.err, r.err
