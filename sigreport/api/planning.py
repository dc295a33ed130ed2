"""``sigreport power``: how many items (and training runs) the next study needs to detect a difference.

A pilot's data give, for every pair of systems the spec compares, the standard deviation of the paired
differences (and, with a ``run`` column, the spread of each system's per-run values). For a true difference
D at the level the spec's correction asks of a pair (:func:`sigreport.analyses.power.comparison_level`) and
a power (``tests.power``, or ``--power``):

* the power now and the items needed follow the pair's rule for its minimum detectable difference in the report
  (:func:`sigreport.analyses.power.powers_at`, the same :func:`~sigreport.analyses.power.mde_method`): the
  report's pairwise analyses are run (so ``auto``'s choice, the family corrections and the records' ids are the
  report's) and each pair gets: the noncentral t (paired t, and the resampling tests of a mean metric: R's
  ``power.t.test(..., type = "paired", strict = TRUE)``); for Wilcoxon and sign tests the report's simulation from
  the same seed (the power now from the MDE's own data sets, so the power at the report's MDE is its target; the
  items needed by a bisection over simulated data sets of m items, up to 20,000, beyond that the paired t's count
  with the items times the test's efficiency 3/pi or 2/pi), or that efficiency approximation where the report uses
  it; the clustered or stratified t of the pair's design;
* runs: the smallest number of runs per system with which a two-sample t test of the two systems' per-run
  values detects D (R's ``power.t.test(..., type = "two.sample")``), with the two systems' pooled run SD.

Both follow ``tests.alternative``: one-sided counts for greater or less, and a note instead of a count when
D points against the alternative. A pair without an answer has null values and a note saying why: fewer than
2 items, or differences that do not vary (an SD of zero or of rounding error,
:func:`sigreport.stats.power.varies`). Corpus-level metrics and cross-validation designs are listed as not
planned, with the reason. With clustered items (``data.columns.cluster``) the items needed are those of the
clustered paired t (t on G - 1 df, the effective number of items n / deff): the clusters needed, of the pilot's
mean cluster size with its design effect unchanged, times that size (the note says G, deff and the clusters
needed). For a macro average over strata (``metrics.M.average: macro``) they are those of the macro average's
t, its effective number of items and Welch-Satterthwaite df grown in proportion to the items.
The text output is a Markdown table (names escaped as in main.md); the JSON output
has no NaN (a value that is not finite is null).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sigreport.analyses.power import comparison_level, powers_at
from sigreport.errors import Problem, UserError, did_you_mean
from sigreport.render.markdown import MarkdownCells
from sigreport.spec import power_range_message
from sigreport.stats import power as pw, registry


@dataclasses.dataclass(frozen=True)
class PairPlan:
    """The plan for one pair of one metric on one corpus (``items_needed``/``runs_needed`` None: not planned
    or beyond reach, ``note`` says why). ``method``: the pair's test as the report runs it (``tests.pairwise``,
    or what ``auto`` chose on this data); ``power_method``: how its power is computed, the ``mde.method`` of the
    report's pair (``noncentral_t``, ``simulation``, ...; "" where the report has no MDE)."""

    metric: str
    corpus: str | None
    a: str
    b: str
    method: str
    n_items: int
    sd: float | None
    level: float
    power_now: float | None
    items_needed: int | None
    runs_sd: float | None = None
    runs_now: int | None = None
    runs_needed: int | None = None
    note: str = ""
    difference: float | None = None
    power_method: str = ""


Differences = Mapping[str | None, float]
"""The true difference to detect per metric key (None: every metric without its own)."""


def metric_key(name: str, metric_specs: Mapping[str, Any], field: str) -> str:
    """A metric given by its key or its label (``metrics.M.label``), as its key; unknown: a user error with the
    closest name."""
    if name in metric_specs:
        return name
    by_label = {(m.label or k): k for k, m in metric_specs.items()}
    if name in by_label:
        return by_label[name]
    raise UserError(field, [Problem(field, None, "", f"metric {name!r} is not in the spec"
                                    f"{did_you_mean(name, metric_specs, {lab: k for lab, k in by_label.items()})}; "
                                    f"known: {', '.join(metric_specs)}")])


def parse_differences(given: Sequence[str], metric_specs: Mapping[str, Any]) -> dict[str | None, float]:
    """``--difference`` values: ``D`` (every metric) or ``METRIC=D`` (that metric, by key or label), repeated."""
    out: dict[str | None, float] = {}
    for text in given:
        name, _, value = text.rpartition("=") if "=" in text else ("", "", text)
        key = metric_key(name.strip(), metric_specs, "--difference") if name.strip() else None
        try:
            d = float(value)
        except ValueError:
            raise UserError("--difference", [Problem("--difference", None, "", f"{text!r}: give D or METRIC=D, D a "
                                                     "non-zero number in the metric's units")]) from None
        if key in out:
            raise UserError("--difference", [Problem("--difference", None, "", "two differences for "
                                                     f"{'every metric' if key is None else repr(key)}")])
        out[key] = d
    return out


def plan_power(prepared: Any, difference: float | Differences, target: float | None = None,
               metrics: Sequence[str] | None = None) -> list[PairPlan]:
    """Every pair's plan for a true difference (in the metric's units; one for every metric, or one per metric):
    the pairs, tests, levels and power rules of the report (its pairwise analyses are run, with the family
    corrections, and :func:`sigreport.analyses.power.powers_at` follows each pair's MDE rule)."""
    spec, dataset = prepared.spec_file.spec, prepared.dataset
    tests = spec.tests
    target = float(target if target is not None else (tests.power or pw.DEFAULT_POWER))
    if not spec.alpha < target < 1:
        raise UserError("--power", [Problem("--power", None, "", power_range_message(target, spec.alpha))])
    differences: dict[str | None, float] = dict(difference) if isinstance(difference, Mapping) else {None: difference}
    bad = [d for d in differences.values() if not (math.isfinite(d) and d != 0)]
    if bad:
        raise UserError("--difference", [Problem("--difference", None, "", "the difference must be a non-zero number")])
    chosen = None if metrics is None else [metric_key(m, dataset.metric_specs, "--metric") for m in metrics]
    if None not in differences:  # only the metrics given a difference
        chosen = [m for m in (chosen if chosen is not None else dataset.metric_specs) if m in differences]
    out = []
    for rec in family_records(prepared):
        if rec.kind not in ("pairwise", "cv") or (chosen is not None and rec.metric not in chosen):
            continue
        d = differences.get(rec.metric, differences.get(None))
        assert d is not None
        out += _record_plans(rec, dataset.metric_specs[rec.metric], dataset.blocks[(rec.metric, rec.corpus)],
                             spec, d, target)
    return out


def family_records(prepared: Any) -> tuple[Any, ...]:
    """The report's records of the correction families (pairwise, cross-validation, McNemar; and what they depend
    on), run as the build runs them and corrected over ``tests.family``: the pairs, methods (``auto``'s choice),
    family sizes and ids (the simulations' seeds) the report's MDE reads."""
    from sigreport.analyses.common import FAMILY_KINDS, apply_families
    from sigreport.execute import run_plan
    from sigreport.plan import Plan

    by_id = prepared.plan.by_id()
    keep: set[str] = set()
    todo = [n.id for n in prepared.plan.nodes if n.kind in FAMILY_KINDS]
    while todo:
        node_id = todo.pop()
        if node_id not in keep:
            keep.add(node_id)
            todo += list(by_id[node_id].depends_on)
    plan = Plan(nodes=tuple(n for n in prepared.plan.nodes if n.id in keep))
    results = run_plan(plan, prepared.dataset)
    spec = prepared.spec_file.spec
    return apply_families(tuple(r for r in results.values() if r is not None and getattr(r, "kind", None)
                                in FAMILY_KINDS), spec.tests, spec.alpha)


def _record_plans(rec: Any, mspec: Any, block: Any, spec: Any, difference: float, target: float) -> list[PairPlan]:
    tests = spec.tests
    rule = registry.method("pairwise", rec.method).mde if rec.kind == "pairwise" else None
    why = ("corpus-level metric: no per-item differences" if mspec.corpus_level or block.stats.shape[-1] != 1 else
           "cross-validation design: not planned" if rec.kind == "cv" or block.level == "folds" else
           f"{rec.method}: no minimum detectable difference ({rule.reason})" if rule is not None and rule.rule == "none"
           else "")
    level = comparison_level(spec.alpha, rec.correction, rec.family_size)
    n = block.stats.shape[0]
    if why:
        return [PairPlan(metric=rec.metric, corpus=rec.corpus, a=r.a, b=r.b, method=rec.method, n_items=n, sd=None,
                         level=level, power_now=None, items_needed=None, note=why, difference=difference)
                for r in rec.pairs]
    runs = _run_values(block) if block.runs is not None else None
    index = {s: i for i, s in enumerate(block.systems)}
    out = []
    for row, at in zip(rec.pairs, powers_at(rec, block, spec.alpha, spec.seed, difference, target)):
        plan = PairPlan(metric=rec.metric, corpus=rec.corpus, a=row.a, b=row.b, method=rec.method, n_items=n,
                        sd=at.sd, level=at.level, power_now=at.power, items_needed=at.items_needed, note=at.note,
                        difference=difference, power_method=at.method)
        if runs is not None:
            plan = _with_runs(plan, runs[index[row.a]], runs[index[row.b]], difference, at.level, target,
                              tests.alternative)
        out.append(plan)
    return out


def _against(difference: float, alternative: str) -> bool:
    """Whether a difference points against a one-sided alternative (a - b > 0 for greater)."""
    return (alternative == "greater" and difference < 0) or (alternative == "less" and difference > 0)


def _run_values(block: Any) -> list[np.ndarray]:
    return [r[:, :, 0].mean(axis=0) for r in block.runs]


def _with_runs(plan: PairPlan, va: np.ndarray, vb: np.ndarray, difference: float, level: float,
               target: float, alternative: str) -> PairPlan:
    if va.size < 2 or vb.size < 2:
        return dataclasses.replace(plan, runs_now=min(va.size, vb.size))
    pooled = math.sqrt((va.var(ddof=1) + vb.var(ddof=1)) / 2)
    varies = pw.varies(pooled, np.concatenate([va, vb]))  # run values equal up to rounding: no spread
    needed = (pw.two_sample_size(difference, pooled, level, target, alternative)
              if varies and not _against(difference, alternative) else None)
    return dataclasses.replace(plan, runs_sd=pooled, runs_now=min(va.size, vb.size), runs_needed=needed)


@dataclasses.dataclass(frozen=True)
class MetricSummary:
    """One metric's answer: the items with which every pair that has an answer reaches the power (the largest of
    its pairs' counts), the hardest pair, and the pairs without an answer."""

    metric: str
    difference: float | None
    items_needed: int | None
    items_now: int
    pairs: int
    without_answer: int
    hardest: str | None


def summarize(plans: list[PairPlan]) -> list[MetricSummary]:
    """Per metric, in the plans' order: :class:`MetricSummary`."""
    out = []
    for metric in dict.fromkeys(p.metric for p in plans):
        ps = [p for p in plans if p.metric == metric]
        answered = [p for p in ps if p.items_needed is not None]
        worst = max(answered, key=lambda p: p.items_needed or 0) if answered else None
        where = "" if worst is None or worst.corpus is None else f" on {worst.corpus}"
        out.append(MetricSummary(metric=metric, difference=ps[0].difference,
                                 items_needed=None if worst is None else worst.items_needed,
                                 items_now=max(p.n_items for p in ps), pairs=len(ps),
                                 without_answer=len(ps) - len(answered),
                                 hardest=None if worst is None else f"{worst.a} vs {worst.b}{where}"))
    return out


def _summary_line(s: MetricSummary, target: float) -> str:
    cell = MarkdownCells().text
    d = "" if s.difference is None else f" (difference {s.difference:g})"
    if s.items_needed is None:
        return f"{cell(s.metric)}{d}: no pair has an answer ({s.pairs} pair{'s' if s.pairs != 1 else ''}; notes below)"
    rest = f"; {s.without_answer} of {s.pairs} pairs without an answer (notes below)" if s.without_answer else ""
    return (f"{cell(s.metric)}{d}: {s.items_needed:,} items for {100 * target:.0f}% power on every pair "
            f"({s.items_now:,} now; the hardest pair: {cell(s.hardest or '')}){rest}")


def render_plans(plans: list[PairPlan], difference: float | Differences, target: float, fmt: str = "text",
                 alternative: str = "two-sided") -> str:
    """The plans as JSON (every number finite or null) or as a Markdown table with its notes, after a summary
    line per metric (:func:`summarize`)."""
    given = dict(difference) if isinstance(difference, Mapping) else {None: difference}
    used = sorted({p.difference for p in plans if p.difference is not None})
    single = used[0] if len(used) == 1 else (given.get(None) if not used else None)
    summaries = summarize(plans)
    if fmt == "json":
        doc = {"difference": single, "differences": {k if k is not None else "*": v for k, v in given.items()},
               "power": target, "alternative": alternative,
               "summary": [{k: _finite(v) for k, v in dataclasses.asdict(m).items()} for m in summaries],
               "pairs": [{k: _finite(v) for k, v in dataclasses.asdict(p).items()} for p in plans]}
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    side = "" if alternative == "two-sided" else f" (one-sided: H1 a - b {'>' if alternative == 'greater' else '<'} 0)"
    what = f"a true difference of {single:g}" if single is not None else "the true difference given for each metric"
    lines = ["Summary: items needed for the stated difference, per metric:"]
    lines += [f"- {_summary_line(m, target)}" for m in summaries] or [
        "- no pairwise test of per-item scores in this spec: nothing to plan (the power of preference votes, "
        "outcomes and classification tests is not planned)"]
    lines += ["", f"Items needed to detect {what}{side} with {100 * target:.0f}% power, at the level the "
              f"correction asks of a pair, by the test and power rule of the report's minimum detectable "
              f"difference:", ""]
    runs = any(p.runs_now is not None for p in plans)
    head = ("| metric | corpus | pair | test | power by | level | SD of differences | items now | power now | "
            "items needed |")
    rule = "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
    if single is None:  # one difference per metric: each row says its own
        head, rule = head.replace("| test |", "| difference | test |"), "| --- | --- | --- | ---: " + rule[18:]
    if runs:
        head += " runs now | runs SD | runs needed |"
        rule += " ---: | ---: | ---: |"
    lines += [head, rule]
    cell = MarkdownCells().text
    for p in plans:
        cells = [cell(p.metric), cell(str(p.corpus)) if p.corpus is not None else "(across corpora)",
                 f"{cell(p.a)} vs {cell(p.b)}", *([] if single is not None else [_num(p.difference, "g")]), cell(p.method), cell(p.power_method) or "\u2014", f"{p.level:.4g}", _num(p.sd), str(p.n_items),
                 _num(p.power_now, ".2f"), str(p.items_needed) if p.items_needed is not None else "\u2014"]
        if runs:
            cells += ["" if p.runs_now is None else str(p.runs_now), _num(p.runs_sd),
                      str(p.runs_needed) if p.runs_needed is not None else "\u2014"]
        lines.append("| " + " | ".join(cells) + " |")
    notes = sorted({p.note for p in plans if p.note})
    if notes:
        lines += [""] + [f"Note: {n}." for n in notes]
    return "\n".join(lines) + "\n"


def _finite(x: Any) -> Any:
    """A float that is not finite as null: JSON has no NaN (the note beside it says why there is no value)."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _num(x: float | None, spec: str = ".4g") -> str:
    return "" if x is None or not math.isfinite(x) else format(x, spec)
