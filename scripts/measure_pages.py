"""Measure the page presets of ``outputs.latex.page`` with pdflatex and write them to
``sigreport/render/page_metrics.py`` (the package keeps the measurements; nothing is measured at build time).

Per preset: ``\\columnwidth``, ``\\textwidth``, the body font size and the size of ``\\small`` (the tables'
font), each typed out by pdflatex from the real class (IEEEtran, llncs: TeX Live's texlive-publishers) or
from the geometry the venue documents (ACL's acl.sty: 11pt article, A4, 2.5 cm margins, 0.6 cm column
gap; NeurIPS: a 5.5 x 9 inch text block, 10pt Times). Per table font size (9pt and 10pt): the width of every
character sigreport writes, as LaTeX sets it (the text of :func:`sigreport.render.format.escape`), in
Computer Modern and in Times (``\\usepackage{times}``), keeping the wider of the two: a paper may use
either, and a table estimated to fit in the wider font fits in both. Also the ratio of bold to normal.

Run: ``python scripts/measure_pages.py`` (needs pdflatex, texlive-publishers for IEEEtran and llncs).
"""

from __future__ import annotations

import pprint
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sigreport.render.format import escape  # noqa: E402

# name: (preamble up to \begin{document}, where the geometry comes from)
PRESETS: dict[str, tuple[str, str]] = {
    "article10": ("\\documentclass[10pt,twocolumn]{article}", "class article (10pt, twocolumn)"),
    "acl": ("\\documentclass[11pt,twocolumn]{article}\n\\usepackage[a4paper,margin=2.5cm]{geometry}\n"
            "\\setlength\\columnsep{0.6cm}\n\\usepackage{times}",
            "documented geometry of acl.sty (11pt article, A4, margin 2.5 cm, \\columnsep 0.6 cm, Times)"),
    "ieee": ("\\documentclass[conference]{IEEEtran}", "class IEEEtran (conference, 10pt)"),
    "neurips": ("\\documentclass[10pt]{article}\n\\usepackage[letterpaper,textwidth=5.5in,textheight=9in]{geometry}"
                "\n\\usepackage{times}", "documented geometry of the NeurIPS style (5.5 x 9 in, 10pt Times)"),
    "lncs": ("\\documentclass{llncs}", "class llncs (10pt)"),
}

EXTRA = {"\u2212": "$-$", "\u2014": "---", "\u00d7": "$\\times$", "\u2009": "$\\mskip\\medmuskip$", "\u03b1": "$\\alpha$",
         "\u2191": "$\\uparrow$", "\u2193": "$\\downarrow$"}
CHARS = [chr(c) for c in range(0x21, 0x7F)] + [" "] + list(EXTRA)
SAMPLE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def run(doc: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.tex").write_text(doc, encoding="utf-8")
        r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "m.tex"], cwd=d,
                           capture_output=True, text=True, timeout=300)
        log = (Path(d) / "m.log").read_text(encoding="utf-8", errors="replace")
        if r.returncode != 0:
            raise SystemExit(f"pdflatex failed:\n{log[-2000:]}")
        return log


def measure_page(preamble: str) -> dict[str, float]:
    log = run(preamble + "\n\\makeatletter\\begin{document}\n"
              "\\typeout{COLW=\\the\\columnwidth}\\typeout{TEXTW=\\the\\textwidth}\\typeout{SIZE=\\f@size}"
              "{\\small\\typeout{SMALL=\\f@size}}x\n\\end{document}\n")
    get = lambda k: float(re.search(rf"^{k}=([\d.]+)", log, re.M).group(1))  # noqa: E731
    return {"columnwidth": get("COLW"), "textwidth": get("TEXTW"), "fontsize": get("SIZE"), "small": get("SMALL")}


def lines_of(n: int) -> str:
    """Text that a paragraph sets in exactly ``n`` lines: n times a strut, 0.6 of the line's width, an x and fil
    glue (each \\hspace* kept where it is, each line filled, and as tall and deep as a strut)."""
    return " ".join(["\\protect\\strut\\protect\\hspace*{0.6\\linewidth}x\\protect\\hspace*{0pt plus 1fil}\\protect\\mbox{}"] * n)


def fragment(panels: int = 1, rows: int = 1, two_level: bool = False, notes: int = 0, caption: int = 1,
             note_lines: int = 1) -> str:
    """A float's body as templates/latex/table.tex.j2 writes it: a caption of ``caption`` lines, ``panels``
    tabulars of a one-line head (two-level: a spanning head over a \\cmidrule) and ``rows`` body rows, ``notes``
    notes of ``note_lines`` lines."""
    text = "\\protect\\strut Short." if caption == 1 else lines_of(caption)
    out = ["\\centering", "\\small", f"\\caption{{{text}}}", "\\smallskip"]
    for i in range(panels):
        out += ["", "\\medskip"] if i else []
        out += ["\\begin{tabular}{@{}lr@{}}", "\\toprule"]
        out += ["\\multicolumn{2}{c}{G} \\\\", "\\cmidrule(lr){1-2}"] if two_level else []
        out += ["a & b \\\\", "\\midrule", *["x & 1 \\\\"] * rows, "\\bottomrule", "\\end{tabular}"]
    for _ in range(notes):
        note = "\\strut Note." if note_lines == 1 else lines_of(note_lines)
        out += ["", f"\\par\\smallskip\\parbox{{\\linewidth}}{{\\footnotesize {note}}}"]
    return "\n".join(out)


HEIGHT_CASES = {"base": {}, "rows2": {"rows": 2}, "panels2": {"panels": 2}, "two_level": {"two_level": True},
                "note": {"notes": 1}, "note3": {"notes": 1, "note_lines": 3}, "caption3": {"caption": 3}}


def measure_heights(preamble: str) -> dict[str, float]:
    """``\\textheight`` and the heights (pt) of a table float's pieces, each measured as LaTeX boxes the float
    (``\\vbox`` at ``\\columnwidth`` after ``\\@floatboxreset``): ``float_base`` (a one-line caption and one
    panel of a head and one row), ``row`` (one more row), ``panel`` (one more panel of a head and a row),
    ``group_head`` (a spanning head and its rule), ``note`` (a one-line note), ``note_line`` (each further line of
    a note), ``caption_line`` (each further line of a caption). Caption and note lines are struts, as tall and
    deep as the font's lines of text with parentheses."""
    lines = []
    for key, case in HEIGHT_CASES.items():
        lines.append(f"\\setbox0\\vbox{{\\hsize\\columnwidth\\linewidth\\columnwidth\\@parboxrestore"
                     f"\\@floatboxreset\\def\\@captype{{table}}\n{fragment(**case)}\n}}"
                     f"\\typeout{{H{key}=\\the\\dimexpr\\ht0+\\dp0\\relax}}")
    log = run(preamble + "\n\\usepackage{booktabs}\n\\makeatletter\\begin{document}\n"
              "\\typeout{TEXTH=\\the\\textheight}\n" + "\n".join(lines) + "\nx\n\\end{document}\n")
    get = lambda k: float(re.search(rf"^{k}=([\d.]+)pt", log, re.M).group(1))  # noqa: E731
    h = {key: get(f"H{key}") for key in HEIGHT_CASES}
    return {"textheight": get("TEXTH"), "float_base": round(h["base"], 3), "row": round(h["rows2"] - h["base"], 3),
            "panel": round(h["panels2"] - h["base"], 3), "group_head": round(h["two_level"] - h["base"], 3),
            "note": round(h["note"] - h["base"], 3), "note_line": round((h["note3"] - h["note"]) / 2, 3),
            "caption_line": round((h["caption3"] - h["base"]) / 2, 3)}


def text_of(ch: str) -> str:
    return EXTRA.get(ch) or ("\\ " if ch == " " else escape(ch))


def measure_font(cls: str, times: bool) -> tuple[dict[str, float], float]:
    """Widths of :data:`CHARS` in \\small of ``cls`` (with Times or not) and the bold / normal ratio."""
    lines = ["\\newlength\\w"]
    for i, ch in enumerate(CHARS):
        lines.append(f"\\settowidth{{\\w}}{{\\small {text_of(ch)}}}\\typeout{{W{i}=\\the\\w}}")
    lines.append(f"\\settowidth{{\\w}}{{\\small {SAMPLE}}}\\typeout{{N=\\the\\w}}")
    lines.append(f"\\settowidth{{\\w}}{{\\small\\bfseries {SAMPLE}}}\\typeout{{B=\\the\\w}}")
    log = run(cls + ("\n\\usepackage{times}" if times else "") + "\n\\begin{document}\n" + "\n".join(lines)
              + "\nx\n\\end{document}\n")
    widths = {ch: float(re.search(rf"^W{i}=([\d.]+)pt", log, re.M).group(1)) for i, ch in enumerate(CHARS)}
    normal = float(re.search(r"^N=([\d.]+)pt", log, re.M).group(1))
    bold = float(re.search(r"^B=([\d.]+)pt", log, re.M).group(1))
    return widths, bold / normal


def main() -> None:
    pages = {}
    for name, (preamble, source) in PRESETS.items():
        pages[name] = {**measure_page(preamble), **measure_heights(preamble), "source": source}
        print(name, pages[name], file=sys.stderr)
    fonts: dict[float, dict[str, float]] = {}
    bold: dict[float, float] = {}
    for size, cls in ((9.0, "\\documentclass[10pt]{article}"), (10.0, "\\documentclass[11pt]{article}")):
        cm, cm_bold = measure_font(cls, False)
        tm, tm_bold = measure_font(cls, True)
        fonts[size] = {ch: round(max(cm[ch], tm[ch]), 2) for ch in CHARS}
        bold[size] = round(max(cm_bold, tm_bold), 3)
        print(size, "bold", cm_bold, tm_bold, file=sys.stderr)
    out = ROOT / "sigreport" / "render" / "page_metrics.py"
    out.write_text(
        '"""Page presets and table-font widths, measured with pdflatex by scripts/measure_pages.py (generated: do '
        'not edit;\nrun the script again). ``PAGES``: per preset, ``\\\\columnwidth``, ``\\\\textwidth``, the body '
        'font size and\nthe size of ``\\\\small`` in pt, ``\\\\textheight`` and the heights of a table float\'s '
        'pieces (scripts/measure_pages.py:\nmeasure_heights), and where the geometry comes from. ``CHAR_WIDTHS``: per '
        '``\\\\small`` size, the width\nin pt of each character as LaTeX sets it, the wider of Computer Modern and '
        'Times. ``BOLD``: bold over normal,\nthe larger of the two fonts."""\n\n'
        f"PAGES: dict[str, dict[str, float | str]] = {pprint.pformat(pages, width=116, sort_dicts=False)}\n\n"
        f"CHAR_WIDTHS: dict[float, dict[str, float]] = {pprint.pformat(fonts, width=116, sort_dicts=False)}\n\n"
        f"BOLD: dict[float, float] = {pprint.pformat(bold)}\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
