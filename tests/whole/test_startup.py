"""Start-up: each command imports only what it uses.

Importing scipy.stats, statsmodels, weasyprint, matplotlib or jinja2 costs from a few hundred
milliseconds to seconds each; ``--help``, ``validate``, ``schema`` and a json-only build must not pay
for the ones they never call. pandas (about a third of a second) is needed only for JSON Lines, Parquet,
data frames given to the Python API and the label tables; pyarrow only for large delimited files. Each case runs in a fresh interpreter (``sys.modules`` of the test process
is polluted by every other test) and reports which of the watched modules got imported. These are not
timing tests: the timings are in ``benchmarks/bench_build.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import CONFIGS, ROOT

WATCHED = ("numpy", "pandas", "pyarrow", "scipy", "scipy.stats", "scipy.stats._ansari_swilk_statistics", "statsmodels", "weasyprint", "matplotlib", "jinja2",
           "pydantic", "sigreport.render", "sigreport.stats", "sigreport.data.scores", "sigreport.archive.diff",
           "multiprocessing", "concurrent.futures", "subprocess", "logging", "sigreport.api.pipeline",
           "sigreport.archive.store", "sigreport.execute")
BUILDING = {"multiprocessing", "concurrent.futures", "subprocess", "logging", "sigreport.api.pipeline",
            "sigreport.archive.store", "sigreport.execute"}  # the build's workers, executor, writers and archive
RENDERING = {"weasyprint", "matplotlib", "jinja2", "sigreport.render"}

SCRIPT = textwrap.dedent("""
    import contextlib, io, json, sys
    from sigreport.cli import main
    args = json.loads(sys.argv[1])
    code = None
    if args:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exc:
                code = exc.code
    watched = json.loads(sys.argv[2])
    print(json.dumps({"code": code, "loaded": sorted(m for m in watched if m in sys.modules)}))
""")


def loaded_after(*args: str) -> tuple[object, set[str]]:
    """Exit code of ``sigreport ARGS`` in a fresh interpreter, and the watched modules it imported."""
    r = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps([str(a) for a in args]), json.dumps(WATCHED)],
                       capture_output=True, text=True, cwd=ROOT, check=True)
    info = json.loads(r.stdout.strip().splitlines()[-1])
    return info["code"], set(info["loaded"])


def small_spec(tmp_path: Path) -> Path:
    """configs/summarizers.yaml (6 score rows, paired t + RM-ANOVA) copied with its data."""
    (tmp_path / "data").mkdir()
    shutil.copy(CONFIGS / "data" / "summarizers.csv", tmp_path / "data")
    shutil.copy(CONFIGS / "summarizers.yaml", tmp_path)
    return tmp_path / "summarizers.yaml"


def test_importing_the_cli_imports_no_library():
    code, loaded = loaded_after()
    assert code is None and not loaded, loaded


def test_help_imports_no_library():
    code, loaded = loaded_after("--help")
    assert code == 0 and not loaded, loaded


def test_validate_reads_the_data_but_imports_no_statistics_or_rendering(tmp_path):
    code, loaded = loaded_after("validate", small_spec(tmp_path))
    assert code == 0
    assert "sigreport.data.scores" in loaded  # it does read the table: the check is not vacuous
    # a small CSV is read by the csv module: neither pandas nor pyarrow is needed
    assert not loaded & ({"pandas", "pyarrow", "scipy.stats", "statsmodels"} | RENDERING), loaded
    assert "sigreport.archive.diff" not in loaded  # releases and their diffs only for --release


def test_validate_and_plan_import_no_build_machinery(tmp_path):
    """``validate`` and ``plan`` stop after the plan: the workers, executor, cache, writers and archive a
    build needs (about 40 modules, a tenth of validate's start-up: docs/performance.md) are not imported."""
    spec = small_spec(tmp_path)
    for command in ("validate", "plan"):
        code, loaded = loaded_after(command, spec)
        assert code == 0 and "sigreport.data.scores" in loaded
        assert not loaded & BUILDING, (command, loaded & BUILDING)
    code, loaded = loaded_after("build", spec, "--formats", "json", "-o", tmp_path / "out", "--no-cache", "-q")
    assert code == 0 and BUILDING <= loaded  # the names are right: a build does import them


def test_validate_of_a_large_table_reads_it_with_pyarrow_but_not_pandas(tmp_path):
    spec = small_spec(tmp_path)
    rows = "".join(f"{s},texts,i{i},rouge1_recall,0.{(i * 7 + len(s)) % 1000:03d}\n" for s in ("A", "B") for i in range(30_000))
    (tmp_path / "data" / "summarizers.csv").write_text("system,corpus,item,metric,value\n" + rows, encoding="utf-8")
    assert (tmp_path / "data" / "summarizers.csv").stat().st_size > 1 << 20  # above tables.SMALL_TABLE_BYTES
    code, loaded = loaded_after("validate", spec)
    assert code == 0
    assert "pyarrow" in loaded and "pandas" not in loaded, loaded


def test_json_only_build_imports_no_rendering(tmp_path):
    spec = small_spec(tmp_path)
    code, loaded = loaded_after("build", spec, "--formats", "json", "-o", tmp_path / "out", "--no-cache", "-q")
    assert code == 0 and (tmp_path / "out" / "results.json").is_file()
    # the paired t test ran: Shapiro-Wilk's compiled routine was loaded without scipy.stats's ~0.6 s import
    assert "scipy.stats._ansari_swilk_statistics" in loaded, loaded
    assert not loaded & ({"pandas", "scipy.stats", "statsmodels", "sigreport.archive.diff"} | RENDERING), loaded


def test_html_build_imports_the_renderer_but_not_the_pdf_engine(tmp_path):
    spec = small_spec(tmp_path)
    code, loaded = loaded_after("build", spec, "--formats", "html", "-o", tmp_path / "out", "--no-cache", "-q")
    assert code == 0
    assert {"jinja2", "sigreport.render"} <= loaded
    assert "weasyprint" not in loaded


def test_schema_imports_only_the_spec_models(tmp_path):
    code, loaded = loaded_after("schema", "-o", tmp_path / "schema.json")
    assert code == 0
    assert not loaded & ({"numpy", "pandas", "pyarrow", "scipy", "statsmodels"} | RENDERING), loaded
