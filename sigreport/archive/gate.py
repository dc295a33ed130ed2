"""``sigreport gate``: the release verdict for CI, read from a built report's results.json.

A candidate passes a gated metric when the one-sided non-inferiority test against the baseline
(:func:`sigreport.stats.equivalence.t_equivalence`: not worse by more than the metric's margin ``D``, at the
report's alpha) rejects on every corpus of that metric; it is *better* when the report's decisions
(:mod:`sigreport.results.decisions`, the Conclusions' primary test after its correction) find it significantly
better, which for the paired t test implies non-inferiority (the corrected two-sided test rejects only when the
one-sided one at alpha does, and D > 0).

Multiplicity (fixed-sequence gatekeeping, Westfall and Krishen 2001; Wellek 2010, sec. 2.4): the claim "every
gated metric is non-inferior" holds only when each of its tests rejects (an intersection-union test, Berger
1982), so each primary hypothesis is tested at the full alpha; the secondary metrics are tested, in their
order, only when every primary one passed, each at alpha, and the sequence stops at the first that fails
(the ones after it are "not tested"). The family-wise error of the gate's claims is held at alpha.

Exit codes: 0 every gated metric non-inferior (or better); 1 one is not (or was not tested); 2 a user error
(a metric or system the report lacks, a metric without a margin, a primary test the gate cannot read).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from sigreport.errors import Problem, UserError, did_you_mean
from sigreport.results.decisions import BlockDecisions, decide_records
from sigreport.results.reading import DocumentRecords
from sigreport.results.records import PairwiseRecord
from sigreport.stats.result import finite_or_none, is_significant

GATE_METHODS = ("paired_t",)
"""Primary pairwise tests the gate reads: t-based, from the pair's mean difference, SE and df in results.json."""

VERDICTS = ("better", "non-inferior", "not non-inferior", "not tested", "no test")


@dataclasses.dataclass(frozen=True, kw_only=True)
class GateCheck:
    """One gated hypothesis: ``candidate`` not worse than ``baseline`` on ``metric`` (on ``corpus``) by more
    than ``margin``. ``estimate``: candidate - baseline; ``ci_low``/``ci_high`` at ``ci_level`` = 1 - 2 alpha
    (the end facing the margin is the one-sided 1 - alpha bound); ``pvalue``: the one-sided non-inferiority p
    (None: not tested); ``verdict``: one of :data:`VERDICTS`; ``decision``: what the report's decisions say of
    the pair."""

    metric: str
    label: str
    corpus: str | None
    role: str  # primary | secondary
    candidate: str
    baseline: str
    margin: float
    higher_is_better: bool
    alpha: float
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    pvalue: float | None
    verdict: str
    decision: str
    decimals: int

    @property
    def passed(self) -> bool:
        return self.verdict in ("better", "non-inferior")


@dataclasses.dataclass(frozen=True, kw_only=True)
class GateResult:
    baseline: str
    checks: tuple[GateCheck, ...]
    alpha: float

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1


def _error(where: str, field: str, message: str) -> UserError:
    return UserError(where, [Problem(where, None, field, message)])


def parse_margins(given: Sequence[str], where: str = "sigreport gate") -> dict[str, float]:
    """``--margin M=D`` values: metric name -> positive margin in the metric's units."""
    out: dict[str, float] = {}
    for text in given:
        name, eq, value = text.partition("=")
        try:
            d = float(value) if eq else float("nan")
        except ValueError:
            d = float("nan")
        if not name or not (d > 0 and d != float("inf")):
            raise _error(where, "--margin", f"{text!r} is not METRIC=D with D a positive number in the metric's "
                         "units")
        out[name] = d
    return out


def report_margins(found: DocumentRecords) -> dict[str, float]:
    """The margins the report was built with (``metrics.M.margin``: its pairs' equivalence tests)."""
    out: dict[str, float] = {}
    for r in found.records:
        if isinstance(r, PairwiseRecord):
            for p in r.pairs:
                if p.equivalence is not None and r.metric is not None:
                    out.setdefault(r.metric, float(p.equivalence.margin))
    return out


def run_gate(found: DocumentRecords, baseline: str, margins: Mapping[str, float], primary: Sequence[str],
             secondary: Sequence[str], candidates: Sequence[str], where: str) -> GateResult:
    """The gate over a report read by :func:`~sigreport.results.reading.read_document` (module docstring).
    ``primary`` empty: every metric with a margin, in the report's order; ``candidates`` empty: every system
    but the baseline."""
    margins = {**report_margins(found), **margins}
    primary = checked_arguments(found, baseline, margins, primary, secondary, candidates, where)
    others = tuple(candidates) or tuple(s for s in found.systems if s != baseline)
    decisions = decide_records(found.records, found.metrics, baseline)
    checks: list[GateCheck] = []
    stopped = False
    for role, names in (("primary", primary), ("secondary", tuple(secondary))):
        if role == "secondary" and not all(c.passed for c in checks):
            stopped = True  # fixed sequence: the secondary metrics only after every primary one passed
        for m in names:
            blocks = [b for b in decisions if b.metric == m and b.level != "corpora"]
            if not blocks:
                raise _error(where, "--metrics", f"metric {m!r} has no per-item analysis to gate")
            for block in blocks:
                for cand in others:
                    checks.append(check_pair(found, block, metric=m, role=role, cand=cand, baseline=baseline,
                                              margin=margins[m], stopped=stopped, where=where))
                    if role == "secondary" and not checks[-1].passed:
                        stopped = True
    alpha = float(found.alpha) if found.alpha is not None else checks[0].alpha
    return GateResult(baseline=baseline, checks=tuple(checks), alpha=alpha)


def checked_arguments(found: DocumentRecords, baseline: str, margins: Mapping[str, float], primary: Sequence[str],
                      secondary: Sequence[str], candidates: Sequence[str], where: str) -> tuple[str, ...]:
    """The primary metrics (given, else every metric with a margin), after checking every argument against the
    report: each problem a :class:`UserError` (exit 2)."""
    systems = tuple(found.systems)
    if baseline not in systems:
        raise _error(where, "--baseline", f"system {baseline!r} is not in the report{did_you_mean(baseline, systems)}; systems: "
                     f"{', '.join(systems)}")
    for c in candidates:
        if c not in systems or c == baseline:
            raise _error(where, "--candidate", f"{c!r} is not a system of the report other than the baseline"
                         f"{did_you_mean(c, [s for s in systems if s != baseline])}; "
                         f"systems: {', '.join(systems)}")
    known = tuple(found.metrics)
    for m in margins:
        if m not in found.metrics:
            raise _error(where, "--margin", f"metric {m!r} is not in the report{did_you_mean(m, known)}; metrics: "
                         f"{', '.join(known)}")
    chosen = tuple(primary) or tuple(m for m in known if m in margins and m not in secondary)
    for m in (*chosen, *secondary):
        if m not in found.metrics:
            raise _error(where, "--metrics", f"metric {m!r} is not in the report{did_you_mean(m, known)}; metrics: "
                         f"{', '.join(known)}")
        if m not in margins:
            raise _error(where, "--margin", f"metric {m!r} has no margin: give --margin {m}=D (D in the metric's "
                         "units) or build the report with metrics.{m}.margin")
    if set(chosen) & set(secondary):
        raise _error(where, "--secondary", "a metric is either primary or secondary: "
                     + ", ".join(sorted(set(chosen) & set(secondary))))
    if not chosen:
        raise _error(where, "--margin", "no metric to gate: give --margin METRIC=D (or build with metrics.M.margin)")
    return chosen


def check_pair(found: DocumentRecords, block: BlockDecisions, metric: str, role: str, cand: str, baseline: str,
               margin: float, stopped: bool, where: str) -> GateCheck:
    """One gated hypothesis: the non-inferiority t test of ``cand`` against ``baseline`` on one block, from the
    primary pair's mean difference, SE and df, and what the report's decisions say of the pair."""
    import numpy as np

    from sigreport.stats.equivalence import t_equivalence

    info = found.metrics[metric]
    rec = block.record
    if not isinstance(rec, PairwiseRecord) or rec.method not in GATE_METHODS:
        got = "no pairwise test" if rec is None else f"{rec.kind} test {rec.method}"
        raise _error(where, metric, f"the gate reads a paired t test (tests.pairwise: paired_t); the report's primary "
                     f"test of {metric!r}{' on ' + block.corpus if block.corpus else ''} is {got}")
    a = float(rec.alpha)
    row = next((p for p in rec.pairs if {p.a, p.b} == {cand, baseline}), None)
    if row is None:
        raise _error(where, "--baseline", f"the report does not compare {cand} with {baseline} on {metric!r} "
                     "(tests.comparisons: vs_baseline with another baseline?)")
    design = next((k for k in ("clusters", "strata") if k in row.extra), None)
    if design is not None:  # its SE is not the per-item one the gate's t test would take (as metrics.M.margin)
        what = "clustered" if design == "clusters" else "a macro average over strata"
        raise _error(where, metric, f"the pairs of {metric!r} are {what}: the gate's non-inferiority t test treats "
                     "items as independent and cannot respect that design yet")
    sign = 1.0 if row.a == cand else -1.0
    est = None if row.estimate is None else sign * float(row.estimate)
    se = row.differences.se if row.differences is not None else None
    decided = next((p for p in block.pairs if {p.a, p.b} == {cand, baseline}), None)
    decision = ("no decision" if decided is None or decided.significant is None else
                f"{decided.winner} significantly better" if decided.winner else "no significant difference")
    values: dict[str, float | None] = {"noninferiority_pvalue": None, "ci_low": None, "ci_high": None}
    if est is not None and se is not None and row.df is not None:
        got = t_equivalence(np.array([est]), np.array([se]), np.array([float(row.df)]), margin, a,
                            info.higher_is_better)
        values = {k: finite_or_none(got[k][0]) for k in values}
    p = None if stopped else values["noninferiority_pvalue"]
    if stopped:
        verdict = "not tested"
    elif decided is not None and decided.winner == cand:
        verdict = "better"
    elif p is None:
        verdict = "no test"
    else:
        verdict = "non-inferior" if is_significant(p, a) else "not non-inferior"
    return GateCheck(metric=metric, label=info.label, corpus=block.corpus, role=role, candidate=cand,
                     baseline=baseline, margin=margin, higher_is_better=info.higher_is_better, alpha=a, estimate=est,
                     ci_low=values["ci_low"], ci_high=values["ci_high"], ci_level=1 - 2 * a, pvalue=p, verdict=verdict,
                     decision=decision, decimals=int(info.decimals))


RULE = ("Fixed-sequence gatekeeping: every primary metric is tested at alpha = {alpha:g} (all must pass, an "
        "intersection-union test); the secondary metrics only when every primary one passed, in order, each at "
        "alpha, stopping at the first that fails. The family-wise error rate of the gate is held at alpha.")


def _num(v: float | None, decimals: int) -> str:
    return "n/a" if v is None else f"{v:.{decimals + 1}f}"


def _p(v: float | None) -> str:
    return "n/a" if v is None else ("< 0.001" if v < 0.001 else f"{v:.3f}")


def _p_is(v: float | None) -> str:
    text = _p(v)
    return text if text.startswith("<") else f"= {text}"


def _where(c: GateCheck) -> str:
    return c.label + (f" on {c.corpus}" if c.corpus else "")


def _bound_text(c: GateCheck) -> str:
    side = "lower" if c.higher_is_better else "upper"
    bound = c.ci_low if c.higher_is_better else c.ci_high
    need = f"> {-c.margin:g}" if c.higher_is_better else f"< {c.margin:g}"
    return f"{side} {1 - c.alpha:.0%} bound {_num(bound, c.decimals)} (needs {need})"


def render_text(r: GateResult) -> str:
    """The verdict for a terminal or a CI log (names from the data: control characters escaped)."""
    from sigreport.escaping import clean

    lines = [f"gate {'PASSED' if r.passed else 'FAILED'} against baseline {clean(r.baseline)}"]
    for c in r.checks:
        lines.append(f"  [{c.role}] {clean(_where(c))}: {clean(c.candidate)} - {clean(c.baseline)} = "
                     f"{_num(c.estimate, c.decimals)}, "
                     f"{c.ci_level:.0%} CI [{_num(c.ci_low, c.decimals)}, {_num(c.ci_high, c.decimals)}], "
                     f"margin {c.margin:g}, {_bound_text(c)}, non-inferiority p {_p_is(c.pvalue)}: {c.verdict} "
                     f"(report: {c.decision})")
    lines.append(RULE.format(alpha=r.alpha))
    return "\n".join(lines) + "\n"


def render_markdown(r: GateResult) -> str:
    from sigreport.escaping import markdown_text

    out = [f"### Release gate: {'passed' if r.passed else 'FAILED'} (baseline {markdown_text(r.baseline)})", "",
           "| | metric | candidate | estimate | interval | margin | p (non-inferiority) | verdict |",
           "| --- | --- | --- | ---: | --- | ---: | ---: | --- |"]
    for c in r.checks:
        mark = "✅" if c.passed else ("⏭️" if c.verdict == "not tested" else "❌")
        out.append(f"| {mark} | {markdown_text(_where(c))} ({c.role}) | {markdown_text(c.candidate)} | "
                   f"{_num(c.estimate, c.decimals)} | {c.ci_level:.0%} CI [{_num(c.ci_low, c.decimals)}, "
                   f"{_num(c.ci_high, c.decimals)}] | ±{c.margin:g} | {_p(c.pvalue)} | **{c.verdict}** |")
    out += ["", "Estimate: candidate minus baseline. Non-inferior: not worse than the baseline by more than the "
            "margin (one-sided paired t test, the interval's end facing the margin beyond it); better: the "
            "report's Conclusions find the candidate significantly better. " + RULE.format(alpha=r.alpha), ""]
    return "\n".join(out)


def render_json(r: GateResult) -> str:
    doc = {"passed": r.passed, "baseline": r.baseline, "alpha": r.alpha, "rule": RULE.format(alpha=r.alpha),
           "checks": [{k: v for k, v in dataclasses.asdict(c).items() if k != "decimals"} | {"passed": c.passed}
                      for c in r.checks]}
    return json.dumps(doc, indent=2) + "\n"


RENDERERS: Mapping[str, Any] = {"text": render_text, "markdown": render_markdown, "json": render_json}
