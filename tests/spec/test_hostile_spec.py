"""Hostile specs and user templates: exit 2, one line per problem, no traceback, never a hang.

The time bounds here are generous sanity limits against a hang (a billion-laughs expansion or a
recursive alias never finishes); the real speed figures are in the report of the limits in spec.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import jinja2
import pytest

from conftest import GOOD_DATA, GOOD_SPEC, CONFIGS, assert_user_error
from sigreport import spec as spec_module
from sigreport.errors import SpecError, UserError
from sigreport.spec import MAX_DEPTH, MAX_SPEC_BYTES, SpecFile, load_spec, load_spec_file, output_dir

SANITY_SECONDS = 5.0



LOL = '["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
BILLION_LAUGHS = f"a: &a {LOL}\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))

# (name, spec text, fragments that must appear in stderr)
HOSTILE = [
    ("billion laughs", BILLION_LAUGHS, ["line 5: the spec expands to more than 50,000 values"]),
    ("recursive alias", "a: &a [*a]\n", ["line 1: alias *a is used inside the value it names (a recursive alias)"]),
    ("recursive alias in a mapping", "title: t\nx: &x {y: *x}\n", ["line 2: alias *x is used inside the value"]),
    ("recursive merge key", "x: &x {<<: *x}\n", ["alias *x is used inside the value it names"]),
    ("10,000-deep flow nesting", "title: " + "[" * 10_000 + "]" * 10_000 + "\n",
     [f"line 1: nesting deeper than {MAX_DEPTH} levels"]),
    ("deep block nesting", "".join(" " * i + "a:\n" for i in range(200)) + " " * 200 + "a: 1\n",
     [f"nesting deeper than {MAX_DEPTH} levels"]),
    ("!!int x", GOOD_SPEC + "seed: !!int x\n", ["line 7: not valid YAML: 'x' cannot be read as !!int"]),
    ("!!float abc", GOOD_SPEC + "alpha: !!float abc\n", ["line 7: not valid YAML: 'abc' cannot be read as !!float"]),
    ("!!timestamp abc", GOOD_SPEC + "description: !!timestamp abc\n",
     ["line 7: not valid YAML: 'abc' cannot be read as !!timestamp"]),
    ("impossible date", GOOD_SPEC + "description: 2024-13-45\n",
     ["line 7: not valid YAML: '2024-13-45' cannot be read as !!timestamp (quote it to keep it as text)"]),
    ("!!bool maybe", GOOD_SPEC + "tests:\n  tie_correction: !!bool maybe\n", ["line 8: not valid YAML: 'maybe'"]),
    ("python object tag", GOOD_SPEC + "title2: !!python/object:os.system echo\n",
     ["line 7: not valid YAML: unknown tag !!python/object:os.system"]),
    ("python apply tag", "!!python/object/apply:os.system [echo hi]\n", ["unknown tag !!python/object/apply:os.system"]),
    ("local tag", GOOD_SPEC + "description: !mine x\n", ["line 7: not valid YAML: unknown tag !mine"]),
    ("undefined alias", GOOD_SPEC + "description: *nope\n", ["line 7: not valid YAML: found undefined alias"]),
    ("an int longer than Python reads", GOOD_SPEC + "seed: " + "9" * 5000 + "\n",
     ["line 7: not valid YAML: '99999"]),
    ("one anchor used too often", "x: &x 1\ny: [" + ", ".join(["*x"] * 1001) + "]\n",
     ["line 2: alias *x is used more than 1,000 times"]),
    ("control character", GOOD_SPEC + "description: a\x07b\n",
     ["line 7: not valid YAML: character #x0007 is not allowed"]),
    ("too many keys", "title: t\nx: {" + ", ".join(f"k{i}: 1" for i in range(10_001)) + "}\n",
     ["line 2: the spec expands to more than 10,000 keys"]),
]


def _spec(workdir, text: str) -> Path:
    p = workdir.path / "spec.yaml"
    p.write_text(text, encoding="utf-8")
    (workdir.path / "scores.csv").write_text(GOOD_DATA, encoding="utf-8")
    return p


@pytest.mark.parametrize("name,text,fragments", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_yaml_is_a_user_error(cli, workdir, name, text, fragments):
    spec = _spec(workdir, text)
    cli("validate", workdir.path / "absent.yaml")  # imports done before the clock starts
    start = time.monotonic()
    assert_user_error(cli, spec, workdir.path / "out", name, fragments)
    assert time.monotonic() - start < SANITY_SECONDS, "a hostile spec must be refused at once, not worked through"


@pytest.mark.parametrize("loader", spec_module._LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name,text,fragments", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_both_parsers_refuse_the_same(loader, name, text, fragments):
    """libyaml's parser and PyYAML's own (used when PyYAML lacks libyaml) give the same refusals."""
    with pytest.raises(SpecError) as info:
        spec_module._parse_yaml(text, "spec.yaml", loader)
    rendered = info.value.render()
    assert len(rendered.splitlines()) == 2 and rendered.splitlines()[1].startswith("  line "), rendered
    assert fragments[0].split(": ", 1)[-1].split(" (")[0].rstrip("'") in rendered, rendered


def test_spec_larger_than_the_limit_is_not_read(cli, workdir):
    text = GOOD_SPEC + ("# padding\n" * (MAX_SPEC_BYTES // 10 + 1))
    assert len(text.encode()) > MAX_SPEC_BYTES
    assert_user_error(cli, _spec(workdir, text), workdir.path / "out", "too large",
                      ["the spec is larger than 1 MiB"])


def test_a_bomb_costs_nothing_to_refuse():
    """Sanity bound only: the bomb is refused at its fifth line, long before 9**9 values are built."""
    start = time.monotonic()
    with pytest.raises(SpecError):
        load_spec(BILLION_LAUGHS)
    assert time.monotonic() - start < SANITY_SECONDS


def test_aliases_within_limits_still_work(tmp_path):
    text = GOOD_SPEC.replace("metrics:\n  m:\n    higher_is_better: true\n",
                             "metrics:\n  m: &common\n    higher_is_better: true\n  m2: *common\n")
    sf = load_spec(text, base_dir=tmp_path)
    assert sf.spec.metrics["m2"].higher_is_better is True
    assert sf.line_of("metrics", "m2") == 7


# ------------------------------------------------------------------------------------------------
# Strict numbers and booleans

STRICT = [
    ("quoted alpha", "alpha: \"0.05\"\n", ["alpha (line 7): expected a number, given the text '0.05' (remove the quotes)"]),
    ("boolean seed", "seed: true\n", ["seed (line 7): expected a whole number, given the boolean true"]),
    ("decimal resamples", "tests:\n  resamples: 1000.0\n",
     ["tests.resamples (line 8): expected a whole number, given the number 1000.0 (write 1000)"]),
    ("quoted resamples", "tests:\n  resamples: '1000'\n",
     ["tests.resamples (line 8): expected a whole number, given the text '1000' (remove the quotes)"]),
    ("boolean as text", "tests:\n  tie_correction: 'yes'\n",
     ["tests.tie_correction (line 8): expected true or false, given the text 'yes' (remove the quotes; write true "
      "or false)"]),
    ("boolean as number", "tests:\n  tie_correction: 1\n",
     ["tests.tie_correction (line 8): expected true or false, given the number 1 (write true or false)"]),
    ("number as title", "description: 5\n", ["description (line 7): expected text, given the number 5 (quote it: '5')"]),
    ("numbers as systems", "systems: [1, 2]\n",
     ["(2 problems)", "systems[0] (line 7): expected text, given the number 1", "systems[1] (line 7)"]),
    ("list where a mapping belongs", "tests: [a]\n", ["tests (line 7): expected a mapping (key: value lines), given a list"]),
]


@pytest.mark.parametrize("name,extra,fragments", STRICT, ids=[c[0] for c in STRICT])
def test_no_silent_coercion(cli, workdir, name, extra, fragments):
    assert_user_error(cli, _spec(workdir, GOOD_SPEC + extra), workdir.path / "out", name, fragments)


def test_higher_is_better_must_be_a_boolean(cli, workdir):
    for given, expected in (('"yes"', "given the text 'yes'"), ("1", "given the number 1")):
        text = GOOD_SPEC.replace("higher_is_better: true", f"higher_is_better: {given}")
        assert_user_error(cli, _spec(workdir, text), workdir.path / "out", given,
                          [f"metrics.m.higher_is_better (line 6): expected true or false, {expected}"])


def test_numbers_that_are_numbers_pass(tmp_path):
    """An integer where a decimal belongs is fine; YAML 1.2 exponents (1e-3) are numbers, not text."""
    text = GOOD_SPEC.replace("  scores: scores.csv\n", "  scores: scores.csv\n  predictions: p.csv\n")
    sf = load_spec(text + "alpha: 1e-3\nclassification:\n  beta: 2\n  labels: [1, 2.5]\n  positive_label: 1\n",
                   base_dir=tmp_path)
    assert sf.spec.alpha == 0.001
    assert sf.spec.classification is not None
    assert sf.spec.classification.beta == 2.0
    assert sf.spec.classification.labels == ["1", "2.5"] and sf.spec.classification.positive_label == "1"


@pytest.mark.parametrize("cfg", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_is_strictly_valid(cfg):
    assert load_spec(cfg).spec.title


# ------------------------------------------------------------------------------------------------
# load_spec: a path, YAML text or a mapping


def test_load_spec_from_a_path_and_its_wrapper(workdir):
    p = _spec(workdir, GOOD_SPEC)
    for source in (p, str(p)):
        sf = load_spec(source)
        assert isinstance(sf, SpecFile) and sf.from_file and sf.path == Path(source)
        assert sf.folder == workdir.path.resolve() and sf.resolve("scores.csv") == (workdir.path / "scores.csv").resolve()
        assert sf.line_of("metrics", "m", "higher_is_better") == 6
    assert load_spec_file(p) == load_spec(p)
    assert output_dir(load_spec(p)) == workdir.path.resolve() / "reports" / "spec"


def test_load_spec_from_text_resolves_against_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sf = load_spec(GOOD_SPEC)
    assert not sf.from_file and str(sf.path) == "<spec text>"
    assert sf.folder == tmp_path.resolve() and sf.resolve("scores.csv") == tmp_path.resolve() / "scores.csv"
    assert output_dir(sf) == tmp_path.resolve() / "reports" / "spec"
    assert sf.line_of("data", "scores") == 3
    other = tmp_path / "elsewhere"
    assert load_spec(GOOD_SPEC, base_dir=other).resolve("x.csv") == other.resolve() / "x.csv"


def test_load_spec_text_errors_carry_lines_and_fields():
    with pytest.raises(SpecError) as info:
        load_spec(GOOD_SPEC + "alpha: '0.05'\n")
    assert info.value.source == "<spec text>"
    (problem,) = info.value.problems
    assert (problem.field, problem.line) == ("alpha", 7)


def test_load_spec_from_a_mapping(tmp_path):
    raw = {"title": "t", "data": {"scores": "s.csv"}, "metrics": {"m": {"higher_is_better": True}}}
    sf = load_spec(raw, base_dir=tmp_path)
    assert sf.spec.metrics["m"].higher_is_better and sf.lines == {} and str(sf.path) == "<spec mapping>"
    assert sf.resolve("s.csv") == tmp_path.resolve() / "s.csv"
    assert load_spec(sf.spec, base_dir=tmp_path).spec == sf.spec
    assert load_spec(sf) is sf and load_spec(sf, base_dir=tmp_path / "b").folder == tmp_path.resolve() / "b"
    bad = {**raw, "seed": True, "metrics": {"m": {"higher_is_better": "yes"}}}
    with pytest.raises(SpecError) as info:
        load_spec(bad)
    found = {(p.field, p.line) for p in info.value.problems}
    assert found == {("seed", None), ("metrics.m.higher_is_better", None)}, info.value.render()


def test_the_rule_that_tells_a_file_from_text(tmp_path):
    assert spec_module.is_spec_path("configs/demsar.yaml") and spec_module.is_spec_path("X.YML")
    assert spec_module.is_spec_path(tmp_path / "no-suffix")
    assert not spec_module.is_spec_path("title: t") and not spec_module.is_spec_path("a.yaml\nb: 1")
    with pytest.raises(SpecError, match="file not found"):
        load_spec(str(tmp_path / "missing.yaml"))
    with pytest.raises(SpecError, match="pass a Path or a name ending in .yaml"):
        load_spec("spec.json")
    with pytest.raises(TypeError):
        load_spec(42)  # type: ignore[arg-type]


def test_a_folder_as_spec_is_a_user_error(cli, tmp_path):
    (tmp_path / "dir.yaml").mkdir()
    r = cli("validate", tmp_path / "dir.yaml")
    assert r.code == 2 and "is a folder, not a spec file" in r.err and "Traceback" not in r.err


# ------------------------------------------------------------------------------------------------
# User templates


def _template_build(cli, workdir, templates: Path, formats: str = "html"):
    spec = _spec(workdir, GOOD_SPEC)
    out = workdir.path / "out"
    r = cli("build", "-q", "-o", out, "--formats", formats, "--templates", templates, spec)
    assert "Traceback" not in r.err
    return r, out


def _one_problem(r) -> list[str]:
    assert r.code == 2, r
    lines = r.err.rstrip("\n").splitlines()
    assert lines[0].startswith("error: ") and len(lines) == 2 and lines[1].startswith("  "), r.err
    return lines


def test_missing_templates_folder(cli, workdir):
    r, out = _template_build(cli, workdir, workdir.path / "nope")
    lines = _one_problem(r)
    assert "nope" in lines[0] and lines[1] == "  --templates: folder not found"
    assert not out.exists()


def test_templates_path_is_a_file_or_lacks_subfolders(cli, workdir):
    f = workdir.write("file.txt", "x\n")
    assert "is a file, not a folder of templates" in _one_problem(_template_build(cli, workdir, f)[0])[1]
    (workdir.path / "flat").mkdir()
    (workdir.path / "flat" / "report.html.j2").write_text("{{ title }}\n")
    assert "holds neither html/ nor latex/" in _one_problem(_template_build(cli, workdir, workdir.path / "flat")[0])[1]


def test_user_template_syntax_error(cli, workdir):
    tpl = workdir.write("tpl/html/report.html.j2", "<h1>{{ title }}</h1>\n{% for x in sections %}\n{% endif %}\n")
    r, out = _template_build(cli, workdir, workdir.path / "tpl")
    lines = _one_problem(r)
    assert str(tpl.resolve()) in lines[0]
    assert lines[1].startswith("  line 3: syntax error: Encountered unknown tag 'endif'"), lines[1]
    assert not out.exists()


def test_user_template_undefined_variable(cli, workdir):
    tpl = workdir.write("tpl/html/report.html.j2", "<h1>{{ title }}</h1>\n<p>{{ no_such_thing }}</p>\n")
    lines = _one_problem(_template_build(cli, workdir, workdir.path / "tpl")[0])
    assert str(tpl.resolve()) in lines[0] and lines[1] == "  line 2: 'no_such_thing' is undefined"


def test_user_template_missing_include_and_runtime_error(cli, workdir):
    tpl = workdir.write("tpl/html/report.html.j2", "{{ title }}\n\n{% include 'nope.html' %}\n")
    lines = _one_problem(_template_build(cli, workdir, workdir.path / "tpl")[0])
    assert str(tpl.resolve()) in lines[0] and lines[1].startswith("  line 3: template 'nope.html' not found")
    tpl.write_text("{{ title + 1 }}\n")
    lines = _one_problem(_template_build(cli, workdir, workdir.path / "tpl")[0])
    assert lines[1].startswith("  line 1: TypeError: "), lines


def test_user_latex_template_error_names_its_file(cli, workdir):
    tpl = workdir.write("tpl/latex/table.tex.j2", "% table\n<< table.nope >>\n")
    lines = _one_problem(_template_build(cli, workdir, workdir.path / "tpl", "latex")[0])
    assert str(tpl.resolve()) in lines[0] and lines[1].startswith("  line 2: "), lines
    assert "nope" in lines[1]


def test_a_user_template_that_works_is_used(cli, workdir):
    workdir.write("tpl/html/report.html.j2", "<title>{{ title }}</title>mine\n")
    r, out = _template_build(cli, workdir, workdir.path / "tpl")
    assert r.code == 0 and (out / "index.html").read_text() == "<title>t</title>mine\n"


def test_errors_in_built_in_templates_stay_bugs():
    """A built-in template missing a variable is sigreport's bug: Jinja's error with its traceback."""
    from sigreport.render import user_template_errors
    from sigreport.render.html import environment

    with pytest.raises(jinja2.UndefinedError) as info, user_template_errors(None):
        environment(None).get_template("report.html.j2").render()
    assert not isinstance(info.value, UserError)


@pytest.mark.parametrize("given, known, aliases, expected", [
    ("ttest", ["auto", "paired_t", "wilcoxon", "sign", "bootstrap", "bootstrap_t", "permutation"],
     {"paired t test": "paired_t", "bootstrap-t test": "bootstrap_t", "Wilcoxon signed-rank test": "wilcoxon"},
     " (did you mean 'paired_t'?)"),  # by the display name, 'paired t test' without spaces
    ("holms", ["holm", "bonferroni", "hochberg"], None, " (did you mean 'holm'?)"),
    ("ROUGE_L", ["rouge1", "rougeL"], None, " (did you mean 'rougeL'?)"),  # case, '_' and '-' ignored
    ("lead3", ["lead-3", "textrank"], None, " (did you mean 'lead-3'?)"),
    ("colour", ["agreement", "alpha", "baseline"], None, ""),  # nothing close: no guess
    ("nope", ["m"], None, ""),
    ("", ["a"], None, ""),
    ("x", [], None, ""),
])
def test_did_you_mean(given, known, aliases, expected):
    """One place suggests names (errors.did_you_mean: difflib.get_close_matches, ratio 0.6, on names lower-cased
    without spaces, '-' and '_'), for keys, methods, metrics, systems and corpora alike."""
    from sigreport.errors import did_you_mean
    assert did_you_mean(given, known, aliases) == expected
