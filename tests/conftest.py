"""Shared helpers of every test folder: run the CLI in-process, build a spec and read its results.json back,
write specs and data into a temporary folder, and the paths of the checkout."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run and machine (CI must not pass or fail by chance; a
# failure found once is found again). SIGREPORT_FRESH_FUZZ=1 gives tests/whole/test_fuzz.py's long run
# fresh randomness.
settings.register_profile("sigreport", derandomize=True, database=None)
settings.load_profile("sigreport")

from sigreport.cli import main

# The suite's folder (its tests sit in subfolders by the package they test), the checkout, and the examples.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CONFIGS = ROOT / "configs"
# Pinned outputs of every example (tests/whole/test_golden.py writes and compares them).
GOLDEN = TESTS / "golden"

# The smallest valid spec and table (the source's worked example): the base of many bad-input tests.
GOOD_DATA = """\
system,corpus,item,metric,value
A,c,t1,m,0.59
A,c,t2,m,0.58
A,c,t3,m,0.57
B,c,t1,m,0.39
B,c,t2,m,0.44
B,c,t3,m,0.45
"""

GOOD_SPEC = """\
title: t
data:
  scores: scores.csv
metrics:
  m:
    higher_is_better: true
"""


@pytest.fixture(scope="session", autouse=True)
def private_config_home(tmp_path_factory):
    """The cache's signing key goes to ``$XDG_CONFIG_HOME/sigreport/cache-key``: in tests, a session folder
    (inherited by the builds tests start in subprocesses), never the home folder of whoever runs them."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config-home")))
        yield


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    def run(*args: str) -> CliResult:
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def run_cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """The command line in-process with ``capsys``: its exit code, standard output and standard error."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli_build(spec: Path, out: Path | None, *args: object, formats: str | None = "json",
                 cli: Callable[..., CliResult] | None = None, quiet: bool = True) -> CliResult:
    """Build ``spec`` into ``out`` (None: where the spec or ``--release`` puts it) through the command line, in
    ``formats`` (None: the spec's), plus ``args`` (``--no-cache``, ``--cache DIR``, ...), quietly unless ``quiet``
    is false (then the summary, "(N files ...)", is in the result's ``out``): the build must succeed (its
    standard error is the failure's message). ``cli``: the fixture; without it (a module-scoped fixture, which
    cannot take it) the output is captured here. Returns the exit code and what it printed."""
    argv = ["build", *(["-q"] if quiet else []), *(["-o", out] if out is not None else []),
            *(["--formats", formats] if formats is not None else []), *args, spec]
    if cli is not None:
        r = cli(*argv)
    else:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main([str(a) for a in argv])
        r = CliResult(code, stdout.getvalue(), stderr.getvalue())
    assert r.code == 0, r.err
    return r


def build_results(cli: Callable[..., CliResult], spec: Path, out: Path, *args: object, formats: str = "json") -> dict:
    """Build ``spec`` into ``out`` (:func:`cli_build`, quietly, in ``formats``, plus ``args``). Returns the
    results.json it wrote, as read back."""
    cli_build(spec, out, *args, formats=formats, cli=cli)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def build_files(cli: Callable[..., CliResult], workdir: Any, spec: str, files: dict[str, str],
                formats: str = "json") -> dict:
    """Write ``spec`` as spec.yaml and ``files`` (name -> text) into ``workdir``, build them into its ``out``
    folder (:func:`build_results`) and return the results.json."""
    workdir.write("spec.yaml", spec)
    for name, text in files.items():
        workdir.write(name, text)
    return build_results(cli, workdir.path / "spec.yaml", workdir.path / "out", formats=formats)


EXAMPLE_FORMATS = "json,html,latex,pdf"


@pytest.fixture(scope="session")
def example(tmp_path_factory):
    """``example(name)``: the folder of ``configs/<name>.yaml`` built once per session in every format.

    Shared by every test that reads an example's report (a build draws every figure and the PDF: by far
    the suite's largest cost), so treat it as read-only: a test that changes files copies the folder first.
    """
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            dest = tmp_path_factory.mktemp(f"example-{name}") / name
            code = main(["build", "-q", "--formats", EXAMPLE_FORMATS, "-o", str(dest), str(CONFIGS / f"{name}.yaml")])
            assert code == 0, name
            built[name] = dest
        return built[name]

    return get


def page_param(page: str) -> Any:
    """``page`` as a parameter of a test or fixture in the xdist group ``page-<page>``: the tests of one page
    preset run in one worker, so that :func:`page_builds` builds every example for that page once per run."""
    return pytest.param(page, marks=pytest.mark.xdist_group(f"page-{page}"))


@pytest.fixture(scope="session")
def page_builds(tmp_path_factory):
    """``page_builds(page)``: every configs/ example built once per session for the page preset ``page``
    (outputs.latex.page set, LaTeX only, the analyses from the examples' own cache: only the rendering is
    new), as {example: report folder}. Shared by the paper and figure tests of that page (in one xdist group
    through :func:`page_param`), so treat it as read-only."""
    built: dict[str, dict[str, Path]] = {}

    def get(page: str) -> dict[str, Path]:
        if page not in built:
            import yaml

            work = tmp_path_factory.mktemp(f"page-{page}")
            (work / "data").symlink_to(CONFIGS / "data")
            built[page] = {}
            for spec in sorted(CONFIGS.glob("*.yaml")):
                doc = yaml.safe_load(spec.read_text(encoding="utf-8"))
                doc.setdefault("outputs", {}).setdefault("latex", {})["page"] = page
                (work / spec.name).write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True),
                                              encoding="utf-8")
                cli_build(work / spec.name, work / spec.stem, "--cache", CONFIGS / ".sigreport-cache",
                          formats="latex")
                built[page][spec.stem] = work / spec.stem
        return built[page]

    return get


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own hook (see _in_xdist_group)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that reads :func:`example`'s builds (directly or through a fixture) is in one xdist group:
    with ``--dist loadgroup`` (scripts/test) they run in one worker, so that each example is built once per
    run, not once per worker (each build draws every figure and the PDF). The slow tests go first, so that
    no worker is left running one of them at the end while the other has finished."""
    for item in items:
        if "example" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("examples"))
    if getattr(config.option, "loadgroup", False):  # set in xdist's workers by --dist loadgroup
        for item in items:
            _in_xdist_group(item)
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("slow") is None)


def _in_xdist_group(item: pytest.Item) -> None:
    """Give ``item`` the node id suffix ``@<group>`` by which pytest-xdist's loadgroup scheduler groups
    tests, as its worker does for marked tests: xdist 3.8 writes the suffix into ``item._nodeid``, which
    pytest 9.2 no longer reads (its node ids are structured, ``item._id``; pytest-xdist issue 1386), so every
    test was scheduled on its own and each worker built every example; and xdist never sees the marker
    added above."""
    names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                    for m in item.iter_markers("xdist_group")})
    suffix = f"@{'_'.join(names)}"
    if not names or item.nodeid.endswith(suffix):
        return
    if hasattr(item, "_id") and not isinstance(item._id, str):
        item._id = type(item._id).parse(item.nodeid + suffix)
    else:
        item._nodeid = item.nodeid + suffix


def corpora_spec(folder: Path, seed: int, spec_seed: int, items: int, tests: str, corpora: int = 8) -> Path:
    """A spec over ``corpora`` corpora of ``items`` items, four systems (A-D, a small shift each) and two metrics,
    its scores drawn from ``seed`` (the spec's own seed ``spec_seed``): a plan with many corpora for the executors'
    batching tests."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = ["system,corpus,item,metric,value"]
    for c in range(corpora):
        base = rng.standard_normal(items)
        for j, s in enumerate("ABCD"):
            for m in ("m0", "m1"):
                v = 0.5 + 0.1 * base + 0.05 * rng.standard_normal(items) + 0.02 * j
                rows += [f"{s},c{c},i{i},{m},{v[i]:.6f}" for i in range(items)]
    (folder / "scores.csv").write_text("\n".join(rows) + "\n")
    spec = folder / "spec.yaml"
    spec.write_text(f"title: t\nseed: {spec_seed}\ndata: {{scores: scores.csv}}\nmetrics:\n"
                    f"  m0: {{higher_is_better: true}}\n  m1: {{higher_is_better: true}}\ntests: {tests}\n")
    return spec


@pytest.fixture
def workdir(tmp_path):
    """A folder with helpers to write a spec and its data files."""

    class W:
        path = tmp_path

        def write(self, name: str, text: str) -> Path:
            p = tmp_path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
            return p

        def results(self, out: str = "out") -> dict:
            return json.loads((tmp_path / out / "results.json").read_text())

    return W()


def assert_user_error(cli, spec: Path, out: Path, name: str, fragments: list[str]) -> None:
    """validate and build both fail with exit 2, one line per problem, the fragments, and nothing written."""
    for command in (["validate"], ["build", "-o", str(out)]):
        r = cli(*command, spec)
        assert r.code == 2, (name, r)
        assert "Traceback" not in r.err
        assert r.err.startswith("error: "), r.err
        for frag in fragments:
            assert frag in r.err, f"{name}: {frag!r} not in:\n{r.err}"
        assert all(line.startswith(("error: ", "  ")) for line in r.err.rstrip("\n").splitlines())
        assert not out.exists(), "a failed build must write nothing"


def needs(tool: str):
    return pytest.mark.skipif(shutil.which(tool) is None, reason=f"{tool} is not installed")


def pdflatex_compile(tex_body: str, workdir: Path, preamble: str = "") -> subprocess.CompletedProcess:
    doc = ("\\documentclass{article}\n\\usepackage[margin=1cm,landscape]{geometry}\n\\usepackage{booktabs}\n"
           "\\usepackage{amsmath}\n\\usepackage{amssymb}\n\\usepackage{longtable}\n" + preamble +
           "\\begin{document}\n" + tex_body + "\n\\end{document}\n")
    (workdir / "doc.tex").write_text(doc, encoding="utf-8")
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=workdir,
                          capture_output=True, text=True, timeout=120)


def aggregate_spec(workdir, module: str, source: str) -> Path:
    """A spec of precision from tp and fp by the user aggregate ``module:precision`` (``source``, written beside
    it), two systems on three items, bootstrap with 99 resamples."""
    (workdir.path / f"{module}.py").write_text(source)
    rows = ["system,corpus,item,metric,value"]
    for s, items in {"A": [(1, 0), (1, 1), (2, 0)], "B": [(0, 1), (1, 0), (1, 1)]}.items():
        for i, (tp, fp) in enumerate(items):
            rows += [f"{s},c,i{i},tp,{tp}", f"{s},c,i{i},fp,{fp}"]
    (workdir.path / "s.csv").write_text("\n".join(rows) + "\n")
    return workdir.write("spec.yaml", f"""
        title: t
        data: {{scores: s.csv}}
        metrics: {{p: {{higher_is_better: true, aggregate: '{module}:precision', statistics: [tp, fp]}}}}
        tests: {{pairwise: bootstrap, resamples: 99}}
        """)


# Headless Chromium for the page-layout tests (scripts/test installs it; those tests are skipped without it).
CHROMIUM = next((c for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--allow-file-access-from-files"]


def chromium_measure(page: Path, width: int, probe: str) -> dict:
    """What the script of ``probe`` (an HTML page with an iframe of ``%(src)s`` ``%(width)d`` px wide that writes
    JSON into ``<pre id="out">``) measures of ``page`` laid out ``width`` px wide: Chromium's window is no narrower
    than 500 px, so a phone's 390 px is an iframe."""
    wrapper = page.parent / f"probe-{width}.html"
    wrapper.write_text(probe % {"src": page.name, "width": width}, encoding="utf-8")
    return chromium_probe(wrapper, max(width, 500) + 40)


def chromium_probe(wrapper: Path, window: int, budget_ms: int = 5000) -> Any:
    """The JSON that the script of the page ``wrapper`` writes into its ``<pre id="out">`` once Chromium (one
    process, a window ``window`` px wide) has laid it out: one page may hold many report pages in iframes."""
    import html

    r = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--window-size={window},2000",
                        f"--virtual-time-budget={budget_ms}", "--dump-dom", wrapper.as_uri()],
                       capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="out">(.*?)</pre>', r.stdout, re.S)
    assert found and found.group(1), f"Chromium measured nothing: {r.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))
