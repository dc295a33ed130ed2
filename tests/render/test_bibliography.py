"""Citations that compile together: four reports' methods paragraphs in one paper of every page preset, with
one report's ``references.bib`` (every report's holds the same entries, so one serves them all: bibtex refuses
a key given twice, even by identical entries in two files), and the citation command of each preset
(``\\citep`` under natbib, where ``\\cite`` prints the author a second time: "Holm's procedure Holm [1979]").
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import needs
from test_latex_paper import CLASS_FILES, CLASSES, build, spec_for_page

REPORTS = ["summarizers", "demsar", "mt", "trec"]
# the venue styles that load natbib as they do: acl.sty with round parentheses (its \\setcitestyle),
# neurips_2024.sty with natbib's default square brackets; the others cite by number
NATBIB = {"acl": "\\usepackage{natbib}\n\\setcitestyle{authoryear,round,citesep={;},aysep={,},yysep={;}}\n",
          "neurips": "\\usepackage{natbib}\n"}
BRACKETS = {"acl": "()", "neurips": "[]"}


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", params=list(CLASSES))
def four(request, tmp_path_factory) -> tuple[str, Path, subprocess.CompletedProcess, str, tuple[int, str]]:
    """The four reports built for one preset, their methods paragraphs \\input into that preset's paper with
    the first report's references.bib, compiled pdflatex, bibtex, pdflatex twice: (preset, paper folder,
    the bibtex run, the PDF's text, the last pdflatex's exit code and log)."""
    page = request.param
    for tool in ("pdflatex", "bibtex", "pdftotext"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    if page in CLASS_FILES and not run(["kpsewhich", CLASS_FILES[page]], Path(".")).stdout.strip():
        pytest.skip(f"{CLASS_FILES[page]} is not installed (Debian: texlive-publishers)")
    root, work = tmp_path_factory.mktemp(f"bib-reports-{page}"), tmp_path_factory.mktemp(f"bib-paper-{page}")
    body = []
    for name in REPORTS:
        build(spec_for_page(name, page, root), root / name, "latex")
        shutil.copytree(root / name / "tables", work / name)
        body.append(f"\\section{{{name}}}\n\\input{{{name}/methods.tex}}")
    style = "plainnat" if page in NATBIB else "plain"
    doc = (CLASSES[page] + NATBIB.get(page, "") + "\\begin{document}\n" + "\n".join(body)
           + f"\n\\bibliographystyle{{{style}}}\n\\bibliography{{{REPORTS[0]}/references}}\n\\end{{document}}\n")
    (work / "paper.tex").write_text(doc, encoding="utf-8")
    latex = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"]
    run(latex, work)
    bibtex = run(["bibtex", "paper"], work)
    run(latex, work)
    final = run(latex, work)
    log = (work / "paper.log").read_text(encoding="utf-8", errors="replace")
    text = run(["pdftotext", "paper.pdf", "-"], work).stdout
    # words hyphenated at a line end joined, then one line; TeX's right quote as an apostrophe
    text = " ".join(re.sub(r"-\n(?=[a-z])", "", text).replace("\u2019", "'").split())
    return page, work, bibtex, text, (final.returncode, log)


def test_every_report_writes_the_same_references_bib(four):
    """One global key scheme: every report's references.bib is the same file, so any one serves a paper."""
    _, work, _, _, _ = four
    files = {name: (work / name / "references.bib").read_bytes() for name in REPORTS}
    assert len(set(files.values())) == 1, "references.bib differs between " + ", ".join(REPORTS)
    keys = re.findall(rb"@\w+\{([^,]+),", files[REPORTS[0]])
    assert len(keys) == len(set(keys)), "a key twice in references.bib"


def test_four_reports_compile_with_one_bibliography(four):
    """bibtex exit 0, no "Repeated entry", no warning; pdflatex exit 0 and every report's citations resolve
    (no undefined citation after pdflatex, bibtex, pdflatex twice)."""
    page, _, bibtex, _, (code, log) = four
    assert code == 0, (page, [ln for ln in log.splitlines() if ln.startswith("!")][:3])
    assert "undefined" not in log, (page, [ln for ln in log.splitlines() if "undefined" in ln][:5])
    assert bibtex.returncode == 0, (page, bibtex.stdout)
    assert "Repeated entry" not in bibtex.stdout and "Warning" not in bibtex.stdout, (page, bibtex.stdout)


def test_citations_are_parenthetical_in_every_preset(four):
    """Under natbib the paragraph cites with \\citep: "Holm's procedure (Holm, 1979)" (ACL; NeurIPS
    in natbib's square brackets), never the textual
    "Holm [1979]" (the author twice); under the numeric styles "[n]"."""
    page, work, _, text, _ = four
    tex = "".join((work / name / "methods.tex").read_text(encoding="utf-8") for name in REPORTS)
    textual = re.findall(r"[A-Z][\w\u00c0-\u017f]+(?: et al\.)? \[\d{4}\]", text)
    assert not textual, (page, textual)
    assert not re.search(r"\b(\w+)'s procedure \1\b", text), page
    if page in NATBIB:
        assert "\\cite{" not in tex and "\\citep{" in tex
        o, c = BRACKETS[page]
        assert f"Holm's procedure {o}Holm, 1979{c}" in text, text
        assert f"Friedman test {o}Friedman, 1937{c}" in text, text
    else:
        assert "\\citep{" not in tex and "\\cite{" in tex
        assert re.search(r"Holm's procedure \[\d+\]", text), text
        assert not re.search(r"\(\w+,? \d{4}\)", text), text
