"""What every view shares: display names from the Results, wording helpers, and record access that
works for typed records and for records read back from results.json alike."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sigreport.render.model import CI, Cell, Column, LatexOptions, Marked, Num, P, Sym, Table, Text, join

PAIRWISE_NAMES = {
    "paired_t": "paired t test",
    "wilcoxon": "Wilcoxon signed-ranks test",
    "sign": "sign test",
    "bootstrap": "paired bootstrap",
    "bootstrap_t": "studentized paired bootstrap (bootstrap-t)",
    "permutation": "paired permutation test (approximate randomization)",
    "5x2cv_t": "Dietterich's 5x2cv paired t test",
    "5x2cv_f": "Alpaydin's combined 5x2cv F test",
    "kfold_t": "k-fold cross-validated paired t test",
    "corrected_resampled_t": "Nadeau-Bengio corrected resampled t test",
    "resampled_t": "resampled paired t test (type I error inflated)",
    "auto": "automatic choice",
}
POSTHOC_NAMES = {"nemenyi": "Nemenyi test", "bonferroni_dunn": "Bonferroni-Dunn test",
                 "holm": "Holm step-down test on rank z", "hochberg": "Hochberg step-up test on rank z",
                 "shaffer": "all-pairs z tests on ranks with Shaffer's static procedure",
                 "bergmann_hommel": "all-pairs z tests on ranks with Bergmann-Hommel's procedure",
                 "paired_t": "paired t tests"}
CORRECTION_NAMES = {
    "holm": "Holm", "bonferroni": "Bonferroni", "hochberg": "Hochberg", "hommel": "Hommel", "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli", "none": "no correction",
}
SPHERICITY_NAMES = {
    "none": "sphericity assumed", "greenhouse_geisser": "Greenhouse-Geisser", "huynh_feldt": "Huynh-Feldt",
    "lower_bound": "lower bound",
}
ALTERNATIVE_TEXT = {"two-sided": "two-sided", "greater": "one-sided, H1: a > b", "less": "one-sided, H1: a < b"}
SECTION_NAMES = {"classification": "Classification", "agreement": "Agreement"}  # sections named by a kind


class Labels:
    """What views read besides their record: metric names and decimals (from ``Results.metrics``),
    corpus names, the run's alpha, and which agreement record shows the shared matrix."""

    def __init__(self, metrics: Mapping[str, Any], alpha: float, matrix_owners: frozenset[str] = frozenset()):
        self.metrics = metrics
        self.alpha = alpha
        self.matrix_owners = matrix_owners  # agreement records that show the two-annotator matrix

    def metric(self, m: str | None) -> str:
        info = self.metrics.get(m) if m is not None else None
        return info.label if info else SECTION_NAMES.get(m or "", str(m))

    def decimals(self, m: str | None) -> int:
        info = self.metrics.get(m) if m is not None else None
        return info.decimals if info else 4

    def corpus(self, c: str | None) -> str:
        return "all corpora" if c is None else c


def get(obj: Any, key: str, default: Any = None) -> Any:
    """``obj[key]`` of a mapping, else the attribute (results.json records hold objects, not dicts)."""
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def extra(p: Any, key: str) -> Any:
    """A method-specific value of a pairwise row: in ``extra`` of a typed row, a field of a loaded one."""
    ex = getattr(p, "extra", None)
    return ex.get(key) if isinstance(ex, Mapping) else getattr(p, key, None)


def pct(level: float) -> str:
    """An interval level as a percentage ('95%')."""
    return f"{level:.0%}"


def p_text(x: float | None) -> str:
    """p-values in sentences, APA style: three decimals, '< 0.001'."""
    if x is None:
        return "not computable"
    return "p < 0.001" if x < 0.001 else f"p = {x:.3f}"


def df_text(x: float | None) -> str:
    """Degrees of freedom in words: an integer when whole."""
    if x is None:
        return "\u2014"
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 else f"{x:.2f}"


def plain(x: float | None, decimals: int = 3, default: str = "not computable") -> str:
    return default if x is None else f"{x:.{decimals}f}"


def value_ci(value: float | None, low: float | None, high: float | None, level: float, decimals: int) -> Cell:
    """'0.860 [0.829, 0.889]'; the value alone when the interval is missing."""
    if value is None:
        return Num(None)
    if low is None or high is None:
        return Num(value, decimals)
    return join(Num(value, decimals), " ", CI(low, high, level, decimals))


def effect_cell(eff: Any) -> Cell:
    """'d_z = 3.68' with the effect's symbol, or a dash."""
    if eff is None or get(eff, "value") is None:
        return Num(None)
    return join(Sym(get(eff, "name")), " = ", Num(get(eff, "value"), 2))


def why_this_test(selection: Any) -> tuple[str, ...]:
    """'Why this test' lines from a recorded automatic choice."""
    if not selection:
        return ()
    lines = [f"Why this test: {get(selection, 'reason')}"]
    for step in get(selection, "steps") or ():
        value, threshold = get(step, "value"), get(step, "threshold")
        val = "" if value is None else f" (value {value:.4g}"
        if value is not None:
            val += f", threshold {threshold:.4g})" if threshold is not None else ")"
        lines.append(f"\u2022 {get(step, 'check')}{val}: {get(step, 'outcome')}")
    if get(selection, "pinned"):
        lines.append(f"\u2022 selection fixed: {get(selection, 'previous_method')} kept from the previous report")
    return tuple(lines)


def family_text(r: Any) -> str:
    corr = CORRECTION_NAMES.get(r.correction, r.correction)
    n = r.family_size
    family = f"{n} comparison{'s' if n != 1 else ''}"
    if r.correction == "none":
        return f"no multiple-comparison correction ({family})"
    scope = {"metric": "of this metric on every corpus", "corpus": "of every metric on this corpus",
             "all": "of every pairwise test in the report"}.get(getattr(r, "family", None) or "",
                                                                "of this metric on this corpus")
    return f"{corr} correction over the family of the {family} {scope}"


def pvalue_matrix(pairs: Any, key: tuple[str | None, ...], caption: str, adjusted: str,
                  alpha: float) -> Table | None:
    """A pairwise family in few columns, for a narrow page: the adjusted p-value of every pair in a k x k
    matrix (rows and columns the systems; a family against one baseline has the baseline as its only
    column), significant ones in bold, the diagonal a dash. ``None`` for fewer than two pairs.

    The decisions are the family's own (``significant``), never recomputed from the p-values shown.
    """
    pairs = [p for p in pairs]
    if len(pairs) < 2:
        return None
    systems = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
    by_pair = {frozenset((p.a, p.b)): p for p in pairs}
    bs = {p.b for p in pairs}
    baseline = next(iter(bs)) if len(bs) == 1 and len(pairs) == len(systems) - 1 else None
    cols = [baseline] if baseline is not None else systems
    rows = [s for s in systems if s != baseline]

    def cell(a: str, b: str) -> Cell:
        if a == b:
            return Num(None)
        p = by_pair.get(frozenset((a, b)))
        if p is None:
            return Text("")
        value = P(get(p, "pvalue_adjusted"))
        return Marked(value, "best") if get(p, "significant") else value

    table_rows = tuple((Text(a), *(cell(a, b) for b in cols)) for a in rows)
    note = (f"Each cell: the {adjusted} p-value of the row system against the column system; bold: significant "
            f"at \u03b1 = {alpha:g} after correction. The HTML report has the full table (estimates, intervals, "
            "statistics).")
    return Table(key, caption, (Column(Text(""), "l"), *(Column(Text(b)) for b in cols)), table_rows, (note,))


def latex_options(results: Any) -> LatexOptions:
    """The spec's ``outputs.latex``, duck-typed (defaults for results read back from results.json)."""
    lx = get(get(getattr(results, "spec", None), "outputs"), "latex")
    if lx is None:
        return LatexOptions()
    d = LatexOptions()
    return LatexOptions(get(lx, "float", d.float), bool(get(lx, "siunitx", d.siunitx)), get(lx, "pairwise", d.pairwise),
                        get(lx, "caption_prefix", d.caption_prefix), get(lx, "label_prefix", d.label_prefix))
