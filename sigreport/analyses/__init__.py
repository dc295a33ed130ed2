"""Analyses: a spec's choices -> plan nodes -> result records.

:func:`build_plan` expands a spec and its dataset into a :class:`~sigreport.plan.Plan` whose nodes are
plain data (module-level functions of :mod:`.scores` and :mod:`.labels`, frozen parameters, block keys);
:func:`collect_results` gathers the records a run produced into :class:`~sigreport.results.Results`.
The previous report's choices (``selection``) come in explicitly, never from the output folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sigreport.analyses.common import apply_families, link_frequentist
from sigreport.analyses.labels import label_nodes, outcome_nodes
from sigreport.analyses.scores import score_nodes
from sigreport.data import Dataset
from sigreport.plan import Plan, order_nodes
from sigreport.results import MetricInfo, Results
from sigreport.errors import Problem
from sigreport.spec import Spec, SpecFile

__all__ = ["build_plan", "collect_results", "previous_methods", "uses_scipy_stats"]


def previous_methods(previous: Results | None) -> dict[str, str]:
    """Analysis id -> the method the previous report used (for ``selection: fixed`` and change warnings)."""
    if previous is None:
        return {}
    return {r.id: r.method for r in previous.records if isinstance(getattr(r, "method", None), str)}


def build_plan(spec: Spec, dataset: Dataset, previous: Results | None = None) -> Plan:
    """Every analysis the spec implies on the dataset, in a valid execution order."""
    prev = previous_methods(previous)
    nodes = []
    for (metric, corpus), block in dataset.blocks.items():
        nodes += score_nodes(spec, dataset.metric_specs[metric], metric, corpus, len(block.systems), block.level,
                             prev)
    nodes += label_nodes(spec, dataset.predictions, dataset.annotations)
    if dataset.outcomes is not None:
        nodes += outcome_nodes(spec, dataset.outcomes)
    return Plan(order_nodes(nodes))


def uses_scipy_stats(spec: Spec) -> bool:
    """Whether the spec's analyses will import scipy.stats: a Friedman omnibus test (chosen or possibly
    chosen by ``auto``), whose post-hoc tests need the studentized range (Nemenyi's p-values and critical
    difference). The build imports it while the data is read (see :meth:`sigreport.stats.lazy.LazyModule.prefetch`)."""
    return spec.tests.omnibus in ("friedman", "auto")


# Which analyses a figure kind is drawn from (sigreport.render.figures.figures_of), as a test on plan nodes.
FIGURE_SOURCES: dict[str, tuple[str, Any]] = {
    "cd": ("a Friedman post-hoc test (tests.omnibus: friedman with three or more systems)",
           lambda n: n.kind == "posthoc" and n.params.tests.omnibus == "friedman"),
    "forest": ("a pairwise or cross-validation family of score comparisons",
               lambda n: n.kind in ("pairwise", "cv", "posthoc")),
    "pvalues": ("a family of pairwise comparisons (scores, a post-hoc test or McNemar)",
                lambda n: n.kind in ("pairwise", "cv", "posthoc", "mcnemar")),
    "confusion": ("a classification analysis (data.predictions with gold labels)",
                  lambda n: n.kind == "classification"),
}


def figure_problems(sf: SpecFile, plan: Plan) -> list[Problem]:
    """A figure kind the spec lists explicitly in ``outputs.figures`` but no analysis of the plan can draw
    (the default list draws what applies and is never an error)."""
    outputs = sf.spec.outputs
    if "figures" not in outputs.model_fields_set:
        return []
    out = []
    for i, kind in enumerate(outputs.figures):
        needs, test = FIGURE_SOURCES[kind]
        if not any(test(n) for n in plan.nodes):
            out.append(sf.problem(f"figure {kind!r} needs {needs}, and this spec's plan has none; remove it from "
                                  "the list", "outputs", "figures", i))
    return out


def collect_results(spec: Spec, dataset: Dataset, results: Mapping[str, Any], version: str) -> Results:
    """The run's :class:`~sigreport.results.Results`: its setting and every record in plan order."""
    return Results(
        title=spec.title, alpha=spec.alpha, seed=spec.seed, data=data_info(dataset), systems=tuple(dataset.systems),
        corpora=tuple(dataset.corpora),
        metrics={k: MetricInfo(m.label or k, m.higher_is_better, m.decimals, m.aggregate)
                 for k, m in dataset.metric_specs.items()},
        tests=spec.tests.model_dump(),
        records=link_frequentist(apply_families(tuple(r for r in results.values() if r is not None), spec.tests,
                                                spec.alpha)),
        sigreport_version=version, description=spec.description, spec=spec)


def data_info(dataset: Dataset) -> dict[str, Any]:
    info = {"scores": dataset.source.rsplit("/", 1)[-1] if dataset.source else None,
            "sha256": dataset.sha256 or None, "rows": dataset.n_rows}
    for key, value in sorted(dataset.files.items()):
        info[key] = value.as_dict()
    if dataset.source_info:  # how a native source was read (its format, the field library's version and signature)
        info["source"] = dict(dataset.source_info)
    return info
