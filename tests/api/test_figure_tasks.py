"""A report's figures are plan tasks run by the plan runner with the build's cache: after one metric's
data changed, only that metric's figure tasks draw; every other record's figures are cache hits."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CONFIGS

from sigreport.api import analyze
from sigreport.api.figures import draw_figures, figure_plan
from sigreport.render.options import RenderOptions
from sigreport.render.views import drawing
from sigreport.render.views.drawing import figure_tasks


class Store:
    """An in-memory cache (what the runner sees), counting hits."""

    version = "test"

    def __init__(self) -> None:
        self.entries: dict[str, object] = {}
        self.hits = 0

    def section(self, name: str) -> "Store":
        return self

    def get(self, key: str) -> tuple[bool, object]:
        self.hits += key in self.entries
        return (key in self.entries, self.entries.get(key))

    def put(self, key: str, value: object) -> None:
        self.entries[key] = value


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the records whose figure task drew (in this process: one job)."""
    drawn: list[str] = []
    real = drawing.draw_record

    def counting(item):
        drawn.append(item[0].id)
        return real(item)

    monkeypatch.setattr(drawing, "draw_record", counting)
    return drawn


def change_metric(path: Path, metric: str) -> None:
    """Add 0.0001 to every value of ``metric`` (as benchmarks/bench_build.py's cache case does)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        *head, m, value = line.split(",")
        out.append(",".join([*head, m, f"{float(value) + 0.0001:.4f}" if m == metric else value]))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def test_the_figures_are_one_plan_task_per_record_that_draws(tmp_path):
    results = analyze(CONFIGS / "summarization.yaml")
    tasks = figure_tasks(results, RenderOptions(), pdf=False)
    plan = figure_plan(results, tasks)
    assert [n.id for n in plan.nodes] == [f"figures/{t.record}" for t in tasks]
    assert {n.kind for n in plan.nodes} == {"figures"} and all(n.fn is drawing.draw_task for n in plan.nodes)
    drawn_ids = {r.id for r in results.records if drawing.figure_plan(r, results, RenderOptions().figures)}
    assert {t.record for t in tasks} == drawn_ids and 0 < len(tasks) < len(results.records)


def test_after_one_metric_changed_only_its_figure_tasks_draw(tmp_path, draws):
    (tmp_path / "data").mkdir()
    shutil.copy(CONFIGS / "summarization.yaml", tmp_path / "spec.yaml")
    shutil.copy(CONFIGS / "data" / "summarization.csv", tmp_path / "data" / "summarization.csv")
    store = Store()
    first = analyze(tmp_path / "spec.yaml")
    draw_figures(first, RenderOptions(), pdf=False, cache=store)
    tasks = figure_tasks(first, RenderOptions(), pdf=False)
    assert sorted(draws) == sorted(t.record for t in tasks) and store.hits == 0

    change_metric(tmp_path / "data" / "summarization.csv", "rouge1")
    changed = analyze(tmp_path / "spec.yaml")
    draws.clear()
    got = draw_figures(changed, RenderOptions(), pdf=False, cache=store)
    mine = [t.record for t in tasks if t.record.startswith("rouge1/")]
    assert mine and sorted(draws) == sorted(mine), draws  # the changed metric's tasks, each drawn once
    assert store.hits == len(tasks) - len(mine) > 0  # every other metric's figures: cache hits
    draws.clear()
    assert got == draw_figures(changed, RenderOptions(), pdf=False)  # the bytes drawn without a cache


def test_the_views_are_built_once_while_the_workers_draw(tmp_path):
    """``meanwhile`` (a build's views) runs once: while two workers draw, or when every figure is a hit."""
    import multiprocessing

    results = analyze(CONFIGS / "summarization.yaml")
    calls: list[int] = []
    store = Store()
    want = draw_figures(results, RenderOptions(), pdf=False)
    assert draw_figures(results, RenderOptions(), pdf=False, jobs=2, cache=store,
                        meanwhile=lambda: calls.append(len(multiprocessing.active_children()))) == want
    assert len(calls) == 1 and (calls[0] >= 1 or not multiprocessing.get_all_start_methods().count("fork"))
    assert draw_figures(results, RenderOptions(), pdf=False, cache=store, meanwhile=lambda: calls.append(0)) == want
    assert len(calls) == 2 and store.hits > 0


def test_a_failure_while_the_workers_draw_stops_them():
    import multiprocessing

    results = analyze(CONFIGS / "summarization.yaml")

    def fail() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        draw_figures(results, RenderOptions(), pdf=False, jobs=2, meanwhile=fail)
    assert multiprocessing.active_children() == []
