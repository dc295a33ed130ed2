"""The figure cache (``--cache``) changes no byte of a report and never trusts a bad entry: a rebuild from
the cache equals a cold build file for file (figures included), also after one metric's data changed and
with ``--jobs 2``; a hit is not drawn again; a corrupted or foreign entry is redrawn and rewritten. The
figures are plan tasks (``sigreport.api.figures``) whose content keys are the cache's keys."""

from __future__ import annotations

import dataclasses
import os
import secrets
import time
import shutil
from pathlib import Path

import pytest
from conftest import CONFIGS

from sigreport.api.figures import draw_figures, figure_plan
from sigreport.api.pipeline import build
from sigreport.api.running import RunOptions
from sigreport.execute.cache import Cache
from sigreport.plan import content_keys
from sigreport.render.options import RenderOptions
from sigreport.render.views import drawing as cache_module
from sigreport.render.views.drawing import FigureInputs, figure_tasks
from sigreport.results.io import from_json

FORMATS = ["json", "html", "latex"]  # LaTeX: every figure also as a vector PDF under figures/


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the summarization example (3 metrics x 2 corpora, forest plots and p-value heatmaps)."""
    (tmp_path / "data").mkdir()
    shutil.copy(CONFIGS / "summarization.yaml", tmp_path / "spec.yaml")
    shutil.copy(CONFIGS / "data" / "summarization.csv", tmp_path / "data" / "summarization.csv")
    return tmp_path


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the records whose figures are drawn (each figure task draws its record with
    ``draw_record``; these builds draw in this process)."""
    drawn: list[str] = []
    real = cache_module.draw_record

    def counting(item):
        drawn.append(item[0].id)
        return real(item)

    monkeypatch.setattr(cache_module, "draw_record", counting)
    return drawn


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(project: Path, out: str, cache: bool = True, jobs: int = 1) -> dict[str, bytes]:
    options = RunOptions(jobs=jobs, cache=str(project / "cache") if cache else None)
    dest, _, _ = build(project / "spec.yaml", project / out, FORMATS, run=options)
    return files(dest)


def figure_entries(project: Path) -> list[Path]:
    return sorted((project / "cache" / "figures").glob("*/*.pkl"))


def change_metric(project: Path, metric: str) -> None:
    """Add 0.0001 to every value of ``metric`` (as benchmarks/bench_build.py's cache case does)."""
    path = project / "data" / "summarization.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        *head, m, value = line.split(",")
        out.append(",".join([*head, m, f"{float(value) + 0.0001:.4f}" if m == metric else value]))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def test_a_rebuild_from_the_cache_draws_nothing_and_writes_the_cold_bytes(project, draws):
    plain = run(project, "plain", cache=False)
    drawn_plain = len(draws)
    cold = run(project, "cold")
    assert len(draws) == 2 * drawn_plain > 0
    assert any(name.startswith("figures/") and name.endswith(".pdf") for name in cold)
    assert figure_entries(project), "the cold build stored no figure"
    warm = run(project, "warm")
    assert len(draws) == 2 * drawn_plain, "a figure in the cache was drawn again"
    assert warm == cold == plain


def test_after_one_metric_changed_only_its_figures_are_redrawn(project, draws):
    run(project, "first")
    change_metric(project, "rouge1")
    draws.clear()
    warm = run(project, "warm")
    assert draws and all(rid.startswith("rouge1/") for rid in draws), draws
    assert warm == run(project, "cold", cache=False)


def test_a_corrupted_or_foreign_entry_is_redrawn_and_rewritten(project, draws):
    cold = run(project, "cold")
    entries = figure_entries(project)
    assert len(entries) >= 2
    damaged, foreign = entries[0], entries[1]
    blob = bytearray(damaged.read_bytes())
    blob[-1] ^= 0xFF  # a flipped bit in the pickled figure: the signature no longer matches
    damaged.write_bytes(bytes(blob))
    other = Cache(foreign.parent.parent, secrets.token_bytes(32), "forged")  # another cache folder's key
    other.put(foreign.stem, ("not", "figures"))
    draws.clear()
    assert run(project, "again") == cold
    assert len(draws) == 2, "exactly the two bad entries are drawn again"
    draws.clear()
    assert run(project, "third") == cold
    assert draws == [], "the bad entries were rewritten by the rebuild"


def test_two_jobs_with_the_figure_cache_give_the_one_job_bytes(project):
    serial = run(project, "serial", cache=False, jobs=1)
    assert run(project, "cold2", jobs=2) == serial  # drawn in two workers, stored by the parent
    change_metric(project, "rougeL")
    changed = run(project, "changed1", cache=False, jobs=1)
    assert run(project, "warm2", jobs=2) == changed  # mixed: hits and two-worker draws
    assert run(project, "warm1", jobs=1) == changed


def figure_key(record, metric, kinds, pdf, version, results) -> str:
    """The content key of ``record``'s figure task with these kinds and PDF setting (the plan's key)."""
    task = next(t for t in figure_tasks(results, RenderOptions(), pdf=pdf) if t.record == record.id)
    task = dataclasses.replace(task, params=dataclasses.replace(task.params, kinds=kinds))
    if metric is None:
        results = dataclasses.replace(results, metrics={k: v for k, v in results.metrics.items() if k != record.metric})
    return content_keys(figure_plan(results, [task]), FigureInputs(results, task.params.style), version)[task.id]


def test_the_key_changes_with_what_changes_a_figure(project):
    run(project, "first", cache=False)
    results = from_json((project / "first" / "results.json").read_text(encoding="utf-8"))
    r = next(r for r in results.records if r.kind == "pairwise")
    metric = results.metrics[r.metric]
    base = figure_key(r, metric, ("forest",), True, "v1", results)
    assert base == figure_key(r, metric, ("forest",), True, "v1", results)
    assert len({base, figure_key(r, metric, ("forest", "pvalues"), True, "v1", results),
                figure_key(r, metric, ("forest",), False, "v1", results),
                figure_key(r, metric, ("forest",), True, "v2", results),
                figure_key(r, None, ("forest",), True, "v1", results)}) == 5
    other = next(x for x in results.records if x.kind == "pairwise" and x.id != r.id)
    assert figure_key(other, results.metrics[other.metric], ("forest",), True, "v1", results) != base


class Store:
    """A figure store in memory (the protocol the runner sees), counting what it is asked."""

    version = "test"

    def __init__(self) -> None:
        self.entries: dict[str, object] = {}

    def section(self, name: str) -> "Store":
        return self

    def get(self, key: str) -> tuple[bool, object]:
        return (key in self.entries, self.entries.get(key))

    def put(self, key: str, value: object) -> None:
        self.entries[key] = value


def test_a_stored_value_that_is_not_figures_is_redrawn(project, draws):
    from sigreport.render.views import build_report

    run(project, "first", cache=False)
    results = from_json((project / "first" / "results.json").read_text(encoding="utf-8"))
    store = Store()
    draws.clear()
    want = build_report(results, drawn=draw_figures(results, RenderOptions(), False, cache=store))
    # one entry per record with figures; the others (descriptives, omnibus tests) are not even looked up
    assert store.entries and len(draws) == len(store.entries) < len(results.records)
    for k in store.entries:
        store.entries[k] = "not figures"
    draws.clear()
    again = build_report(results, drawn=draw_figures(results, RenderOptions(), False, cache=store))
    assert len(draws) == len(store.entries)
    assert [f.svg for f in again.figures()] == [f.svg for f in want.figures()]


def test_an_html_build_takes_the_figures_a_latex_build_stored(project, draws):
    options = RunOptions(cache=str(project / "cache"))
    build(project / "spec.yaml", project / "tex", ["html", "latex"], run=options)
    draws.clear()
    dest, _, _ = build(project / "spec.yaml", project / "html", ["html"], run=options)
    assert draws == [], "the LaTeX build's figures (SVG and PDF) were drawn again for HTML"
    plain, _, _ = build(project / "spec.yaml", project / "plain", ["html"], run=RunOptions(cache=None))
    assert files(dest) == files(plain)
    assert not (dest / "figures").exists()


def test_no_cache_keeps_no_figures(project, draws):
    run(project, "one", cache=False)
    first = len(draws)
    run(project, "two", cache=False)
    assert len(draws) == 2 * first > 0
    assert not (project / "cache").exists() and not (project / ".sigreport-cache").exists()


def test_a_build_prunes_the_cache_to_what_it_used(project):
    """With a zero limit (--cache-limit 0) the cache keeps exactly the entries of the last build: after a
    metric changed, the old entries of that metric go (analyses and figures alike), the rebuild's stay and
    a third build still hits every one of them."""
    def entries() -> set[str]:
        return {p.name for p in (project / "cache").rglob("*.pkl")}

    def build_once(out: str) -> Cache:
        options = RunOptions(jobs=1, cache=str(project / "cache"), cache_limit=0)
        build(project / "spec.yaml", project / out, FORMATS, run=options)
        return Cache.open(project / "cache", "unused")

    build_once("a")
    first = entries()
    for path in (project / "cache").rglob("*.pkl"):  # an hour ago (a build keeps what the last 2 s wrote)
        os.utime(path, (time.time() - 3600,) * 2)
    change_metric(project, "rouge1")
    build_once("b")
    second = entries()
    assert first - second and second - first  # the changed metric's old entries went, its new ones came
    assert len(second) == len(first)  # exactly one build's worth
    dest, _, _ = build(project / "spec.yaml", project / "c", FORMATS, run=RunOptions(jobs=1, cache=str(project / "cache")))
    assert entries() == second and files(project / "c") == files(project / "b")
