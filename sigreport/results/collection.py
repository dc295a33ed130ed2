"""The results of one run: the analysed setting (title, alpha, seed, data, systems, metrics, tests) and
every analysis record in plan order. ``Results.to_dict()`` is exactly the content of results.json."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from sigreport.results.records import Record, jsonable


NOTEBOOK: dict[str, Callable[[Any], str]] = {}
"""How a notebook shows a :class:`Results` and a block's decisions (``"Results"``, ``"BlockDecisions"``): registered
by :mod:`sigreport.api.notebook` when the API is imported (``sigreport.analyze``, ``sigreport.build``), because the
renderer is a layer above this one. Without it, Jupyter shows the plain ``repr``."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class MetricInfo:
    """What a report needs to know about a metric: its name in words, direction, decimals, aggregate."""

    label: str
    higher_is_better: bool
    decimals: int
    aggregate: str


@dataclasses.dataclass(frozen=True)
class Results:
    """Everything an analysis run found, with the setting it ran in: the same whether the analyses made it
    or it was read back from results.json (``description`` excepted: results.json does not hold it). The
    spec's output choices are not here: the renderer takes them as options (:mod:`sigreport.render.options`)."""

    title: str
    alpha: float
    seed: int
    data: Mapping[str, Any]
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    metrics: Mapping[str, MetricInfo]
    tests: Mapping[str, Any]
    records: tuple[Record, ...]
    sigreport_version: str
    schema_version: int = 1
    description: str | None = None
    unread: tuple[str, ...] = ()
    """Paths of what a results.json held that this sigreport does not know and skipped (a later version's
    fields and analysis kinds); never written back."""

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def _repr_html_(self) -> str | None:
        """Jupyter's display: the report's conclusions, key figure and main table (:data:`NOTEBOOK`)."""
        show = NOTEBOOK.get("Results")
        return show(self) if show is not None else None

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, analysis_id: str) -> Record:
        for r in self.records:
            if r.id == analysis_id:
                return r
        raise KeyError(analysis_id)

    def by_id(self) -> dict[str, Record]:
        return {r.id: r for r in self.records}

    def of_kind(self, kind: str) -> list[Record]:
        return [r for r in self.records if r.kind == kind]

    def to_dict(self, convert: Callable[[Any], Any] = jsonable) -> dict[str, Any]:
        """The results.json document (the contract in docs/results-json.md). ``convert`` makes JSON data of
        the records and mappings; results.io passes one that defers it to the writer (a single pass)."""
        return {
            "schema_version": self.schema_version,
            "sigreport_version": self.sigreport_version,
            "title": self.title,
            "alpha": self.alpha,
            "seed": self.seed,
            "data": convert(dict(self.data)),
            "systems": list(self.systems),
            "corpora": list(self.corpora),
            "metrics": {k: convert(m) for k, m in self.metrics.items()},
            "tests": convert(dict(self.tests)),
            "analyses": [convert(r) for r in self.records],
        }

