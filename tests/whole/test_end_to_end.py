"""Every example in configs/ builds through the CLI; outputs are complete, self-contained and reproducible."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import CONFIGS, EXAMPLE_FORMATS, ROOT, needs, pdflatex_compile
from sigreport.spec import json_schema

CONFIG_FILES = sorted(CONFIGS.glob("*.yaml"))


@pytest.fixture(scope="module")
def built(example):
    """Every config built (all formats): the session's shared, read-only example builds."""
    return {cfg.stem: example(cfg.stem) for cfg in CONFIG_FILES}


def test_there_are_examples():
    assert {"summarizers", "summarization"} <= {c.stem for c in CONFIG_FILES}


@pytest.mark.parametrize("cfg", CONFIG_FILES, ids=lambda p: p.stem)
def test_every_format_written(built, cfg):
    dest = built[cfg.stem]
    assert (dest / "index.html").stat().st_size > 1000
    assert (dest / "report.pdf").read_bytes()[:5] == b"%PDF-"
    doc = json.loads((dest / "results.json").read_text())
    assert doc["schema_version"] == 1 and doc["analyses"]
    tex = sorted((dest / "tables").glob("*.tex"))
    assert tex and (dest / "tables" / "README.txt").exists()


@pytest.mark.parametrize("cfg", CONFIG_FILES, ids=lambda p: p.stem)
def test_html_references_nothing_external(built, cfg):
    html = (built[cfg.stem] / "index.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", html), "only in-page links are allowed"
    assert "@import" not in html and not re.search(r"url\((?!#)", html)  # inline figures use url(#clip-id)
    # one script at most: sigreport's own, inline (the sortable tables, issue 31), the plain page without it
    from sigreport.render import loader
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I)
    own = loader("html", None).get_source(None, "sortable.js")[0]  # type: ignore[arg-type]
    assert all(attrs == "" and body.strip() == own.strip() for attrs, body in scripts) and len(scripts) <= 1


@needs("pdflatex")
@pytest.mark.parametrize("cfg", CONFIG_FILES, ids=lambda p: p.stem)
def test_latex_tables_compile(built, cfg, tmp_path):
    tables = sorted((built[cfg.stem] / "tables").glob("*.tex"))
    body = "\n\\clearpage\n".join(t.read_text() for t in tables)
    r = pdflatex_compile(body, tmp_path)
    assert r.returncode == 0, r.stdout[-3000:]
    assert "Undefined control sequence" not in r.stdout


@needs("pdftotext")
def test_pdf_holds_the_numbers(built, tmp_path):
    text = subprocess.run(["pdftotext", "-layout", str(built["summarizers"] / "report.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    for expected in ("Summarizers A and B", "6.379", "0.02370", "4.303", "A > B on ROUGE-1 recall: t(2) = 6.38, p = 0.024",
                     "Page 1 of"):
        assert expected in text, expected


def test_summarizers_numbers_from_results_json(built):
    # Seed 000 worked example (digest example 1): t = 6.3790, df 2, two-sided p = 0.02370.
    doc = json.loads((built["summarizers"] / "results.json").read_text())
    pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    assert (pair["a"], pair["b"]) == ("A", "B")
    assert pair["statistic"] == pytest.approx(6.379052, abs=1e-6)
    assert pair["df"] == 2
    assert pair["pvalue"] == pytest.approx(0.02370, abs=5e-6)
    assert pair["significant"] is True


def test_one_sided_example_through_cli(cli, tmp_path):
    # Seed 000: alternative greater gives p = 0.01185 and critical t = 2.9200.
    spec = yaml.safe_load((CONFIGS / "summarizers.yaml").read_text())
    spec["tests"]["alternative"] = "greater"
    spec["data"]["scores"] = str(CONFIGS / "data" / "summarizers.csv")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec))
    r = cli("build", "-q", "-o", tmp_path / "out", "--formats", "json,html", tmp_path / "s.yaml")
    assert r.code == 0, r.err
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    assert pair["pvalue"] == pytest.approx(0.01185, abs=5e-6)
    assert pair["critical_value"] == pytest.approx(2.9200, abs=5e-5)
    assert "one-sided, H1: a &gt; b" in (tmp_path / "out" / "index.html").read_text()


def test_rm_anova_in_the_larger_example(built):
    doc = json.loads((built["summarization"] / "results.json").read_text())
    om = [a for a in doc["analyses"] if a["kind"] == "omnibus"]
    assert len(om) == 6  # 3 metrics x 2 corpora
    for a in om:
        assert set(a["corrections"]) == {"none", "greenhouse_geisser", "huynh_feldt", "lower_bound"}
        assert a["correction_applied"] in a["corrections"]
        assert a["pvalue_corrected"] == a["corrections"][a["correction_applied"]]["pvalue"]
        assert a["sphericity"]["epsilon_lb"] == pytest.approx(0.25)
    pw = [a for a in doc["analyses"] if a["kind"] == "pairwise"]
    assert all(len(a["pairs"]) == 10 for a in pw)
    for a in pw:
        for p in a["pairs"]:
            assert p["pvalue_adjusted"] >= p["pvalue"]


def test_builds_are_byte_identical(tmp_path, example):
    from sigreport.cli import main

    cfg = CONFIGS / "summarization.yaml"
    one = example("summarization")  # conftest: the session's build, in every format (the PDF too)
    two = tmp_path / "two"
    assert main(["build", "-q", "-o", str(two), "--formats", EXAMPLE_FORMATS, str(cfg)]) == 0
    files = sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    assert files and sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file()) == files
    assert {"report.pdf", "index.html", "results.json"} <= {f.as_posix() for f in files}
    for f in files:
        assert (one / f).read_bytes() == (two / f).read_bytes(), f


def test_default_output_dir_beside_the_spec(cli, tmp_path):
    import shutil

    shutil.copy(CONFIGS / "summarizers.yaml", tmp_path / "exp.yaml")
    (tmp_path / "data").mkdir()
    shutil.copy(CONFIGS / "data" / "summarizers.csv", tmp_path / "data")
    r = cli("build", "--formats", "json", tmp_path / "exp.yaml")
    assert r.code == 0 and (tmp_path / "reports" / "exp" / "results.json").exists()
    # a second build replaces the first one
    assert cli("build", "--formats", "html", tmp_path / "exp.yaml").code == 0
    assert not (tmp_path / "reports" / "exp" / "results.json").exists()
    assert (tmp_path / "reports" / "exp" / "index.html").exists()


def test_plan_and_validate_commands(cli):
    r = cli("plan", CONFIGS / "summarization.yaml")
    assert r.code == 0
    assert "rouge1/cnn-dm/omnibus  [omnibus: rm_anova, sphericity auto]  <- rouge1/cnn-dm/descriptives" in r.out
    v = cli("validate", CONFIGS / "summarization.yaml")
    assert v.code == 0 and v.out.startswith("ok: ")


def test_committed_schema_is_current():
    committed = json.loads((ROOT / "schema" / "sigreport.schema.json").read_text())
    assert committed == json_schema(), "regenerate: sigreport schema -o schema/sigreport.schema.json"


@pytest.mark.parametrize("cfg", CONFIG_FILES, ids=lambda p: p.stem)
def test_examples_match_the_schema(cfg):
    jsonschema.validate(yaml.safe_load(cfg.read_text()), json_schema())
