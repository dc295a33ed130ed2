"""The win-rate matrix of preference votes (render/figures/winrates.py): its cells are the record's win rates,
in strength order, shaded in LEVELS steps; deterministic; drawn for a preferences record only."""

from __future__ import annotations

import numpy as np

import sigreport
from conftest import CONFIGS
from sigreport.render.figures import figure_plan
from sigreport.render.figures.output import style
from sigreport.render.figures.winrates import LEVELS, draw_winrates, strength_order, winrate_figure

SPEC = {"title": "w", "seed": 1, "tests": {"preferences": {"resamples": 99}}}


def record(n_systems: int = 4):
    import pandas as pd

    rng = np.random.default_rng(0)
    names = [f"m{i}" for i in range(n_systems)]
    rows = []
    for _ in range(40 * n_systems):
        a, b = rng.choice(n_systems, 2, replace=False)
        shift = 0.3 * (b - a) / n_systems  # lower index, stronger
        rows.append((names[a], names[b], rng.choice(["a", "b", "tie"], p=[0.45 + shift, 0.45 - shift, 0.1])))
    frame = pd.DataFrame(rows, columns=["a", "b", "winner"])
    rec, = sigreport.analyze(sigreport.load_spec(SPEC), preferences=frame).records
    return rec


def test_cells_are_the_win_rates_in_strength_order():
    rec = record(4)
    order = strength_order(rec)
    assert [rec.systems[i].strength for i in order] == sorted((s.strength for s in rec.systems), reverse=True)
    with style():
        fig = winrate_figure(rec)
    ax = fig.axes[0]
    want = [f"{rec.win_rates[i][j]:.2f}" for i in order for j in order if i != j]
    assert [t.get_text() for t in ax.texts] == want  # row by row, the diagonal left out
    labels = [t.get_text() for t in fig.texts if t.get_text()]
    assert labels == [rec.systems[i].system for i in order] * 2  # column labels, then row labels
    # 12 cells and the diagonal's 4, in at most LEVELS + 1 shades and the diagonal's grey
    (cells,) = ax.collections
    filled = [p for p, face in zip(cells.get_paths(), cells.get_facecolors()) if face[3] > 0]
    assert len(filled) <= LEVELS + 2
    assert sum(int((p.codes == 1).sum()) for p in filled) == 16


def test_large_matrix_is_a_few_paths_without_text():
    rec = record(15)
    with style():
        fig = winrate_figure(rec)
    ax = fig.axes[0]
    assert not ax.texts
    (cells,) = ax.collections
    assert len(cells.get_paths()) <= LEVELS + 5


def test_same_record_same_bytes_and_only_preferences_draw_it():
    rec = record(4)
    assert draw_winrates(rec).svg == draw_winrates(rec).svg
    assert [d().name for d in figure_plan(rec)] == ["winrates-preferences-votes-bradley-terry"]
    demsar = sigreport.analyze(str(CONFIGS / "demsar.yaml"))
    assert not any(d().name.startswith("winrates") for r in demsar.records for d in figure_plan(r, demsar))
