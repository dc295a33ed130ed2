"""``sigreport power``: how many items (and training runs) the next study needs to detect a difference.

A pilot's data give, for every pair of systems the spec compares, the standard deviation of the paired
differences (and, with a ``run`` column, the spread of each system's per-run values). For a true difference
D at the level the spec's correction asks of a pair (:func:`sigreport.analyses.power.comparison_level`) and
a power (``tests.power``, or ``--power``):

* items: the smallest n with which the paired t test detects D (noncentral t, as R's ``power.t.test(...,
  type = "paired", strict = TRUE)``); for the Wilcoxon and sign tests, that n divided by the test's
  asymptotic relative efficiency for normal differences (3/pi, 2/pi), for the resampling tests of a mean
  metric the paired t value (their large-sample equivalent);
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
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from sigreport.analyses.common import family_key, system_pairs
from sigreport.analyses.power import EFFICIENCY, comparison_level
from sigreport.errors import Problem, UserError
from sigreport.render.markdown import MarkdownCells
from sigreport.spec import power_range_message
from sigreport.stats import power as pw


@dataclasses.dataclass(frozen=True)
class PairPlan:
    """The plan for one pair of one metric on one corpus (``items_needed``/``runs_needed`` None: not planned
    or beyond reach, ``note`` says why)."""

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


def plan_power(prepared: Any, difference: float, target: float | None = None,
               metrics: Sequence[str] | None = None) -> list[PairPlan]:
    """Every pair's plan for a true difference ``difference`` (in the metric's units)."""
    spec, dataset = prepared.spec_file.spec, prepared.dataset
    tests = spec.tests
    target = float(target if target is not None else (tests.power or pw.DEFAULT_POWER))
    if not spec.alpha < target < 1:
        raise UserError("--power", [Problem("--power", None, "", power_range_message(target, spec.alpha))])
    if not (math.isfinite(difference) and difference != 0):
        raise UserError("--difference", [Problem("--difference", None, "", "the difference must be a non-zero number")])
    unknown = [m for m in metrics or () if m not in dataset.metric_specs]
    if unknown:
        raise UserError("--metric", [Problem("--metric", None, "", f"metric {m!r} is not in the spec; known: "
                                             f"{', '.join(dataset.metric_specs)}") for m in unknown])
    blocks = [(k, b) for k, b in dataset.blocks.items() if metrics is None or k[0] in metrics]
    keys = {k: family_key(tests.family, SimpleNamespace(id=f"{k[0]}/{k[1]}", metric=k[0], corpus=k[1]))
            for k, _ in blocks}
    sizes: dict[tuple[Any, ...], int] = {}
    for k, block in blocks:
        sizes[keys[k]] = sizes.get(keys[k], 0) + len(system_pairs(block.systems, tests, spec.baseline))
    out = []
    for (m, c), block in blocks:
        level = comparison_level(spec.alpha, tests.correction, sizes[keys[(m, c)]])
        out += _block_plans(spec, dataset.metric_specs[m], block, level, difference, target)
    return out


def _block_plans(spec: Any, mspec: Any, block: Any, level: float, difference: float, target: float) -> list[PairPlan]:
    tests = spec.tests
    method = tests.pairwise
    pairs = system_pairs(block.systems, tests, spec.baseline)
    why = ("corpus-level metric: no per-item differences" if mspec.corpus_level else
           "cross-validation design: not planned" if block.level == "folds" else "")
    runs = _run_values(block) if block.runs is not None and not mspec.corpus_level else None
    out = []
    for i, j in pairs:
        a, b = block.systems[i], block.systems[j]
        if why:
            out.append(PairPlan(metric=block.metric, corpus=block.corpus, a=a, b=b, method=method,
                                n_items=block.stats.shape[0], sd=None, level=level, power_now=None, items_needed=None,
                                note=why))
            continue
        d = block.scores[:, i] - block.scores[:, j]
        n = d.size
        sd = float(np.std(d, ddof=1)) if n >= 2 else None
        now, needed, note = _items(d, sd, difference, level, target, tests.alternative, method)
        if block.cluster_codes is not None and needed is not None:
            now, needed, note = _clustered_items(d, sd, block.cluster_codes, difference, level, target,
                                                 tests.alternative)
        elif mspec.average == "macro" and block.stratum_codes is not None and needed is not None:
            now, needed, note = _macro_items(d, sd, block.stratum_codes, difference, level, target, tests.alternative)
        plan = PairPlan(metric=block.metric, corpus=block.corpus, a=a, b=b, method=method, n_items=n, sd=sd,
                        level=level, power_now=now, items_needed=needed, note=note)
        if runs is not None:
            plan = _with_runs(plan, runs[i], runs[j], difference, level, target, tests.alternative)
        out.append(plan)
    return out


def _items(d: np.ndarray, sd: float | None, difference: float, level: float, target: float, alternative: str,
           method: str) -> tuple[float | None, int | None, str]:
    """(power now, items needed, note) of one pair's differences ``d``: None and the reason where there is
    no answer (under 2 items, no variation beyond rounding, a difference against a one-sided H1)."""
    if d.size < 2 or sd is None:
        return None, None, "fewer than 2 items: the SD of the differences needs at least 2"
    if not math.isfinite(sd):
        return None, None, "the differences have no finite standard deviation"
    if not pw.varies(sd, d):
        return None, None, (f"the differences do not vary (their SD is zero or below {pw.ROUNDING:g} of the "
                            f"largest difference: rounding)")
    if _against(difference, alternative):
        return None, None, (f"a difference of {difference:g} points against tests.alternative {alternative} (H1: "
                            f"a - b {'>' if alternative == 'greater' else '<'} 0): no number of items detects it "
                            f"with a one-sided test; give a difference of the other sign")
    dz = difference / sd if alternative != "two-sided" else abs(difference) / sd
    now = float(pw.paired_t_power(dz, d.size, level, alternative))
    needed = pw.paired_t_sample_size(difference, sd, level, target, alternative)
    if needed is not None and method in EFFICIENCY:
        return now, math.ceil(needed / EFFICIENCY[method]), (f"{method}: the paired t value over its efficiency for "
                                                              f"normal differences")
    return now, needed, ""


def _clustered_items(d: np.ndarray, sd: float, clusters: tuple[np.ndarray, int], difference: float, level: float,
                     target: float, alternative: str) -> tuple[float | None, int | None, str]:
    """(power now, items needed, note) of a pair of clustered items: the clustered paired t (G - 1 df, the
    effective number of items n / deff of the pair's differences); the items needed are the clusters needed
    (of the pilot's mean cluster size, the design effect unchanged) times that size."""
    from sigreport.stats import cluster

    g, G = clusters
    cm = cluster.clustered_means(d[:, None], g, G)
    deff = float(cm.design_effect[0])
    if not math.isfinite(deff) or deff <= 0:
        return None, None, "clustered items: no design effect (the differences do not vary)"
    dz = difference / sd if alternative != "two-sided" else abs(difference) / sd
    now = float(pw.clustered_t_power(dz, d.size / deff, G, level, alternative))
    size = d.size / G
    need = pw.clusters_needed(dz, deff, size, level, target, alternative)
    items = None if need is None else math.ceil(need * size)
    return now, items, (f"clustered items: the clustered paired t (t on G \u2212 1 df) with the pilot's design "
                        f"effect and mean cluster size; G = {G} clusters now (design effect {deff:.2f}, mean size "
                        f"{size:.1f}), {need if need is not None else 'too many'} clusters needed")


def _macro_items(d: np.ndarray, sd: float, strata_codes: tuple[np.ndarray, int], difference: float, level: float,
                 target: float, alternative: str) -> tuple[float | None, int | None, str]:
    """(power now, items needed, note) of a pair of a macro average: the t of the macro average with its
    effective number of items n / deff and Welch-Satterthwaite df, both growing in proportion to the items
    (every stratum enlarged alike)."""
    from sigreport.stats import strata

    s, S = strata_codes
    mm = strata.macro_means(d[:, None], s, S)
    deff, df = float(mm.design_effect[0]), float(mm.df[0])
    if not (math.isfinite(deff) and deff > 0 and math.isfinite(df)):
        return None, None, "macro average: the differences do not vary within the strata"
    dz = difference / sd if alternative != "two-sided" else abs(difference) / sd
    n = d.size

    def power_at(m: int) -> float:
        return float(pw.clustered_t_power(dz, m / deff, 1 + df * m / n, level, alternative))

    hi = max(n, 2)
    while power_at(hi) < target:
        if hi > 10_000_000:
            return power_at(n), None, "macro average: beyond 10 million items"
        hi *= 2
    lo = 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power_at(mid) >= target else (mid, hi)
    return power_at(n), hi, (f"macro average over {S} strata: the t of the macro average (Welch-Satterthwaite df "
                             f"{df:.1f} now), every stratum enlarged alike (design effect {deff:.2f})")


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


def render_plans(plans: list[PairPlan], difference: float, target: float, fmt: str = "text",
                 alternative: str = "two-sided") -> str:
    """The plans as JSON (every number finite or null) or as a Markdown table with its notes."""
    if fmt == "json":
        doc = {"difference": difference, "power": target, "alternative": alternative,
               "pairs": [{k: _finite(v) for k, v in dataclasses.asdict(p).items()} for p in plans]}
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    side = "" if alternative == "two-sided" else f" (one-sided: H1 a - b {'>' if alternative == 'greater' else '<'} 0)"
    lines = [f"Items needed to detect a true difference of {difference:g}{side} with {100 * target:.0f}% power, at the "
             f"level the correction asks of a pair:", ""]
    runs = any(p.runs_now is not None for p in plans)
    head = "| metric | corpus | pair | test | level | SD of differences | items now | power now | items needed |"
    rule = "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
    if runs:
        head += " runs now | runs SD | runs needed |"
        rule += " ---: | ---: | ---: |"
    lines += [head, rule]
    cell = MarkdownCells().text
    for p in plans:
        cells = [cell(p.metric), cell(str(p.corpus)) if p.corpus is not None else "(across corpora)",
                 f"{cell(p.a)} vs {cell(p.b)}", cell(p.method), f"{p.level:.4g}", _num(p.sd), str(p.n_items),
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
