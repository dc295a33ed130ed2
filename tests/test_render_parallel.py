"""Rendering speed-ups change no byte: figures drawn in worker processes (``--jobs``) and PDFs whose font
subset comes from the cache equal figures drawn the plain way."""

from __future__ import annotations

import contextlib

import pytest
from conftest import CONFIGS

from sigreport.api import analyze
from sigreport.render.figures import output
from sigreport.render.html import render_html
from sigreport.render.views import build_report


@pytest.fixture(scope="module")
def results():
    return analyze(CONFIGS / "summarization.yaml")


def _figures(model) -> list[tuple[str, str, bytes]]:
    return [(f.name, f.svg, f.pdf) for f in model.figures()]


def test_figures_drawn_in_two_workers_are_the_serial_bytes(results):
    serial = build_report(results, "summarization.yaml")
    parallel = build_report(results, "summarization.yaml", figure_jobs=2)
    assert len(_figures(serial)) >= 2  # several figures, so the workers really share them out
    assert _figures(parallel) == _figures(serial)
    assert render_html(parallel) == render_html(serial)


def test_cached_font_subsets_give_the_pdf_matplotlib_writes(results, monkeypatch):
    output._SUBSETS.clear()
    cached = [build_report(results, "summarization.yaml") for _ in range(2)]  # cold cache, then every hit
    assert output._SUBSETS, "the PDF export did not go through the subset cache"
    monkeypatch.setattr(output, "subset_cache", contextlib.nullcontext)  # matplotlib's own subsetting
    plain = build_report(results, "summarization.yaml")
    assert _figures(cached[0]) == _figures(cached[1]) == _figures(plain)
    assert all(pdf for _, _, pdf in _figures(plain))



def test_a_failure_while_the_workers_draw_stops_them(results, monkeypatch):
    """The views are built while the workers draw; when that fails, the error reaches the caller and no
    worker process is left behind."""
    import multiprocessing

    from sigreport.render import views

    def fail(results, lab):
        raise OSError("disk full")

    monkeypatch.setattr(views, "main_tables", fail)
    with pytest.raises(OSError, match="disk full"):
        build_report(results, "summarization.yaml", figure_jobs=2)
    assert multiprocessing.active_children() == []
