"""The report model: built once from Results alone, formatted per target, unique names, LaTeX that
compiles whatever the names, interval labels from the level actually used."""

from __future__ import annotations

import ast
import dataclasses
import re

import pytest
import yaml

from conftest import CONFIGS, GOLDEN, ROOT, cli_build, needs, pdflatex_compile
from sigreport.api.options import render_options
from sigreport.render.options import RenderOptions
from sigreport.spec import load_spec
from sigreport.api.pipeline import build
from sigreport.render import format as fmt
from sigreport.render import names
from sigreport.render.html import render_html
from sigreport.render.latex import render_latex, render_tables
from sigreport.render.model import CI, Decision, Df, Int, Num, P, Stat, Sym, Text, join
from sigreport.render.views import build_report
from sigreport.results import from_json
from sigreport.results.compare import compare_text, strip_figures

EXAMPLES = sorted(p.name for p in GOLDEN.iterdir() if (p / "results.json").exists())


# -------------------------------------------------------------------------------------------- Results alone


@pytest.mark.parametrize("name", EXAMPLES)
def test_report_from_results_json_alone(name, tmp_path):
    """A Results read back from results.json (no spec) renders; its LaTeX tables are the build's bytes."""
    results = from_json((GOLDEN / name / "results.json").read_text(encoding="utf-8"))
    assert "spec" not in {f.name for f in dataclasses.fields(results)}  # no Results carries a spec (not only these)
    # the report's name (its LaTeX labels) is the spec's; a spec that chooses how the main table reads
    # (outputs.main_table) is re-rendered with its main-table options, which results.json does not hold
    raw = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text(encoding="utf-8"))
    options = RenderOptions()
    if "main_table" in (raw.get("outputs") or {}):
        options = dataclasses.replace(options, main_table=render_options(load_spec(CONFIGS / f"{name}.yaml").spec
                                                                          ).main_table)
    model = build_report(results, f"{name}.yaml", options=options)
    if model.baseline is None:  # results.json does not store the spec's baseline (the HTML's tag), like the settings
        spec_baseline = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text(encoding="utf-8")).get("baseline")
        model = dataclasses.replace(model, baseline=spec_baseline)
    html = render_html(model)
    assert "Statistical choices" in html and f"seed {results.seed}" in html
    # Everything after the header and the settings (which read the spec when there is one) is the build's.
    # (the golden HTML holds the figures' labels, not their drawings: tests/whole/test_golden.py)
    assert compare_text(_body((GOLDEN / name / "index.html").read_text(encoding="utf-8")),
                        _body(strip_figures(html))).identical
    out = render_latex(model, tmp_path / "tables")  # as write_report
    want = sorted([p.name for p in (GOLDEN / name / "tables").glob("*.tex")] + ["references.bib"])
    assert sorted(out.files) == want
    for f in want:
        assert (tmp_path / "tables" / f).read_bytes() == (GOLDEN / name / "tables" / f).read_bytes(), f


def _body(html: str) -> str:
    return re.sub(r'<header>.*?</header>|<section id="settings">.*?</section>', "", html, flags=re.S)


def test_render_layer_imports_no_lower_analysis_layer():
    """render/ reads Results only: no import of analyses, plan, data, spec, labels or stats internals."""
    banned = ("sigreport.analyses", "sigreport.plan", "sigreport.data", "sigreport.spec", "sigreport.labels",
              "sigreport.stats", "sigreport.api.pipeline", "sigreport.api")
    for path in (ROOT / "sigreport" / "render").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for m in mods:
                assert not m.startswith(banned), f"{path.name} imports {m}"


# -------------------------------------------------------------------------------------------- cells


def test_cells_format_once_per_target():
    h, t = fmt.Html(), fmt.Latex()
    assert h.cell(Num(-0.5, 2)) == "\u22120.50" and t.cell(Num(-0.5, 2)) == "$-$0.50"
    assert h.cell(Num(-0.0001, 2)) == "0.00"  # a rounded zero has no sign
    assert h.cell(Num(float("nan"))) == "\u2014" and t.cell(Num(None)) == "---"
    assert h.cell(P(0.04567)) == "0.04567" and h.cell(P(1.0)) == "1"
    assert h.cell(P(0.00012)) == "1.2\u00d710<sup>\u22124</sup>" and t.cell(P(0.00012)) == r"$1.2\times 10^{-4}$"
    assert t.cell(P(0.0)) == r"$<10^{-300}$"
    assert h.cell(Df(3.0)) == "3" and h.cell(Df(2.5)) == "2.50" and h.cell(Int(7)) == "7"
    assert t.cell(Stat(2.5e7)) == r"$2.50\times 10^{7}$"
    assert h.cell(CI(None, 0.5, 0.9, 2, unbounded=True)) == "[\u2212\u221e,\u00a00.50]"  # never broken inside
    assert t.cell(CI(None, 0.5, 0.9, 2)) == "---"
    assert h.cell(Sym("chi2")) == "\u03c7<sup>2</sup>" and t.cell(Sym("chi2")) == r"$\chi^2$"
    assert t.cell(Sym("crit", "0.2")) == r"$\text{crit}_{\alpha=0.2}$"
    assert h.cell(join(Sym("d_z"), " = ", Num(0.4, 2))) == "d<sub>z</sub> = 0.40"
    assert h.cell(Text("<b>&")) == "&lt;b&gt;&amp;" and t.cell(Text("a_b & 5%")) == r"a\_b \& 5\%"


def test_significance_class_comes_from_the_decision_not_the_text():
    h = fmt.Html()
    assert h.css_class(Decision(True)) == " yes"
    assert h.css_class(Decision(False)) == "" and h.css_class(Decision(None)) == ""
    assert h.css_class(Text("yes")) == ""  # a system called "yes" is not a decision
    assert h.cell(Decision(None)) == "\u2014" and h.cell(Decision(True)) == "yes"


# -------------------------------------------------------------------------------------------- names


def test_colliding_names_get_distinct_stable_suffixes():
    joined = [("a", "b--c", "descriptives"), ("a--b", "c", "descriptives")]
    cased = [("F1", "dev", "omnibus"), ("f1", "dev", "omnibus")]
    plain = ("bleu", "news", "omnibus")
    got = names.assign(joined + cased + [plain])
    assert len({n.casefold() for n in got.values()}) == 5
    assert got[plain] == "bleu--news--omnibus"  # names outside a collision stay as they were
    assert all(got[k].startswith(names.slug(*k) + "-") for k in joined + cased)
    assert names.assign(list(reversed(joined + cased + [plain]))) == got  # independent of order


def test_repeated_keys_get_numbered_names():
    assert names.unique_in_order([("x",), ("y",), ("x",)]) == ["x", "y", "x-2"]


def _scores(rows: list[tuple[str, str, str, str, float]]) -> str:
    return "system,corpus,item,metric,value\n" + "".join(f"{s},{c},{i},{m},{v}\n" for s, c, i, m, v in rows)


def _build_names(cli, workdir, metrics: tuple[str, ...], corpora: tuple[str, ...]):
    """Build two systems on every (metric, corpus) of these names, in LaTeX, JSON and HTML."""
    rows = []
    for metric, corpus in ((m, c) for m in metrics for c in corpora):
        for i in range(6):
            rows += [("s1", corpus, f"i{i}", metric, 0.5 + i / 20), ("s2", corpus, f"i{i}", metric, 0.4 + i / 17)]
    workdir.write("scores.csv", _scores(rows))
    workdir.write("spec.yaml", "title: names\ndata:\n  scores: scores.csv\nmetrics:\n"
                  + "".join(f"  {m}: {{higher_is_better: true}}\n" for m in metrics))
    return cli_build(workdir.path / "spec.yaml", workdir.path / "out", formats="latex,json,html", cli=cli,
                     quiet=False)  # the summary says how many files it wrote


def test_build_writes_as_many_files_as_it_reports(cli, workdir):
    """Metric a on corpus b--c and metric a--b on corpus c, and A vs a: distinct files, count matches disk."""
    r = _build_names(cli, workdir, ("a", "a--b", "A"), ("b--c", "c"))
    assert r.code == 0, r.err
    tex = sorted(p.name for p in (workdir.path / "out" / "tables").glob("*.tex"))
    assert len({t.casefold() for t in tex}) == len(tex)
    on_disk = [p for p in (workdir.path / "out").rglob("*") if p.is_file() and not p.name.startswith(".")]
    reported = int(re.search(r"\((\d+) files", r.out).group(1))
    assert reported == len(on_disk)
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r' id="([^"]+)"', html)
    assert len(ids) == len(set(ids))


def test_main_tables_get_file_names_unique_with_every_other_table(cli, workdir):
    """Metrics a, A and a--b on three corpora: 9 columns, so one main table per metric, main-a and main-A, which
    a case-insensitive disk (macOS, Windows) holds as one file. Every table file of a report comes out of one
    naming pass: distinct without case, the count reported is the count on disk, no HTML id twice."""
    r = _build_names(cli, workdir, ("a", "A", "a--b"), ("b--c", "c", "d"))
    assert r.code == 0, r.err
    tex = sorted(p.name for p in (workdir.path / "out" / "tables").glob("*.tex"))
    mains = [t for t in tex if t.startswith("main-")]
    assert len(mains) == 3 and len({t.casefold() for t in tex}) == len(tex), tex
    assert "main-a--b.tex" in mains  # a name that collides with none stays as it was
    on_disk = [p for p in (workdir.path / "out").rglob("*") if p.is_file() and not p.name.startswith(".")]
    assert int(re.search(r"\((\d+) files", r.out).group(1)) == len(on_disk)
    ids = re.findall(r' id="([^"]+)"', (workdir.path / "out" / "index.html").read_text(encoding="utf-8"))
    assert len({i.casefold() for i in ids}) == len(ids)


def test_distinct_names_keep_proposals_and_suffix_only_collisions():
    """names.distinct: proposed names kept unless they collide (without case), then each member of the group
    gets a hash of its own key; the result does not depend on the order."""
    proposed = [(("main", "a", "1"), "main-a-1"), (("main", "a-1", "1"), "main-a-1"), (("main", "A"), "main-A"),
                (("main", "a"), "main-a"), (("main", "b"), "main-b")]
    got = names.distinct(proposed)
    assert len({n.casefold() for n in got.values()}) == 5
    assert got[("main", "b")] == "main-b"
    assert all(got[k].startswith(n + "-") for k, n in proposed if k != ("main", "b"))
    assert names.distinct(list(reversed(proposed))) == got


# -------------------------------------------------------------------------------------------- interval levels


def test_cv_interval_label_follows_alpha(cli, tmp_path):
    """alpha: 0.2 gives 80% intervals in the cross-validation tests, and the table says 80%."""
    spec = (CONFIGS / "cv_5x2.yaml").read_text(encoding="utf-8")
    spec = spec.replace("alpha: 0.05", "alpha: 0.2").replace("data/cv_5x2.csv", str(CONFIGS / "data/cv_5x2.csv"))
    spec += "\noutputs:\n  latex:\n    pairwise: rows  # the interval column (auto gives the p-value matrix)\n"
    (tmp_path / "spec.yaml").write_text(spec, encoding="utf-8")
    r = cli("build", tmp_path / "spec.yaml", "-o", tmp_path / "out", "--formats", "json,latex,html", "--quiet")
    assert r.code == 0, r.err
    results = from_json((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    cv = results.of_kind("cv")
    assert cv and all(rec.ci_level == pytest.approx(0.8) for rec in cv)
    cv_tex = [p for p in (tmp_path / "out" / "tables").glob("*.tex") if "5x2cv" in p.name]
    assert cv_tex
    for p in cv_tex:
        text = p.read_text(encoding="utf-8")
        assert "80\\%~CI" in text and "95\\%" not in text, p.name  # the head's no-break space is a tie
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert ">80%\u00a0CI<" in html


# -------------------------------------------------------------------------------------------- unprintable names

CJK = "\u4e2d\u6587"
EMOJI = "\U0001f680"


def test_latex_placeholders_for_unprintable_characters():
    out: set[str] = set()
    assert fmt.escape(f"sys {CJK}{EMOJI} \u00e9_", out) == r"sys [U+4E2D][U+6587][U+1F680] " + "\u00e9\\_"
    assert out == {"\u4e2d", "\u6587", EMOJI}
    assert fmt.latex_printable("\u0161") and not fmt.latex_printable("\u0416")  # š yes, Cyrillic Zhe no


@needs("pdflatex")
def test_unprintable_names_give_tables_that_compile(workdir, tmp_path):
    rows = []
    for i in range(8):
        rows += [(f"sys{CJK}", f"corp{EMOJI}", f"i{i}", "m\u0416", 0.5 + i / 20),
                 ("plain", f"corp{EMOJI}", f"i{i}", "m\u0416", 0.45 + i / 19),
                 ("third", f"corp{EMOJI}", f"i{i}", "m\u0416", 0.4 + i / 30)]
    workdir.write("scores.csv", _scores(rows))
    workdir.write("spec.yaml", "title: unicode\ndata:\n  scores: scores.csv\nmetrics:\n  m\u0416: {higher_is_better: true}\n")
    _, written, warnings = build(workdir.path / "spec.yaml", workdir.path / "out", ["latex", "html"])
    latex_warnings = [w for w in warnings if "pdflatex" in w.message]
    assert len(latex_warnings) == 1, warnings  # one warning for the whole build, naming the characters
    assert all(p in latex_warnings[0].message for p in ("[U+4E2D]", "[U+6587]", "[U+1F680]", "[U+0416]"))
    tables = sorted((workdir.path / "out" / "tables").glob("*.tex"))
    body = "\n".join(t.read_text(encoding="utf-8") for t in tables)
    assert "[U+4E2D][U+6587]" in body and "[U+1F680]" in body and "[U+0416]" in body
    assert CJK not in body and EMOJI not in body
    c = pdflatex_compile(body, tmp_path)
    assert c.returncode == 0, c.stdout[-2000:]
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert f"sys{CJK}" in html and EMOJI in html  # HTML shows every character


@needs("pdflatex")
def test_every_character_called_printable_compiles(tmp_path):
    """The table of printable characters in format.py, recompiled with this machine's pdflatex."""
    chars = [chr(c) for lo, hi in fmt.PRINTABLE_RANGES for c in range(lo, hi + 1)]
    body = "\n".join(f"x{fmt.escape(ch)}x\\par" for ch in chars)
    r = pdflatex_compile(body, tmp_path)
    assert r.returncode == 0, r.stdout[-2000:]


def test_rows_are_made_when_first_read_and_equal_their_tuple():
    """render.model.Rows: the count without making them, equal to (and pickled as) the tuple of rows."""
    import pickle

    from sigreport.render.model import Rows

    made = []

    def make():
        made.append(1)
        return [(Text("a"), Int(1)), (Text("b"), Int(2))]

    rows = Rows(2, make)
    assert len(rows) == 2 and not made
    assert rows == ((Text("a"), Int(1)), (Text("b"), Int(2)))
    assert rows[1] == (Text("b"), Int(2)) and list(rows)[0] == (Text("a"), Int(1))
    assert made == [1]  # made once
    assert pickle.loads(pickle.dumps(rows)) == tuple(rows) and type(pickle.loads(pickle.dumps(rows))) is tuple
    with pytest.raises(ValueError, match="promised 3 rows and made 2"):
        Rows(3, make).made()


def test_a_large_family_shown_as_matrices_never_makes_its_rows(tmp_path):
    """A family of 190 pairs is a matrix in the HTML and in LaTeX (outputs.latex.pairwise: auto); its rows
    are not made, and with pairwise: rows they are (and written)."""
    import numpy as np

    import sigreport
    from sigreport.render.model import Rows

    rng = np.random.default_rng(0)
    lines = ["system,corpus,item,metric,value"]
    lines += [f"s{j:02d},c,i{i},m,{rng.normal(j / 40, 1):.4f}" for j in range(20) for i in range(30)]
    (tmp_path / "scores.csv").write_text("\n".join(lines) + "\n")
    spec = {"title": "t", "data": {"scores": "scores.csv"}, "metrics": {"m": {"higher_is_better": True}},
            "tests": {"pairwise": "paired_t", "omnibus": "none"}, "outputs": {"formats": ["html", "latex"]}}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    model = build_report(sigreport.analyze(tmp_path / "spec.yaml"), figures=(),
                         options=render_options(sigreport.load_spec(tmp_path / "spec.yaml").spec))
    family = next(t for t in model.tables() if isinstance(t.rows, Rows))
    assert len(family.rows) == 190
    render_latex(model, tmp_path / "tables")
    from sigreport.render.html import render_html as html
    html(model)
    assert family.rows._rows is None  # neither output read them
    spec["outputs"]["latex"] = {"pairwise": "rows"}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    model = build_report(sigreport.analyze(tmp_path / "spec.yaml"), figures=(),
                         options=render_options(sigreport.load_spec(tmp_path / "spec.yaml").spec))
    family = next(t for t in model.tables() if isinstance(t.rows, Rows))
    render_latex(model, tmp_path / "tables2")
    assert family.rows._rows is not None and len(family.rows.made()) == 190
