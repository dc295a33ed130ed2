"""Trends across releases: every system's value per metric and corpus, release after release.

For each (metric, corpus) of the archive's releases (oldest first, in build order): each system's value
with the interval the report gives it, whether it is in the best tier of that release's decisions
(:mod:`sigreport.results.decisions`, ties shared), and whether it changed significantly from the release
before: the interval of the difference excludes 0. That interval is Welch's, from the two releases' means,
SDs and numbers of items in results.json (the trends read results.json only, and releases built before
the archive's item-scores store have no item scores; with the same items it is wider than the paired
interval ``sigreport diff`` gives from the store or the inputs, so a marked change is
one the paired interval would mark too, as long as the system's scores on the same items are positively
correlated across releases). A corpus-level metric (no per-item mean) gets no mark.

Read by the archive's index and by ``sigreport trend``; text renderers (Markdown, CSV, JSON) are here, the
index page with its plots is drawn by the renderer.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Mapping, Sequence
from sigreport.archive.diff import (Document, descriptives_of, fmt, interval_level, mean_metric, number, read, signed,
                                    system_rows, welch_interval)
from sigreport.archive.documents import finite_document
from sigreport.escaping import csv_safe
from sigreport.escaping import markdown_text as md
from sigreport.results.decisions import BlockDecisions, decide_records
from sigreport.results.reading import DocumentRecords
from sigreport.results.records import SystemSummary


@dataclasses.dataclass(frozen=True)
class Point:
    """One system in one release: its value and interval (None: not in that release), best tier, and the
    change from the release before (``delta``, its Welch interval, ``change``: "up"/"down" when the interval
    excludes 0, else None)."""

    release: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    best: bool
    delta: float | None = None
    delta_low: float | None = None
    delta_high: float | None = None
    change: str | None = None


@dataclasses.dataclass(frozen=True)
class Trend:
    """One metric on one corpus across releases: ``series`` is (system, one point per release)."""

    metric: str
    corpus: str | None
    label: str
    higher_is_better: bool
    decimals: int
    ci_level: float
    releases: tuple[str, ...]
    series: tuple[tuple[str, tuple[Point, ...]], ...]

    @property
    def where(self) -> str:
        return f"{self.label} · {self.corpus if self.corpus is not None else 'across corpora'}"

    def row(self, i: int) -> dict[str, Point]:
        """Every system's point in release ``i``."""
        return {s: pts[i] for s, pts in self.series}


def trends(history: Sequence[tuple[str, Document]]) -> tuple[Trend, ...]:
    """The trends of ``history``: (release name, results.json: as read or as parsed), oldest first."""
    decided = [Release(name, doc, {(b.metric, b.corpus): b for b in decide_records(doc.records, doc.metrics)})
               for name, doc in ((n, read(d)) for n, d in history)]
    keys = list(dict.fromkeys(k for r in decided for k in r.blocks))
    return tuple(trend_of(decided, key) for key in keys)


@dataclasses.dataclass(frozen=True)
class Release:
    """One release of a trend: its name, its records and its decisions by (metric, corpus)."""

    name: str
    doc: DocumentRecords
    blocks: Mapping[tuple[str, str | None], BlockDecisions]


def trend_of(decided: Sequence[Release], key: tuple[str, str | None]) -> Trend:
    metric, corpus = key
    last = next(r.blocks[key] for r in reversed(decided) if key in r.blocks)
    systems = list(dict.fromkeys(s for r in decided if key in r.blocks for s in r.blocks[key].values))
    level = interval_level(descriptives_of(decided[-1].doc, metric, corpus), decided[-1].doc)
    series = []
    for s in systems:
        points: list[Point] = []
        prev_row: SystemSummary | None = None
        prev_value: float | None = None
        for release in decided:
            block = release.blocks.get(key)
            desc = descriptives_of(release.doc, metric, corpus)
            row = system_rows(desc).get(s)
            value = block.values.get(s) if block else None
            point = Point(release.name, value, number(row.ci_low) if row else None, number(row.ci_high) if row else None,
                          bool(block and s in block.best))
            if value is not None and prev_value is not None and mean_metric(desc):
                point = with_change(point, prev_row, row, value - prev_value, level)
            points.append(point)
            prev_row, prev_value = row, value
        series.append((s, tuple(points)))
    return Trend(metric, corpus, last.label, last.higher_is_better, last.decimals, level,
                 tuple(r.name for r in decided), tuple(series))


def with_change(point: Point, old: SystemSummary | None, new: SystemSummary | None, delta: float,
                level: float) -> Point:
    found = welch_interval(old, new, delta, level)
    if found is None:
        return dataclasses.replace(point, delta=delta)
    lo, hi = found
    change = "up" if lo > 0 else "down" if hi < 0 else None
    return dataclasses.replace(point, delta=delta, delta_low=lo, delta_high=hi, change=change)


def select(found: Sequence[Trend], metric: str | None = None, corpus: str | None = None) -> list[Trend]:
    """The trends of one metric and/or corpus (by name, or by the metric's label)."""
    return [t for t in found if (metric is None or metric in (t.metric, t.label))
            and (corpus is None or corpus == (t.corpus if t.corpus is not None else "*"))]


# ---- text renderers -----------------------------------------------------------------------------------

MARKS = {"up": "▲", "down": "▼"}
LEGEND = ("Bold: the best of that release (its decisions; ties share it). ▲ / ▼: the value rose / fell from "
          "the release before, the Welch interval of the difference excluding 0. –: not in that release.")


def cell(t: Trend, p: Point) -> str:
    """'0.5885 ▲' (value as the report shows it, with the mark of a significant change)."""
    if p.value is None:
        return "–"
    return fmt(p.value, t.decimals) + (f" {MARKS[p.change]}" if p.change else "")


def table(t: Trend) -> tuple[list[str], list[list[str]], set[tuple[int, int]]]:
    """Rows: releases (oldest first); columns: the systems; and the bold cells (row, column)."""
    header = ["release", *(s for s, _ in t.series)]
    rows, strong = [], set()
    for i, name in enumerate(t.releases):
        points = t.row(i)
        rows.append([name, *(cell(t, points[s]) for s, _ in t.series)])
        strong |= {(i, j + 1) for j, (s, _) in enumerate(t.series) if points[s].best}
    return header, rows, strong


def render_markdown(found: Sequence[Trend]) -> str:
    out = []
    for t in found:
        header, rows, strong = table(t)
        out += [f"### {md(t.where)}", "", "| " + " | ".join(md(h) for h in header) + " |",
                "|---|" + "---:|" * (len(header) - 1)]
        for i, row in enumerate(rows):
            out.append("| " + " | ".join(f"**{md(c)}**" if (i, j) in strong else md(c) for j, c in enumerate(row)) + " |")
        out.append("")
    if found:
        out.append(md(LEGEND))
    return "\n".join(out).rstrip("\n") + "\n" if out else "no releases with results\n"


def render_csv(found: Sequence[Trend]) -> str:
    """One row per metric, corpus, release and system (long format, for a spreadsheet or a plot); a name a
    spreadsheet would read as a formula gets a leading quote (:func:`sigreport.escaping.csv_safe`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["metric", "corpus", "release", "system", "value", "ci_low", "ci_high", "best", "delta",
                "delta_low", "delta_high", "change"])
    for t in found:
        for s, points in t.series:
            for p in points:
                names = (t.metric, "" if t.corpus is None else t.corpus, p.release, s)
                w.writerow([*map(csv_safe, names), _c(p.value), _c(p.ci_low), _c(p.ci_high), int(p.best),
                            _c(p.delta), _c(p.delta_low), _c(p.delta_high), p.change or ""])
    return buf.getvalue()


def _c(v: float | None) -> str:
    return "" if v is None else repr(v)


def to_json(found: Sequence[Trend]) -> dict[str, object]:
    return {"format": "sigreport-trend", "trend_version": 1,
            "trends": [{**{k: v for k, v in dataclasses.asdict(t).items() if k != "series"},
                        "where": t.where, "series": [{"system": s, "points": [dataclasses.asdict(p) for p in pts]}
                                                     for s, pts in t.series]} for t in found]}


def render_json(found: Sequence[Trend]) -> str:
    """The trends for scripts; a value that is not a finite number (a difference of two values near the range of
    a double) is null, its path listed in ``non_finite``."""
    doc, non_finite = finite_document(to_json(found))
    if non_finite:
        doc["non_finite"] = non_finite
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


RENDERERS = {"markdown": render_markdown, "csv": render_csv, "json": render_json}


def delta_text(t: Trend, p: Point) -> str:
    """'+0.0500 [+0.0391, +0.0609]' for a tooltip or a note."""
    if p.delta is None:
        return ""
    ci = f" [{signed(p.delta_low, t.decimals)}, {signed(p.delta_high, t.decimals)}]" if p.delta_low is not None else ""
    return signed(p.delta, t.decimals) + ci
