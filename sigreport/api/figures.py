"""A report's figures as plan tasks, run by the plan runner with the build's cache and workers.

The render layer says what each record draws (:func:`sigreport.render.views.drawing.figure_tasks`) and
draws it (:func:`~sigreport.render.views.drawing.draw_task`); here those tasks become a
:class:`~sigreport.plan.Plan` (render imports neither plan nor execute) run by
:func:`sigreport.execute.run_plan` in the cache's ``figures`` section, so that a record whose inputs did
not change (after one metric's data changed: every other metric's records) is a cache hit, drawn by no
one. The figures go to :func:`sigreport.render.views.build_report` as its ``drawn``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from sigreport.execute import Cache, run_plan
from sigreport.execute.forked import ForkedExecutor
from sigreport.plan import Node, Plan, content_keys
from sigreport.render.figures.output import FigureOutput
from sigreport.render.options import RenderOptions
from sigreport.render.views.drawing import FigureInputs, FigureStore, FigureTask, draw_task, figure_tasks
from sigreport.results import Results
from sigreport.speed import workers


def figure_plan(results: Results, tasks: Sequence[FigureTask]) -> Plan:
    """The figure tasks as plan nodes (kind ``figures``), each reading its record's block of :class:`FigureInputs`."""
    records = {r.id: r for r in results.records}
    return Plan(tuple(Node(t.id, "figures", records[t.record].metric, records[t.record].corpus, draw_task, t.params,
                           (t.block,)) for t in tasks))


def figure_store(cache: Cache, plan: Plan, inputs: FigureInputs) -> FigureStore:
    """The cache's ``figures`` section for ``plan``; a plan without PDFs also takes the entries of the same tasks
    with PDFs (a LaTeX build's), less their PDF bytes."""
    section = cache.section("figures")
    if all(n.params.pdf for n in plan.nodes):
        return FigureStore(section)
    with_pdf = Plan(tuple(dataclasses.replace(n, params=dataclasses.replace(n.params, pdf=True)) for n in plan.nodes))
    mine, theirs = content_keys(plan, inputs, section.version), content_keys(with_pdf, inputs, section.version)
    return FigureStore(section, {mine[k]: theirs[k] for k in mine})


def draw_figures(results: Results, options: RenderOptions, pdf: bool, jobs: int = 1, cache: Cache | None = None,
                 ready: workers.Ready | None = None, meanwhile: Callable[[], None] | None = None
                 ) -> dict[str, tuple[FigureOutput, ...]]:
    """Every record's figures by record id (``pdf``: with their vector PDF), from ``cache`` where it has them,
    the others drawn in ``jobs`` worker processes (or the workers ``ready`` forked ahead) and stored.
    ``meanwhile``: done once here, while the workers draw (or before returning, when nothing is drawn)."""
    done: list[bool] = []

    def once() -> None:
        if meanwhile is not None and not done:
            done.append(True)
            meanwhile()

    tasks = figure_tasks(results, options, pdf=pdf)
    if not tasks:
        once()
        return {}
    plan, inputs = figure_plan(results, tasks), FigureInputs(results, tasks[0].params.style)
    store = figure_store(cache, plan, inputs) if cache is not None else None
    drawn = run_plan(plan, inputs, ForkedExecutor(jobs, ready, once), None, store)  # one job, no ready workers: here
    once()
    return {t.record: drawn.get(t.id, ()) for t in tasks}
