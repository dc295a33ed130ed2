"""LaTeX that fits and composes: every configs/ example's tables and figure snippets \\input into one
two-column paper (10pt article) and compiled with the real pdflatex, with no error and no overfull box
wider than 1pt; and the outputs.latex options (float, siunitx, pairwise, caption and label prefix).

The examples as built once per session (conftest's ``example``), each page preset's builds sharing one
analysis cache with them, and every paper compiled once per module, so that the file stays fast.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest
import yaml

from conftest import CONFIGS, GOLDEN, GOOD_DATA, cli_build, needs, page_param
from sigreport.render.latex import COLUMN_WIDTH, TEXT_WIDTH, table_format

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))
# the height of every float, as LaTeX boxed it (\\@endfloatbox ends the box of table, table*, figure, figure*),
# and the page's \\textheight, typed into the log: no float may be taller (LaTeX would warn "Float too large")
FLOAT_HEIGHTS = ("\\usepackage{etoolbox}\\makeatletter\\apptocmd{\\@endfloatbox}{\\typeout{FLOATH=\\the\\dimexpr"
                 "\\ht\\@currbox+\\dp\\@currbox\\relax}}{}{\\errmessage{no \\string\\@endfloatbox}}\\makeatother\n"
                 "\\AtBeginDocument{\\typeout{TEXTHEIGHT=\\the\\textheight}}\n")
PREAMBLE = ("\\usepackage{booktabs}\n\\usepackage{amsmath}\n\\usepackage{amssymb}\n\\usepackage{graphicx}\n"
            + FLOAT_HEIGHTS)
FLOATS_PER_PAGE = 6  # \clearpage after this many inputs: LaTeX holds at most 18 unprocessed floats


# The hidden papers of each page preset: the real class where TeX Live has it (IEEEtran, llncs from
# texlive-publishers), the documented geometry otherwise (ACL: acl.sty's 11pt A4 page with 2.5 cm margins and a
# 0.6 cm column gap, Times in T1; NeurIPS: a 5.5 x 9 inch block of 10pt Times); both styles load natbib (the
# methods paragraph's \\citep).
CLASSES = {
    "article10": "\\documentclass[10pt,twocolumn]{article}\n",
    "acl": "\\documentclass[11pt,twocolumn]{article}\n\\usepackage[a4paper,margin=2.5cm]{geometry}\n"
           "\\setlength\\columnsep{0.6cm}\n\\usepackage{times}\n\\usepackage[T1]{fontenc}\n"
           "\\usepackage{natbib}\n",
    "ieee": "\\documentclass[conference]{IEEEtran}\n",
    "neurips": "\\documentclass[10pt]{article}\n\\usepackage[letterpaper,textwidth=5.5in,textheight=9in]{geometry}\n"
               "\\usepackage{times}\n\\usepackage{natbib}\n",
    "lncs": "\\documentclass{llncs}\n",
}
CLASS_FILES = {"ieee": "IEEEtran.cls", "lncs": "llncs.cls"}


# The analysis cache of the session's example builds (conftest's ``example``: the default cache beside each
# spec): the page presets' and variants' builds of the same data reuse its analyses and only render again.
SHARED_CACHE = CONFIGS / ".sigreport-cache"


def build(spec: Path, out: Path, formats: str = "json,latex") -> None:
    cli_build(spec, out, "--cache", SHARED_CACHE, formats=formats)  # fails with the build's message


def spec_for_page(name: str, page: str, work: Path) -> Path:
    """The example's spec with outputs.latex.page set, in ``work`` (beside a link to the examples' data)."""
    doc = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text(encoding="utf-8"))
    doc.setdefault("outputs", {}).setdefault("latex", {})["page"] = page
    if not (work / "data").exists():
        (work / "data").symlink_to(CONFIGS / "data")
    out = work / f"{name}.yaml"
    out.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return out


def paper_body(reports: dict[str, Path], work: Path) -> tuple[str, list[str]]:
    """\\input lines of every table and figure snippet of every report (copied under work/<name>/)."""
    lines, inputs = [], []
    for name, rep in reports.items():
        shutil.copytree(rep / "tables", work / name / "tables")
        if (rep / "figures").exists():
            shutil.copytree(rep / "figures", work / name / "figures")
        # the report folder is not beside the paper: the snippets find their PDFs through \\sigreportdir
        lines.append(f"\\section{{{name.replace('_', '-')}}}\\providecommand{{\\sigreportdir}}{{}}"
                     f"\\renewcommand{{\\sigreportdir}}{{{name}}}")
        files = sorted((work / name / "tables").glob("*.tex")) + sorted((work / name / "figures").glob("*.tex"))
        for i, f in enumerate(files, 1):
            rel = f.relative_to(work).as_posix()
            inputs.append(rel)
            lines.append(f"\\input{{{rel}}}" + ("\n\\clearpage" if i % FLOATS_PER_PAGE == 0 else ""))
        lines.append("\\clearpage")
    return "\n".join(lines), inputs


def compile_paper(body: str, work: Path, preamble: str = PREAMBLE, page: str = "article10") -> tuple[int, str]:
    """pdflatex on the paper of ``page`` (a 10pt two-column article by default); (exit code, log)."""
    doc = CLASSES[page] + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"
    (work / "paper.tex").write_text(doc, encoding="utf-8")
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=work,
                       capture_output=True, text=True, timeout=600)
    return r.returncode, (work / "paper.log").read_text(encoding="utf-8", errors="replace")


def errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("!")]


def float_heights(log: str) -> tuple[float, list[float]]:
    """The page's \\textheight and every float's height (box height plus depth, pt), from the log lines of
    :data:`FLOAT_HEIGHTS`."""
    log = log.replace("\n", "")  # a long line of the log is broken at 79 characters
    text = float(re.search(r"TEXTHEIGHT=([\d.]+)pt", log).group(1))
    return text, [float(x) for x in re.findall(r"FLOATH=([\d.]+)pt", log)]


def check_float_heights(log: str, page: str) -> None:
    """No float taller than the text block: every float's box as LaTeX built it, and no "Float too large"."""
    text, heights = float_heights(log)
    assert len(heights) > 200, (page, len(heights))  # every table and figure of every example
    assert max(heights) <= text, (page, max(heights), text, sum(h > text for h in heights))
    assert "Float too large" not in log, page


def overfull(log: str) -> list[float]:
    """Widths (pt) by which boxes are too wide, from pdflatex's 'Overfull \\hbox (12.3pt too wide)' lines."""
    return [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]


# -------------------------------------------------------------------------------------------- every example


@pytest.fixture(scope="module")
def reports(example) -> dict[str, Path]:
    """Every example as built once per session in every format (read-only; paper_body copies what it inputs)."""
    return {name: example(name) for name in EXAMPLES}


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
    assert "multiply defined" not in log  # six reports in one paper: every label is the report's own


@needs("pdflatex")
def test_no_overfull_box_wider_than_1pt(paper):
    _, log, _ = paper
    too_wide = [w for w in overfull(log) if w > 1.0]
    assert not too_wide, f"{len(too_wide)} overfull boxes, widest {max(too_wide):.1f}pt"


@needs("pdflatex")
def test_no_float_taller_than_the_text_block(paper):
    _, log, _ = paper
    check_float_heights(log, "article10")


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
    # the note says in words which p chose the correction, without the spec key (issue 32 item 7)
    assert "chosen by p (R)." in sphericity and "mauchly" not in sphericity  # (not "mauchly_p" nor "mauchly.test")


def test_notation_in_math_mode(reports):
    omnibus = (reports["demsar"] / "tables").glob("*omnibus.tex")
    text = "".join(f.read_text() for f in omnibus)
    assert r"Friedman $\chi^2_F$" in text and r"Iman-Davenport $F_F$" in text and r"Kendall's $W$" in text
    pairwise = (reports["summarizers"] / "tables" / "rouge1_recall--texts--pairwise.tex").read_text()
    assert "a vs b & a $-$ b [95\\% CI] & $p_{\\text{adj}}$ & Better \\\\" in pairwise
    differences = (reports["summarizers"] / "tables" / "rouge1_recall--texts--pairwise-differences.tex").read_text()
    assert "$d_z$" in differences and "3.68 [" in differences
    pairs = (reports["summarization"] / "tables" / "rouge1--cnn-dm--pairwise.tex").read_text()
    assert r"\textbf{\boldmath $2.4\times 10^{-12}$}" in pairs  # significant: bold, math included


def test_every_float_is_table_or_table_star_and_only_long_tables_split(reports):
    """One float per table file: a table too wide for the page is set as panels of that float; only a table
    of more than 40 rows (a page) is split into floats, each saying so in its caption."""
    kinds: dict[str, int] = {}
    panels = 0
    for rep in reports.values():
        for f in (rep / "tables").glob("*.tex"):
            if f.name == "methods.tex":  # a paragraph, no float
                continue
            text = f.read_text()
            found = re.findall(r"\\begin\{(table\*?)\}", text)
            assert found, f.name
            for k in found:
                kinds[k] = kinds.get(k, 0) + 1
            n = len(found)
            rows = sum(len(block.split("\\midrule\n")[1].splitlines()) for block in text.split("\\bottomrule")[:-1])
            panels += max(0, text.count("\\begin{tabular}{@{}") - n)
            if n > 1:  # parts say so in their captions
                assert f"(part {n} of {n})" in text and rows > 40, f.name
    assert kinds.get("table", 0) > 20 and kinds.get("table*", 0) > 30, kinds
    assert panels > 5  # the examples' widest tables are panels of one float


def test_readme_is_plain_text_listing_every_file_and_package(reports):
    rep = reports["summarization"]
    readme = (rep / "tables" / "README.txt").read_text(encoding="utf-8")
    assert "\\_" not in readme and "\\textbackslash" not in readme
    for f in (rep / "tables").glob("*.tex"):
        assert f"  {f.name}: " in readme, f.name
    for f in (rep / "figures").glob("*.tex"):
        assert f"../figures/{f.name}: " in readme, f.name
    assert "Preamble: \\usepackage{amsmath, amssymb, booktabs, graphicx}" in readme
    assert "pairwise.tex: table* (pairs with estimates); booktabs, amsmath" in readme
    assert "amsmath" in (reports["summarizers"] / "tables" / "README.txt").read_text()  # p_adj's \text
    assert "siunitx" not in readme.split("Tables (")[1]  # siunitx is off by default


def test_integers_as_integers(reports):
    """Counts (n, df, sign-test wins) without decimals."""
    text = (reports["uci"] / "tables" / "accuracy--all--posthoc.tex").read_text()
    assert ".000 &" not in text
    desc = (reports["summarization"] / "tables" / "rouge1--cnn-dm--descriptives.tex").read_text()
    assert re.search(r"\\\\\n\S+ & \d+ & ", desc), desc


# -------------------------------------------------------------------------------------------- page presets


@pytest.fixture(scope="module", params=[page_param(p) for p in CLASSES if p != "article10"])
def preset_paper(request, page_builds, tmp_path_factory) -> tuple[str, int, str, dict[str, Path]]:
    """Every example built for one page preset (conftest's ``page_builds``, shared with the figure tests of
    that page) and compiled in that page's paper: (preset, exit code, log, reports)."""
    page = request.param
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    if page in CLASS_FILES and not subprocess.run(["kpsewhich", CLASS_FILES[page]], capture_output=True,
                                                 text=True).stdout.strip():
        pytest.skip(f"{CLASS_FILES[page]} is not installed (Debian: texlive-publishers)")
    reports = page_builds(page)
    work = tmp_path_factory.mktemp(f"paper-{page}")
    body, _ = paper_body(reports, work)
    code, log = compile_paper(body, work, page=page)
    return page, code, log, reports


def test_every_preset_paper_compiles_without_overfull_boxes(preset_paper):
    page, code, log, _ = preset_paper
    assert not errors(log), (page, errors(log)[:5])
    assert code == 0
    too_wide = [w for w in overfull(log) if w > 1.0]
    assert not too_wide, f"{page}: {len(too_wide)} overfull boxes, widest {max(too_wide):.1f}pt"


def test_every_preset_paper_has_no_float_taller_than_the_text_block(preset_paper):
    page, _, log, reports = preset_paper
    check_float_heights(log, page)
    if page == "lncs":  # four stacked panels of 10 pairs would be 91pt too tall: two floats of two panels each
        text = (reports["summarization"] / "tables" / "rouge1--cnn-dm--pairwise-differences.tex").read_text()
        floats = text.split("\\end{table}")[:-1]
        assert [f.count("\\begin{tabular}") for f in floats] == [2, 2]
        assert "(part 1 of 2)" in floats[0] and "(part 2 of 2)" in floats[1]
        assert all("Shapiro-Wilk" in f for f in floats)  # the notes under each part (its columns differ)


FAMILY_FILES = ("*--pairwise.tex", "*--posthoc.tex", "*--mcnemar.tex", "*--cv-*.tex")


def check_pairwise_families(reports: dict[str, Path], page: str) -> None:
    """Every pairwise family of every example is one float showing, per pair, the estimate (with its interval
    where the test gives one), the adjusted p-value and the better system."""
    seen = 0
    for name, rep in reports.items():
        for pattern in FAMILY_FILES:
            for f in (rep / "tables").glob(pattern):
                text = f.read_text(encoding="utf-8")
                assert len(re.findall(r"\\begin\{table\*?\}", text)) == 1, (page, name, f.name)
                assert "& $p_{\\text{adj}}$ & Better \\\\" in text and " vs " in text, (page, name, f.name)
                assert "CI]" in text or "5x2cv_f" in f.name or "posthoc" in f.name or "mcnemar" in f.name, f.name
                assert "HTML" not in text
                seen += 1
    assert seen >= 20, seen


def test_pairwise_families_for_a_paper(reports):
    check_pairwise_families(reports, "article10")


def test_every_preset_sets_pairwise_families_for_a_paper(preset_paper):
    page, _, _, reports = preset_paper
    check_pairwise_families(reports, page)


@pytest.fixture(scope="module")
def rows_reports(tmp_path_factory) -> dict[str, Path]:
    """summarization (10 pairs per family) and summarizers (one pair) with outputs.latex.pairwise: rows."""
    root = tmp_path_factory.mktemp("rows")
    out = {}
    for name in ("summarization", "summarizers"):
        spec = spec_for_page(name, "article10", root)
        doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
        doc["outputs"]["latex"]["pairwise"] = "rows"
        spec.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        build(spec, root / name, "latex")
        out[name] = root / name
    return out


def test_pairwise_rows_are_one_float(rows_reports, tmp_path):
    """pairwise: rows keeps every statistic: a 10-pair family's 12 columns as panels of ONE float, a one-pair
    family turned on its side (one row per statistic) in one column; and they compile without overfull boxes."""
    for rep in rows_reports.values():
        for f in (rep / "tables").glob("*--pairwise.tex"):
            text = f.read_text(encoding="utf-8")
            assert len(re.findall(r"\\begin\{table\*?\}", text)) == 1 and "part 1 of" not in text, f.name
            assert "crit" in text
    wide = (rows_reports["summarization"] / "tables" / "rouge1--cnn-dm--pairwise.tex").read_text(encoding="utf-8")
    assert wide.count("\\begin{tabular}{@{}") >= 2  # panels
    one = (rows_reports["summarizers"] / "tables" / "rouge1_recall--texts--pairwise.tex").read_text(encoding="utf-8")
    assert "\\begin{table}[tbp]" in one and "\\begin{tabular}{@{}ll@{}}" in one and "\n$p$ & 0.02370 \\\\" in one
    if shutil.which("pdflatex") is None:
        return
    body, _ = paper_body(rows_reports, tmp_path)
    code, log = compile_paper(body, tmp_path)
    assert code == 0 and not errors(log) and not [w for w in overfull(log) if w > 1.0]


def test_every_preset_sets_each_main_table_in_one_float(preset_paper):
    page, _, _, reports = preset_paper
    for name, rep in reports.items():
        for f in (rep / "tables").glob("main*.tex"):
            floats = re.findall(r"\\begin\{(table\*?)\}", f.read_text(encoding="utf-8"))
            assert len(floats) == 1, (page, name, f.name, floats)


def pdf_text_sizes(pdf: bytes) -> tuple[float, list[float]]:
    """A matplotlib PDF's width in pt (its MediaBox) and the size in pt of every text it sets (``Tf``), read
    from its (deflated) content streams."""
    width = float(re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) [\d.]+\s*\]", pdf).group(1))
    sizes = []
    for m in re.finditer(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        try:
            data = zlib.decompress(m.group(1))
        except zlib.error:
            data = m.group(1)
        sizes += [float(x) for x in re.findall(rb"/F\d+ ([\d.]+) Tf", data)]
    return width, sizes


def printed_sizes(report: Path, page: str) -> dict[str, tuple[float, float]]:
    """Each figure's smallest and largest text size in pt as printed: its PDF included at the width its
    snippet asks for (the page's \\columnwidth or \\textwidth)."""
    from sigreport.render.pages import preset

    pg = preset(page)
    out = {}
    for tex in (report / "figures").glob("*.tex"):
        target = pg.textwidth if "figure*" in tex.read_text(encoding="utf-8") else pg.columnwidth
        width, sizes = pdf_text_sizes((report / "figures" / f"{tex.stem}.pdf").read_bytes())
        assert sizes, tex.name
        out[tex.stem] = (min(sizes) * target / width, max(sizes) * target / width)
    return out


def check_figure_text(reports: dict[str, Path], page: str) -> None:
    """Every figure's text prints at 8pt or more and at most a point from the paper's body size (a 10pt
    paper: 8-9pt tick labels and 9pt labels), measured from the PDFs."""
    from sigreport.render.pages import preset

    body = preset(page).fontsize
    for name, rep in reports.items():
        for fig, (lo, hi) in printed_sizes(rep, page).items():
            assert lo >= 8.0 - 0.05, (page, name, fig, lo)
            assert body - 2.1 <= hi <= body + 0.05, (page, name, fig, hi)


def test_figure_text_prints_at_the_paper_size(reports):
    check_figure_text(reports, "article10")
    sizes = printed_sizes(reports["demsar"], "article10")
    assert sizes["cd-auc-all-posthoc"][1] == pytest.approx(9.0, abs=0.05)  # a 10pt paper's labels: 9pt


def test_figure_text_prints_at_each_preset_size(preset_paper):
    page, _, _, reports = preset_paper
    check_figure_text(reports, page)


# -------------------------------------------------------------------------------------------- methods paragraph


@needs("pdflatex")
@needs("bibtex")
@pytest.mark.parametrize("name", ["summarization", "classifiers", "uci", "cv_5x2", "mt"])
def test_methods_paragraph_compiles_with_its_bibliography(reports, name, tmp_path):
    """tables/methods.tex \\input into a paper with tables/references.bib: pdflatex, bibtex, pdflatex twice give no
    error, no undefined citation and no BibTeX warning; every cited key has its entry; the paragraph names the
    test, the correction, alpha, the software and, where a test is random, the seed."""
    tables = reports[name] / "tables"
    text = (tables / "methods.tex").read_text(encoding="utf-8")
    keys = {k for group in re.findall(r"\\cite\{([^}]*)\}", text) for k in group.split(",")}
    bib = (tables / "references.bib").read_text(encoding="utf-8")
    assert keys and keys <= set(re.findall(r"@\w+\{([^,]+),", bib))  # every work sigreport cites (test_bibliography)
    shutil.copy(tables / "methods.tex", tmp_path / "methods.tex")
    shutil.copy(tables / "references.bib", tmp_path / "references.bib")
    body = "\\section{Methods}\n\\input{methods.tex}\n\\bibliographystyle{plain}\n\\bibliography{references}\n"
    compile_paper(body, tmp_path)
    bibtex = subprocess.run(["bibtex", "paper"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert bibtex.returncode == 0 and "Warning" not in bibtex.stdout, bibtex.stdout
    compile_paper(body, tmp_path)
    code, log = compile_paper(body, tmp_path)
    assert code == 0 and not errors(log), errors(log)[:3]
    assert "undefined" not in log and not [w for w in overfull(log) if w > 1.0]
    assert "Holm" in text and "$\\alpha$ = 0.05" in text and "sigreport" in text
    # the seed where something drew random numbers: bootstrap (classifiers, mt), the sign test's simulated MDE (uci)
    assert ("seed" in text) == (name in ("classifiers", "uci", "mt")), name


def test_methods_paragraph_in_html_and_markdown(reports):
    """The same paragraph, citations as (Author Year), in methods.md and under Statistical choices."""
    from sigreport.render.views.methods import REFERENCES

    md = (reports["demsar"] / "methods.md").read_text(encoding="utf-8")
    assert "(Friedman 1937)" in md and "Nemenyi" in md and REFERENCES["demsar2006"][1] in md
    assert "the conclusions follow the Nemenyi test after the omnibus test" in md
    html = (GOLDEN / "demsar" / "index.html").read_text(encoding="utf-8")  # as built
    settings = html.split('<section id="settings">')[1].split("</section>")[0]
    assert "Methods paragraph" in settings and "(Friedman 1937)" in settings and "Nemenyi, Peter" not in settings


REPEATED_CITATION = re.compile(r"\(([^()]+)\)\s*\(\1\)")


def repeated_citations(text: str) -> list[str]:
    """Parenthetical citations written twice back to back: "(Rubin 1981) (Rubin 1981)"."""
    return REPEATED_CITATION.findall(text)


@pytest.mark.parametrize("name", sorted(p.stem for p in CONFIGS.glob("*.yaml")))
def test_methods_paragraph_cites_each_work_once_per_place(name):
    """Every example's paragraph, as its results.json (the golden one, as built) reads back."""
    from sigreport.render.views.methods import methods
    from sigreport.results import from_json
    from sigreport.results.decisions import decide

    results = from_json((GOLDEN / name / "results.json").read_text(encoding="utf-8"))
    text = methods(results, decide(results)).plain()
    assert not repeated_citations(text), (name, repeated_citations(text), text)


@pytest.mark.parametrize("model", ["signed_rank", "bayesian_bootstrap"])
def test_methods_paragraph_cites_the_bayesian_test_once(cli, workdir, model):
    """No example has a Bayesian analysis: one is built here (and the record's method switched to the
    correlated t test, which needs cross-validation folds, for the third name)."""
    import dataclasses

    from sigreport.render.views.methods import REFERENCES, methods
    from sigreport.results import from_json
    from sigreport.results.decisions import decide

    rows = ["system,corpus,item,metric,value"] + [f"{s},c,i{i},m,{v + 0.02 * i % 0.07:.3f}" for i in range(12)
                                                  for s, v in (("A", 0.5), ("B", 0.47))]
    workdir.write("s.csv", "\n".join(rows) + "\n")
    workdir.write("spec.yaml", f"""
        title: t
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: true}}}}
        tests:
          bayesian: {{model: {model}, rope: {{m: 0.01}}}}
        """)
    cli_build(workdir.path / "spec.yaml", workdir.path / "out", formats="json")
    results = from_json((workdir.path / "out" / "results.json").read_text(encoding="utf-8"))
    for method, cite in ((model, {"signed_rank": "benavoli2017", "bayesian_bootstrap": "rubin1981"}[model]),
                         ("correlated_t", "corani2015")):
        records = tuple(dataclasses.replace(r, method=method) if r.kind == "bayesian" else r for r in results)
        changed = dataclasses.replace(results, records=records)
        text = methods(changed, decide(changed)).plain()
        assert not repeated_citations(text) and text.count(f"({REFERENCES[cite][0]})") == 1, text
    assert repeated_citations("the test (Rubin 1981) (Rubin 1981) and") == ["Rubin 1981"]  # the check sees one


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
    "figstyle": "    page: ieee\n  figure_style:\n    width: text\n    font: sans\n    font_size: 10",
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
        if name == "figstyle":  # set for IEEEtran's page: test_figure_style_option
            continue
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


def test_figure_style_option(variants):
    """outputs.figure_style: width text (figure* at the page's \\textwidth), the sans font, 10pt text: the
    figures are drawn 516pt wide (IEEEtran's \\textwidth) and print their text at 10pt (9pt small text)."""
    figures = variants["figstyle"].parent / "figures"
    snippets = sorted(figures.glob("*.tex"))
    assert snippets and all("\\begin{figure*}" in f.read_text() for f in snippets)
    for f in snippets:
        width, sizes = pdf_text_sizes((figures / f"{f.stem}.pdf").read_bytes())
        assert width == pytest.approx(516.0, abs=0.01) and max(sizes) == 10.0 and min(sizes) == 9.0, f.name
        assert b"DejaVuSans" in (figures / f"{f.stem}.pdf").read_bytes() and b"CMR10" not in (
            figures / f"{f.stem}.pdf").read_bytes().upper()
    assert "10pt" in (figures / "README.txt").read_text()


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


def test_pairwise_matrix_is_a_lower_triangle(variants):
    """pairwise: matrix writes the k - 1 x k - 1 lower triangle: every pair once, its adjusted p-value with the
    sign of the difference row - column; rows: one row per pair with every statistic."""
    text = (variants["matrix"] / "m--c--pairwise.tex").read_text()
    assert "\\begin{tabular}{@{}lrr@{}}" in text  # a row-label column and k - 1 = 2 system columns
    assert " & A & B \\\\" in text
    body = text.split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
    assert [row.split(" & ")[0] for row in body] == ["B", "C"]
    assert body[0].endswith("&  \\\\")  # B against B: the upper triangle is empty
    assert all(re.search(r"0\.\d{3}\\textsuperscript\{(\+|\$-\$)\}", c) for row in body
               for c in row.rstrip(" \\").split(" & ")[1:] if c.strip())
    rows = (variants["rows"] / "m--c--pairwise.tex").read_text()
    assert "A vs B" in rows and "A vs B" not in text and "crit" in rows


def test_caption_and_label_prefix(variants):
    text = _all(variants["matrix"])
    assert "\\caption{Exp. 1 \\& 2:" in text and "\\label{sig:m--c--pairwise}" in text
    assert "\\label{tab:" not in text
    assert "\\label{tab:rows-m--c--pairwise}" in _all(variants["rows"])  # the report's name: its spec's (rows.yaml)


@pytest.mark.parametrize("option, value, field", [
    ("float", "wide", "outputs.latex.float"),
    ("pairwise", "columns", "outputs.latex.pairwise"),
    ("siunitx", "'yes'", "outputs.latex.siunitx"),
    ("unknown", "1", "outputs.latex.unknown"),
    ("label_prefix", "'a b'", "outputs.latex.label_prefix"),
    ("page", "a4", "outputs.latex.page"),
    ("page", "{columnwidth: 300, textwidth: 200}", "outputs.latex.page"),
    ("page", "{columnwidth: 300}", "outputs.latex.page.textwidth"),
])
def test_bad_latex_option_is_a_user_error(cli, workdir, option, value, field):
    workdir.write("scores.csv", THREE)
    spec = workdir.write("s.yaml", SPEC.format(options=f"    {option}: {value}"))
    r = cli("validate", spec)
    assert r.code == 2 and "Traceback" not in r.err
    assert field in r.err and "line 11" in r.err, r.err
