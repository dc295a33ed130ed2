"""Analyses: a spec's choices -> plan nodes -> result records.

:func:`build_plan` expands a spec and its dataset into a :class:`~sigreport.plan.Plan` whose nodes are
plain data (module-level functions of :mod:`.scores` and :mod:`.labels`, frozen parameters, block keys);
:func:`collect_results` gathers the records a run produced into :class:`~sigreport.results.Results`.
The previous report's choices (``selection``) come in explicitly, never from the output folder.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sigreport.analyses.common import apply_families, link_frequentist
from sigreport.analyses.equivalence import with_equivalence
from sigreport.analyses.power import with_power
from sigreport.analyses.replicability import replicability_nodes
from sigreport.analyses.labels import label_nodes, outcome_nodes
from sigreport.analyses.preferences import preference_nodes
from sigreport.analyses.scores import score_nodes
from sigreport.data import Dataset
from sigreport.plan import Plan, order_nodes
from sigreport.results import MetricInfo, Results
from sigreport.results.decisions import decide_records
from sigreport.results.figure_rules import FigureSource, gives, needs, source_of
from sigreport.results.ranks import RANKED_MIN
from sigreport.results.records import DescriptivesRecord, Record
from sigreport.errors import Problem
from sigreport.spec import Spec, SpecFile

__all__ = ["build_plan", "collect_results", "figure_problems", "figure_warnings", "imports_ahead", "node_sources",
           "previous_methods", "source_warnings"]


def previous_methods(previous: Results | None) -> dict[str, str]:
    """Analysis id -> the method the previous report used (for ``selection: fixed`` and change warnings)."""
    if previous is None:
        return {}
    return {r.id: r.method for r in previous.records if r.method}  # (a partial document's may be missing: "")


def choices_stable(previous: Mapping[str, str], results: Mapping[str, Any]) -> bool:
    """Whether a build whose plan had the previous report's methods ``previous`` (analysis id -> method) and
    that gave ``results`` writes what the next build would: every automatically chosen method (a record's
    ``selection``, which says the previous report's choice) is the one the previous report had (a rebuild
    with nothing changed may then leave the report as it is: :mod:`sigreport.speed.unchanged`)."""
    from sigreport.results.records import AutomaticChoice

    for node_id, r in results.items():
        if isinstance(getattr(r, "selection", None), AutomaticChoice) and previous.get(node_id) != r.method:
            return False
    return True


def build_plan(spec: Spec, dataset: Dataset, previous: Results | None = None) -> Plan:
    """Every analysis the spec implies on the dataset, in a valid execution order."""
    prev = previous_methods(previous)
    nodes = []
    for (metric, corpus), block in dataset.blocks.items():
        nodes += score_nodes(spec, dataset.metric_specs[metric], metric, corpus, len(block.systems), block.level,
                             prev, block.runs is not None)
    nodes += replicability_nodes(spec, nodes)
    nodes += label_nodes(spec, dataset.predictions, dataset.annotations)
    if dataset.outcomes is not None:
        nodes += outcome_nodes(spec, dataset.outcomes)
    if dataset.preferences is not None:
        nodes += preference_nodes(spec, dataset.preferences)
    return Plan(order_nodes(nodes))


def imports_ahead(spec: Spec) -> str | None:
    """The module the spec's analyses import that costs a noticeable share of start-up, which the build imports
    while the data is read (:func:`sigreport.speed.imports.prefetch`) so that forked workers inherit it instead
    of each importing it again (0.2 CPU-s a worker on the 2-core machine of docs/performance.md): scipy.stats
    for a Friedman omnibus test (chosen or possibly chosen by ``auto``), whose post-hoc tests need the
    studentized range (Nemenyi's p-values and critical difference); scipy.special for the t and F distributions
    of the default paired t test and RM-ANOVA, which every kind of data but preference votes alone goes
    through; else None (resampling tests and preference models need neither before the report is rendered).
    ``tests/stats/test_lazy.py`` checks, for every example spec, that the module named is one its analyses import."""
    if spec.tests.omnibus in ("friedman", "auto"):
        return "scipy.stats"
    votes_only = spec.data.preferences is not None and not any(
        (spec.data.scores, spec.data.predictions, spec.data.annotations, spec.data.outcomes))
    tested = spec.tests.pairwise == "paired_t" or spec.tests.omnibus == "rm_anova"
    return "scipy.special" if tested and not votes_only else None


def node_sources(node: Any) -> list[FigureSource]:
    """The figure sources a plan node can become once the data are known: a post-hoc node stands for the test
    after each omnibus test ``tests.omnibus`` may choose (``auto``: Friedman or RM-ANOVA), a rank test or
    paired t tests as ``tests.posthoc`` says (``auto``: ranks after Friedman, paired t tests after RM-ANOVA)."""
    if node.kind != "posthoc":
        return [FigureSource(node.kind)]
    tests = node.params.tests
    afters = ("friedman", "rm_anova") if tests.omnibus == "auto" else (tests.omnibus,)
    out = []
    for after in afters:
        paired = tests.posthoc == "paired" or (tests.posthoc == "auto" and after == "rm_anova")
        out.append(FigureSource("posthoc", "paired_t" if paired else tests.posthoc, after))
    return out


def figure_problems(sf: SpecFile, plan: Plan) -> list[Problem]:
    """A figure kind the spec lists explicitly in ``outputs.figures`` but no analysis of the plan can give
    (the default list draws what applies and is never an error); the rule is the one table
    :data:`~sigreport.results.figure_rules.FIGURE_RULES` the build draws by."""
    outputs = sf.spec.outputs
    if "figures" not in outputs.model_fields_set:
        return []
    out = []
    for i, kind in enumerate(outputs.figures):
        if not any(gives(kind, src) for n in plan.nodes for src in node_sources(n)):
            out.append(sf.problem(f"figure {kind!r} needs {needs(kind)}, and this spec's plan has none; remove it "
                                  "from the list", "outputs", "figures", i))
    return out


def figure_notes(spec: Spec, records: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """Warnings for a figure kind listed explicitly in ``outputs.figures`` that the plan could give but this
    data's records do not, by the id of the record whose automatic choice went the other way (the only such
    case: ``[cd]`` with ``tests.omnibus: auto`` choosing RM-ANOVA, which has no average ranks to draw)."""
    if "figures" not in spec.outputs.model_fields_set:
        return {}
    records = [r for r in records if r is not None]
    out: dict[str, tuple[str, ...]] = {}
    for kind in spec.outputs.figures:
        if any(gives(kind, source_of(r)) for r in records):
            continue
        for r in records:
            if kind == "cd" and r.kind == "omnibus" and r.method == "rm_anova" and r.selection:
                out[r.id] = (*out.get(r.id, ()), f"outputs.figures lists 'cd', but tests.omnibus: auto chose "
                             f"repeated-measures ANOVA on this data, so no critical-difference diagram is drawn "
                             f"(it needs {needs(kind)})")
    return out


def as_problems(notes: Mapping[str, tuple[str, ...]]) -> list[Problem]:
    """Notes by record id as the build's warning list (counted, and failing ``--strict``)."""
    return [Problem(rid, None, "", w) for rid, ws in notes.items() for w in ws]


def with_notes(records: tuple[Any, ...], notes: Mapping[str, tuple[str, ...]]) -> tuple[Any, ...]:
    """The records with their ``notes`` among their warnings (so the report shows them beside the test)."""
    return tuple(dataclasses.replace(r, warnings=(*r.warnings, *notes[r.id])) if r.id in notes else r
                 for r in records)


def figure_warnings(spec: Spec, records: Iterable[Any]) -> list[Problem]:
    """:func:`figure_notes` as the build's warning list."""
    return as_problems(figure_notes(spec, records))


def source_notes(dataset: Dataset, records: Iterable[Any]) -> dict[str, tuple[str, ...]]:
    """What the native source warned about while reading its files (a text file that starts with a byte-order
    mark, ``data.source.warnings`` of results.json), by the id of every descriptives record: each metric's
    values come from those files, and the report shows a record's warnings beside its table."""
    warned = dataset.source_info.get("warnings")
    if not isinstance(warned, (list, tuple)) or not warned:
        return {}
    return {r.id: tuple(map(str, warned)) for r in records if r is not None and r.kind == "descriptives"}


def source_warnings(dataset: Dataset, records: Iterable[Any]) -> list[Problem]:
    """:func:`source_notes` as the build's warning list."""
    return as_problems(source_notes(dataset, records))


Step = Callable[[tuple[Record, ...], Spec, Dataset], tuple[Record, ...]]


def corrected(records: tuple[Record, ...], spec: Spec, dataset: Dataset) -> tuple[Record, ...]:
    """The p-values re-adjusted over the declared family (``tests.family``: :func:`.common.apply_families`)."""
    return apply_families(records, spec.tests, spec.alpha)


def powered(records: tuple[Record, ...], spec: Spec, dataset: Dataset) -> tuple[Record, ...]:
    """Each pair's minimum detectable difference, after the corrections (:func:`.power.with_power`)."""
    return with_power(records, dataset, spec.tests, spec.alpha, spec.seed)


def linked(records: tuple[Record, ...], spec: Spec, dataset: Dataset) -> tuple[Record, ...]:
    """Bayesian rows with the corrected frequentist decision beside them (:func:`.common.link_frequentist`)."""
    return link_frequentist(records)


def equivalent(records: tuple[Record, ...], spec: Spec, dataset: Dataset) -> tuple[Record, ...]:
    """Each pair's TOST and non-inferiority where its metric has a margin (:func:`.equivalence.with_equivalence`)."""
    return with_equivalence(records, spec)


def noted_figures(records: tuple[Record, ...], spec: Spec, dataset: Dataset) -> tuple[Record, ...]:
    """A figure kind listed that this data's records do not give, noted on the record (:func:`figure_notes`)."""
    return with_notes(records, figure_notes(spec, records))


def noted_sources(records: tuple[Record, ...], spec: Spec, dataset: Dataset) -> tuple[Record, ...]:
    """What the native source warned about, noted on every descriptives record (:func:`source_notes`)."""
    return with_notes(records, source_notes(dataset, records))


COLLECT_STEPS: tuple[tuple[str, Step], ...] = (
    ("family corrections", corrected), ("power", powered), ("Bayesian links", linked),
    ("equivalence", equivalent), ("figure notes", noted_figures), ("source notes", noted_sources))
"""What :func:`collect_results` does to the plan's records, in order, each step a function of the records
before it: the power step, the Bayesian links and equivalence read the corrected p-values; the ranks (which read the decisions of the finished records) come last, with the metrics."""


def with_step(name: str, step: Step) -> tuple[tuple[str, Step], ...]:
    """:data:`COLLECT_STEPS` with the one named ``name`` done by ``step`` instead (the power step on the Dask
    workers that hold the blocks, :func:`sigreport.api.shards.power_on`); an unknown name raises."""
    steps = COLLECT_STEPS
    if name not in dict(steps):
        raise KeyError(f"no collect step {name!r}: {', '.join(n for n, _ in steps)}")
    return tuple((n, step if n == name else s) for n, s in steps)


def collect_results(spec: Spec, dataset: Dataset, results: Mapping[str, Any], version: str,
                    steps: tuple[tuple[str, Step], ...] | None = None) -> Results:
    """The run's :class:`~sigreport.results.Results`: its setting and every record in plan order, through
    ``steps`` (None: :data:`COLLECT_STEPS`; or those of :func:`with_step`) and then the ranks."""
    records: tuple[Record, ...] = tuple(r for r in results.values() if r is not None)
    for _, step in COLLECT_STEPS if steps is None else steps:
        records = step(records, spec, dataset)
    metrics = {k: MetricInfo(label=m.label or k, higher_is_better=m.higher_is_better, decimals=m.decimals,
                             aggregate=m.aggregate)
               for k, m in dataset.metric_specs.items()}
    return Results(
        title=spec.title, alpha=spec.alpha, seed=spec.seed, data=data_info(dataset), systems=tuple(dataset.systems),
        corpora=tuple(dataset.corpora), metrics=metrics,
        tests=spec.tests.model_dump(exclude=tests_left_out(spec) or None),
        records=with_ranks(records, metrics, spec.baseline),
        sigreport_version=version, description=spec.description)


def tests_left_out(spec: Spec) -> set[str]:
    """The keys of ``tests`` results.json leaves out because they analyse nothing here, so that a report keeps
    its bytes when a feature it does not use is added: ``replicability`` when off, ``preferences`` without
    ``data.preferences``."""
    return ({"replicability"} if spec.tests.replicability is None else set()) | (
        {"preferences"} if spec.data.preferences is None else set())


def with_ranks(records: tuple[Record, ...], metrics: Mapping[str, MetricInfo], baseline: str | None
               ) -> tuple[Record, ...]:
    """The records with each ranked block's descriptives carrying every system's ``rank_ub`` and ``tier``
    (:mod:`sigreport.results.ranks`), read from the decision model the Conclusions read (never recomputed):
    blocks of :data:`~sigreport.results.ranks.RANKED_MIN` or more systems with a value and a primary test."""
    decisions = decide_records(records, metrics, baseline)
    out = []
    for r in records:
        dec = decisions.get(r.metric, r.corpus) if isinstance(r, DescriptivesRecord) else None
        ranks = dec.ranks if dec is not None else None
        if ranks is None or len(ranks.systems) < RANKED_MIN:
            out.append(r)
            continue
        systems = tuple(dataclasses.replace(s, rank_ub=ranks.rank_ub.get(s.system), tier=ranks.tier.get(s.system))
                        for s in r.systems)  # type: ignore[union-attr]
        out.append(dataclasses.replace(r, systems=systems))
    return tuple(out)


def data_info(dataset: Dataset) -> dict[str, Any]:
    info = {"scores": dataset.source.rsplit("/", 1)[-1] if dataset.source else None,
            "sha256": dataset.sha256 or None, "rows": dataset.n_rows}
    for key, value in sorted(dataset.files.items()):
        info[key] = value.as_dict()
    if dataset.source_info:  # how a native source was read (its format, the field library's version and signature)
        info["source"] = dict(dataset.source_info)
    if dataset.left_out:  # names of the tables the spec does not list, and their rows (never analysed)
        if any(lo.table == "scores" for lo in dataset.left_out):
            info["table_rows"] = dataset.table_rows
        info["left_out"] = [lo.as_dict() for lo in dataset.left_out]
    return info
