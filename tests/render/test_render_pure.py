"""The renderer is a pure function of (results, options, drawn figures): given the drawn figures,
``build_report`` draws nothing and starts no process; the decisions and the main table's columns are
found once per report."""

from __future__ import annotations

import importlib
import multiprocessing

import pytest
from conftest import CONFIGS

from sigreport.api import analyze
from sigreport.api.figures import draw_figures
from sigreport.render import views
from sigreport.render.figures import output
from sigreport.render.options import RenderOptions
from sigreport.render.views import drawing, main
from sigreport.speed import workers


conclusions = importlib.import_module("sigreport.render.views.conclusions")  # the package exports its function


@pytest.fixture(scope="module")
def results():
    return analyze(CONFIGS / "summarization.yaml")  # forest plots and p-value heat maps, no baseline


def _figures(model) -> list[tuple[str, str, bytes]]:
    return [(f.name, f.svg, f.pdf) for f in model.figures()]


def test_given_the_drawn_figures_build_report_draws_nothing(results, monkeypatch):
    want = views.build_report(results, "summarization.yaml")  # draws its own (a model from results alone)
    drawn = draw_figures(results, RenderOptions(), pdf=True)
    assert sum(map(len, drawn.values())) == len(want.figures()) >= 2

    def refuse(*args, **kwargs):
        raise AssertionError("the renderer drew a figure or started a process")

    for module, name in [(drawing, "draw_record"), (drawing, "start_figures"), (output, "new_figure"),
                         (output, "export"), (workers, "start"), (workers.Ready, "run")]:
        monkeypatch.setattr(module, name, refuse)
    got = views.build_report(results, "summarization.yaml", drawn=drawn)
    assert multiprocessing.active_children() == []
    assert _figures(got) == _figures(want)
    assert got == want  # the whole model, figures placed where the drawing build_report placed them


def test_the_main_tables_columns_are_found_once(results, monkeypatch):
    calls: list[str] = []
    real = main.columns_of

    def counting(*args, **kwargs):
        calls.append("columns_of")
        return real(*args, **kwargs)

    for module in (views, main, conclusions):  # every module that names it
        monkeypatch.setattr(module, "columns_of", counting)
    model = views.build_report(results, "summarization.yaml", figures=())
    assert model.main and model.conclusions and model.baseline is None  # no spec baseline: read from the columns
    assert calls == ["columns_of"]


def test_the_decisions_are_made_once(results, monkeypatch):
    calls: list[str] = []
    real = views.decide

    def counting(*args, **kwargs):
        calls.append("decide")
        return real(*args, **kwargs)

    monkeypatch.setattr(views, "decide", counting)
    for module in (main, conclusions):
        if hasattr(module, "decide"):
            monkeypatch.setattr(module, "decide", counting)
    views.build_report(results, "summarization.yaml", figures=())
    assert calls == ["decide"]
