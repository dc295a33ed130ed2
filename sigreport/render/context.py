"""The only producer of template input: results become formatted, per-target views.

One table model (:class:`Table`) serves every format: each analysis kind turns its result into
tables, plain-language sentences, notes and warnings (:class:`AnalysisView`); the HTML template and
the LaTeX table template only display them. Cells are either plain text (escaped once, by the
target's Jinja environment) or :class:`Safe` strings that this module built for the target
(math, superscripts).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal

from markupsafe import Markup

from sigreport.spec import Spec

Target = Literal["html", "latex"]


class Safe(str):
    """A LaTeX string already valid for its target; the LaTeX environment does not escape it."""

    __slots__ = ()


@dataclasses.dataclass(frozen=True)
class Fmt:
    """Number formatting for one target. Every number in a report goes through here."""

    target: Target

    def safe(self, html: str, latex: str) -> str:
        return Markup(html) if self.target == "html" else Safe(latex)

    def _signed(self, s: str) -> str:
        if s.startswith("-"):
            return self.safe("\u2212" + s[1:], "$-$" + s[1:])
        return s

    def num(self, x: float | None, decimals: int = 3) -> str:
        if x is None or (isinstance(x, float) and not math.isfinite(x)):
            return "\u2014" if self.target == "html" else Safe("---")
        s = f"{x:.{decimals}f}"
        if float(s) == 0:
            s = f"{0:.{decimals}f}"
        return self._signed(s)

    def int(self, x: int | None) -> str:
        return self.num(None) if x is None else self._signed(str(int(x)))

    def df(self, x: float | None) -> str:
        if x is None:
            return self.num(None)
        return str(int(round(x))) if abs(x - round(x)) < 1e-9 else f"{x:.2f}"

    def sci(self, x: float, digits: int = 2) -> str:
        mant, exp = f"{x:.{digits - 1}e}".split("e")
        e = int(exp)
        minus = "\u2212" if e < 0 else ""
        return self.safe(f"{mant}\u00d710<sup>{minus}{abs(e)}</sup>",
                         f"${mant}\\times 10^{{{e}}}$")

    def p(self, x: float | None) -> str:
        """p-values in tables: 4 significant digits, scientific below 0.001."""
        if x is None:
            return self.num(None)
        if x >= 0.001:
            return f"{x:#.4g}" if x < 1 else "1"
        if x == 0:
            return self.safe("&lt; 10<sup>\u2212300</sup>", r"$<10^{-300}$")
        return self.sci(x)

    def p_text(self, x: float | None) -> str:
        """p-values in sentences, APA style: three decimals, '< 0.001'."""
        if x is None:
            return "not computable"
        return "p < 0.001" if x < 0.001 else f"p = {x:.3f}"

    def stat(self, x: float | None) -> str:
        if x is None:
            return self.num(None)
        return self.num(x, 3) if abs(x) < 1e6 else self.sci(x, 3)

    def math(self, html: str, latex: str) -> str:
        return self.safe(html, f"${latex}$")

    def join(self, *parts: str) -> str:
        """Concatenate, escaping plain parts for the target and keeping safe ones as they are."""
        if self.target == "html":
            return Markup("").join(parts)
        from sigreport.render.latex import escape

        return Safe("".join(escape(x) for x in parts))


@dataclasses.dataclass(frozen=True)
class Column:
    header: str
    align: Literal["l", "r", "c"] = "r"


@dataclasses.dataclass(frozen=True)
class Table:
    """A table with caption and label; ``notes`` go under it (footnotes in LaTeX)."""

    key: str
    caption: str
    label: Safe
    columns: tuple[Column, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()
    bold_rows: tuple[int, ...] = ()


@dataclasses.dataclass(frozen=True)
class AnalysisView:
    id: str
    kind: str
    title: str
    tables: tuple[Table, ...]
    sentences: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Section:
    title: str
    anchor: str
    views: tuple[AnalysisView, ...]


def slug(*parts: str | None) -> str:
    """File- and label-safe name; a short hash keeps names with special characters distinct."""
    raw = "--".join("all" if p is None else str(p) for p in parts)
    clean = re.sub(r"[^A-Za-z0-9_-]+", "-", raw).strip("-")[:60] or "x"
    if clean != raw:
        clean += "-" + hashlib.sha256(raw.encode()).hexdigest()[:6]
    return clean


def label(*parts: str | None) -> Safe:
    """LaTeX label for a table (slug characters only, so it needs no escaping)."""
    return Safe("tab:" + slug(*parts))


PAIRWISE_NAMES = {
    "paired_t": "paired t test",
    "wilcoxon": "Wilcoxon signed-ranks test",
    "sign": "sign test",
    "bootstrap": "paired bootstrap",
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
                 "paired_t": "paired t tests"}
CORRECTION_NAMES = {
    "holm": "Holm", "bonferroni": "Bonferroni", "hochberg": "Hochberg", "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli", "none": "no correction",
}
SPHERICITY_NAMES = {
    "none": "sphericity assumed", "greenhouse_geisser": "Greenhouse-Geisser", "huynh_feldt": "Huynh-Feldt",
    "lower_bound": "lower bound",
}
ALTERNATIVE_TEXT = {"two-sided": "two-sided", "greater": "one-sided, H1: a > b", "less": "one-sided, H1: a < b"}


class Labels:
    """Display names of metrics and corpora."""

    def __init__(self, spec: Spec, metric_specs: Mapping[str, Any] | None = None):
        self.spec = spec
        self.metric_specs = dict(metric_specs if metric_specs is not None else spec.metrics)

    def metric(self, m: str) -> str:
        from sigreport.render.views_labels import SECTION_NAMES

        spec = self.metric_specs.get(m)
        return (spec.label or m) if spec else SECTION_NAMES.get(m, m)

    def decimals(self, m: str) -> int:
        spec = self.metric_specs.get(m)
        return spec.decimals if spec else 4

    def corpus(self, c: str | None) -> str:
        return "all corpora" if c is None else c


# -------------------------------------------------------------------------------------------- views


def descriptives_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    dec = lab.decimals(r.metric)
    level = f"{r.ci_level:.0%}"
    cols = (Column("System", "l"), Column("n"), Column("Mean"), Column("SD"), Column("Median"),
            Column(f"{level} CI of the mean", "c"))
    rows = tuple((s.system, f.int(s.n), f.num(s.mean, dec), f.num(s.sd, dec), f.num(s.median, dec),
                  _ci(f, s.ci_low, s.ci_high, dec)) for s in r.systems)
    caption = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: per-system descriptives ({r.n_items} items)."
    warnings = list(r.warnings) + [f"{s.system}: {w}" for s in r.systems for w in s.warnings]
    return AnalysisView(r.id, r.kind, "Descriptives",
                        (Table(slug(r.metric, r.corpus, "descriptives"), caption,
                               label(r.metric, r.corpus, "descriptives"), cols, rows),),
                        warnings=tuple(warnings))


def _ci(f: Fmt, lo: float | None, hi: float | None, dec: int) -> str:
    if lo is None and hi is None:
        return f.num(None)
    lo_s = f.num(lo, dec) if lo is not None else f.math("\u2212\u221e", r"-\infty")
    hi_s = f.num(hi, dec) if hi is not None else f.math("\u221e", r"\infty")
    return f.join("[", lo_s, ", ", hi_s, "]")


def _family_text(r: Any) -> str:
    corr = CORRECTION_NAMES.get(r.correction, r.correction)
    n = r.family_size
    family = f"{n} comparison{'s' if n != 1 else ''}"
    if r.correction == "none":
        return f"no multiple-comparison correction ({family})"
    return f"{corr} correction over the family of the {family} of this metric on this corpus"


def pairwise_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    dec = lab.decimals(r.metric)
    method = PAIRWISE_NAMES.get(r.method, r.method)
    level = f"{r.ci_level:.0%}"
    stat_head = {"paired_t": f.math("t", "t"), "wilcoxon": f.math("T", "T"), "sign": "wins",
                 "bootstrap": f.math("\u0394", r"\Delta"), "permutation": f.math("\u0394", r"\Delta"),
                 "5x2cv_f": f.math("F", "F")}
    stat_head.update({m: f.math("t", "t") for m in ("5x2cv_t", "kfold_t", "corrected_resampled_t", "resampled_t")})
    est_head = {"paired_t": f.math("mean(a\u2212b)", r"\bar{d}"), "wilcoxon": "HL estimate",
                "sign": "Median diff."}.get(r.method, f.math("\u0394 = a\u2212b", r"\Delta = a-b"))
    cols = [Column("a vs b", "l"), Column("n"), Column(est_head),
            Column(f"{level} CI", "c"), Column(stat_head.get(r.method, "Statistic"))]
    has_df = any(p.df is not None for p in r.pairs)
    if has_df:
        cols.append(Column("df"))
    cols += [Column(f.math("crit (\u03b1 = " + f"{r.alpha:g})", r"\text{crit}_{\alpha=" + f"{r.alpha:g}" + "}")),
             Column("p"), Column(f.math("p<sub>adj</sub>", r"p_{\text{adj}}")), Column("Effect"),
             Column("Significant", "c")]
    extra_cols = PAIRWISE_EXTRA.get(r.method, ())
    cols += [Column(head(f)) for _, head, _ in extra_cols]
    rows = []
    bold = []
    for idx, p in enumerate(r.pairs):
        row = [f"{p.a} vs {p.b}", f.int(p.n), f.num(p.estimate, dec), _ci(f, p.ci_low, p.ci_high, dec),
               f.stat(p.statistic)]
        if has_df:
            row.append(f.df(p.df))
        eff = p.effect_size
        row += [f.stat(p.critical_value), f.p(p.pvalue), f.p(p.pvalue_adjusted), effect_cell(f, eff),
                "yes" if p.significant else ("no" if p.significant is not None else f.num(None))]
        row += [fmt(p, f) for _, _, fmt in extra_cols]
        if p.significant:
            bold.append(idx)
        rows.append(tuple(row))
    alt = ALTERNATIVE_TEXT[r.alternative]
    which = "every system against the baseline" if r.comparisons == "vs_baseline" else "every pair of systems"
    over = {"corpora": f" across {r.pairs[0].n if r.pairs else 0} corpora (one score per corpus)",
            "folds": " over cross-validation folds"}.get(r.level, "")
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: {method} for {which}{over} "
               f"({alt}; {_family_text(r)}; \u03b1 = {r.alpha:g}).")
    notes = [f"Estimate and CI are of a \u2212 b; crit is the critical value of the test statistic at "
             f"\u03b1 = {r.alpha:g} for this alternative (reject when the statistic is beyond it); "
             f"p is the unadjusted p-value, p_adj is {CORRECTION_NAMES.get(r.correction, r.correction)}-adjusted."]
    sentences = [pair_sentence(r, p, f, lab) for p in r.pairs]
    warnings = list(r.warnings) + [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings]
    notes += [n for n in PAIRWISE_NOTES.get(r.method, ())]
    key = r.id.rsplit("/", 1)[-1]
    table = Table(slug(r.metric, r.corpus, key), caption, label(r.metric, r.corpus, key),
                  tuple(cols), tuple(rows), tuple(notes), tuple(bold))
    title = {"posthoc": f"Post-hoc: {method}", "cv": f"Cross-validation: {method}"}.get(
        r.kind, f"Pairwise comparisons: {method}")
    return AnalysisView(r.id, r.kind, title, (table,), tuple(sentences), why_this_test(r.selection),
                        tuple(warnings))


def why_this_test(selection: Any) -> tuple[str, ...]:
    """'Why this test' lines from a recorded automatic choice."""
    if not selection:
        return ()
    lines = [f"Why this test: {selection['reason']}"]
    for step in selection["steps"]:
        val = "" if step["value"] is None else f" (value {step['value']:.4g}"
        if step["value"] is not None:
            val += f", threshold {step['threshold']:.4g})" if step["threshold"] is not None else ")"
        lines.append(f"\u2022 {step['check']}{val}: {step['outcome']}")
    if selection.get("pinned"):
        lines.append(f"\u2022 selection fixed: {selection['previous_method']} kept from the previous report")
    return tuple(lines)


EFFECT_SYMBOLS = {
    "d_z": ("d<sub>z</sub>", "d_z"),
    "rank_biserial": ("r<sub>rb</sub>", "r_{rb}"),
    "partial_eta_squared": ("\u03b7<sup>2</sup><sub>p</sub>", r"\eta^2_p"),
}


def effect_cell(f: Fmt, eff: Any) -> str:
    """'d_z = 3.68' with the effect's symbol, or a dash."""
    if eff is None or eff.value is None:
        return f.num(None)
    html, latex = EFFECT_SYMBOLS.get(eff.name, (eff.name, r"\text{" + eff.name.replace("_", r"\_") + "}"))
    return f.join(f.math(html, latex), " = ", f.num(eff.value, 2))


def _extra_int(key: str) -> Callable[[Any, Fmt], str]:
    return lambda p, f: f.int(p.extra.get(key)) if p.extra.get(key) is not None else f.num(None)


def _extra_num(key: str, decimals: int = 1) -> Callable[[Any, Fmt], str]:
    return lambda p, f: f.num(p.extra.get(key), decimals)


_RESAMPLING_EXTRA = (("n_resamples", lambda f: "B", _extra_int("n_resamples")),
                     ("mc_se", lambda f: "MC s.e. of p", lambda p, f: f.p(p.extra.get("mc_se"))))
PAIRWISE_EXTRA: dict[str, tuple[tuple[str, Callable[[Fmt], str], Callable[[Any, Fmt], str]], ...]] = {
    "paired_t": (("shapiro_pvalue", lambda f: "Shapiro-Wilk p",
                  lambda p, f: f.p(p.extra.get("shapiro_pvalue"))),),
    "wilcoxon": (("z", lambda f: f.math("z", "z"), lambda p, f: f.stat(p.extra.get("z"))),
                 ("r_plus", lambda f: f.math("R<sup>+</sup>", "R^+"), _extra_num("r_plus")),
                 ("r_minus", lambda f: f.math("R<sup>\u2212</sup>", "R^-"), _extra_num("r_minus")),
                 ("exact", lambda f: "p from", lambda p, f: "exact" if p.extra.get("exact") else "normal approx.")),
    "sign": (("wins", lambda f: "W", _extra_int("wins")), ("losses", lambda f: "L", _extra_int("losses")),
             ("ties", lambda f: "T", _extra_int("ties"))),
    "bootstrap": _RESAMPLING_EXTRA,
    "permutation": _RESAMPLING_EXTRA,
    "5x2cv_f": (("df1", lambda f: f.math("df<sub>1</sub>", "df_1"), lambda p, f: f.df(p.extra.get("df1"))),
                ("df2", lambda f: f.math("df<sub>2</sub>", "df_2"), lambda p, f: f.df(p.extra.get("df2")))),
}
PAIRWISE_NOTES = {
    "wilcoxon": ("T = min(R+, R\u2212); crit is the critical T when p is exact, the critical z under the normal "
                 "approximation; the estimate is the Hodges-Lehmann pseudo-median of the differences; "
                 "effect size is the rank-biserial correlation (R+ \u2212 R\u2212)/(R+ + R\u2212).",),
    "sign": ("W, L, T: items where a wins, loses, ties (ties split evenly between wins and losses, one dropped "
             "when odd, as Dem\u0161ar 2006).",),
    "bootstrap": ("Paired bootstrap over items (the same resampled items for every system); two-sided "
                  "p = (#{|\u0394* \u2212 \u0394| \u2265 |\u0394|} + 1)/(B + 1) (null-shifted); MC s.e. is the "
                  "Monte Carlo standard error of p.",),
    "permutation": ("Approximate randomization: the two systems' outputs are swapped per item at random; "
                    "p = (#{|\u0394perm| \u2265 |\u0394|} + 1)/(B + 1), exact enumeration when 2^n \u2264 B.",),
    "resampled_t": ("The resampled paired t test's type I error is badly inflated (Dietterich 1998; Nadeau and "
                    "Bengio 2003); prefer corrected_resampled_t.",),
}


def pair_sentence(r: Any, p: Any, f: Fmt, lab: Labels) -> str:
    """The plain-language line: 'A > B on ROUGE-1 recall: t(2) = 6.38, p = 0.024, significant ...'."""
    metric = lab.metric(r.metric)
    if p.statistic is None and p.pvalue is None:
        return f"{p.a} vs {p.b} on {metric}: not computable ({'; '.join(p.warnings) or 'see warnings'})."
    rel = ">" if (p.estimate or 0) > 0 else ("<" if (p.estimate or 0) < 0 else "=")
    stat = method_stat_text(r.method, p)
    p_part = f.p_text(p.pvalue)
    corr = CORRECTION_NAMES.get(r.correction, r.correction)
    if r.correction != "none" and p.pvalue_adjusted is not None:
        p_part += f", {corr}-adjusted {f.p_text(p.pvalue_adjusted)}"
    after = f" after {corr}" if r.correction != "none" else ""
    if p.significant:
        return f"{p.a} {rel} {p.b} on {metric}: {stat}, {p_part}, significant at \u03b1 = {r.alpha:g}{after}."
    return (f"{p.a} vs {p.b} on {metric}: {stat}, {p_part}, not significant at \u03b1 = {r.alpha:g}{after} "
            f"(the estimated difference {rel_word(rel)}).")


def rel_word(rel: str) -> str:
    return {">": "favours a", "<": "favours b", "=": "zero"}[rel]


def method_stat_text(method: str, p: Any) -> str:
    s = p.statistic
    if s is None:
        return "statistic not computable"
    if p.df is not None and method in ("paired_t", "5x2cv_t", "kfold_t", "corrected_resampled_t", "resampled_t"):
        return f"t({p.df:g}) = {s:.2f}"
    if method == "5x2cv_f":
        return f"F({p.extra.get('df1', 10):g}, {p.extra.get('df2', 5):g}) = {s:.2f}"
    if method == "wilcoxon":
        z = p.extra.get("z")
        return f"T = {s:g}" + (f", z = {z:.2f}" if z is not None else " (exact)")
    if method == "sign":
        return f"{p.extra.get('wins')} wins, {p.extra.get('losses')} losses, {p.extra.get('ties')} ties"
    if method in ("bootstrap", "permutation"):
        return f"\u0394 = {s:.4g} (B = {p.extra.get('n_resamples')})"
    return f"statistic = {s:.3g}"


def omnibus_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    sph = r.sphericity
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: repeated-measures ANOVA over {r.k} systems and "
               f"{r.n} items, with sphericity corrections (applied: "
               f"{SPHERICITY_NAMES.get(r.correction_applied or '', r.correction_applied or 'none')}).")
    cols = (Column("Correction", "l"), Column(f.math("\u03b5", r"\varepsilon")), Column(f.math("df<sub>1</sub>", "df_1")),
            Column(f.math("df<sub>2</sub>", "df_2")), Column("F"), Column("p"), Column("Applied", "c"))
    eps = {"none": 1.0, "greenhouse_geisser": sph.epsilon_gg, "huynh_feldt": sph.epsilon_hf,
           "lower_bound": sph.epsilon_lb}
    rows = []
    bold = []
    for i, (name, c) in enumerate(r.corrections.items()):
        applied = name == r.correction_applied
        if applied:
            bold.append(i)
        rows.append((SPHERICITY_NAMES.get(name, name), f.num(eps.get(name), 3), f.df(c.df1), f.df(c.df2),
                     f.stat(r.statistic), f.p(c.pvalue), "\u2713" if applied and f.target == "html"
                     else (Safe(r"$\checkmark$") if applied else "")))
    anova = Table(slug(r.metric, r.corpus, "omnibus"), caption, label(r.metric, r.corpus, "omnibus"),
                  cols, tuple(rows), (f"Partial eta squared = {_plain(r.effect_size.value if r.effect_size else None)}.",),
                  tuple(bold))
    m_cols = (Column("Mauchly's W"), Column(f.math("\u03c7<sup>2</sup>", r"\chi^2")), Column("df"), Column("p"),
              Column(f.math("\u03b5<sub>GG</sub>", r"\varepsilon_{GG}")),
              Column(f.math("\u03b5<sub>HF</sub>", r"\varepsilon_{HF}")),
              Column(f.math("\u03b5<sub>LB</sub>", r"\varepsilon_{LB}")))
    m_row = (f.num(sph.mauchly_w, 4), f.stat(sph.chi2), f.df(sph.df), f.p(sph.pvalue), f.num(sph.epsilon_gg, 3),
             f.num(sph.epsilon_hf, 3), f.num(sph.epsilon_lb, 3))
    mauchly = Table(slug(r.metric, r.corpus, "sphericity"),
                    f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: Mauchly's test of sphericity and the "
                    "Greenhouse-Geisser, Huynh-Feldt and lower-bound epsilons.",
                    label(r.metric, r.corpus, "sphericity"), m_cols, (m_row,))
    if r.statistic is None:
        sentence = f"Repeated-measures ANOVA on {lab.metric(r.metric)}: not computable ({'; '.join(r.warnings)})."
    else:
        c = r.corrections.get(r.correction_applied or "none")
        verdict = "significant" if r.significant else "not significant"
        sentence = (f"Repeated-measures ANOVA on {lab.metric(r.metric)}: F({f.df(c.df1)}, {f.df(c.df2)}) = "
                    f"{r.statistic:.2f}, {f.p_text(r.pvalue_corrected)} "
                    f"({SPHERICITY_NAMES.get(r.correction_applied, r.correction_applied)}), {verdict} at "
                    f"\u03b1 = {lab.spec.alpha:g}.")
    return AnalysisView(r.id, r.kind, "Omnibus test: repeated-measures ANOVA", (anova, mauchly), (sentence,),
                        (f"Why this correction: {r.correction_reason}",), tuple(r.warnings))


def _plain(x: float | None, default: str = "not computable") -> str:
    return default if x is None else f"{x:.3f}"


def omnibus_any_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    return friedman_view(r, f, lab) if r.method == "friedman" else omnibus_view(r, f, lab)


def _ranks_table(f: Fmt, key: str, caption: str, ranks: Mapping[str, float | None]) -> Table:
    order = sorted(ranks, key=lambda s: (ranks[s] is None, ranks[s] or 0))
    return Table(slug(key), caption, label(key), (Column("System", "l"), Column("Average rank")),
                 tuple((s, f.num(ranks[s], 3)) for s in order))


def friedman_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    where = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}"
    over = "corpora" if r.level == "corpora" else "items"
    variant = "tie-corrected" if r.tie_correction else "uncorrected (Dem\u0161ar's formula)"
    ranks = _ranks_table(f, f"{r.metric}--{r.corpus}--ranks", f"{where}: average ranks of {r.k} systems over "
                         f"{r.n} {over} (1 = best).", r.average_ranks)
    idv = r.iman_davenport
    cols = (Column("Statistic", "l"), Column("Value"), Column("df"), Column("p"))
    rows = (
        (f"Friedman \u03c7\u00b2_F ({variant})", f.stat(r.statistic), f.df(r.df), f.p(r.pvalue)),
        ("Iman-Davenport F_F (from the \u03c7\u00b2_F above)", f.stat(idv.statistic),
         f.join(f.df(idv.df1), ", ", f.df(idv.df2)), f.p(idv.pvalue)),
        ("Friedman \u03c7\u00b2_F, uncorrected" if r.tie_correction else "Friedman \u03c7\u00b2_F, tie-corrected",
         f.stat(r.statistic_uncorrected if r.tie_correction else r.statistic_tie_corrected), f.df(r.df), ""),
        ("Kendall's W", f.num(r.kendall_w, 3), "", ""),
    )
    table = Table(slug(r.metric, r.corpus, "omnibus"), f"{where}: Friedman test (Dem\u0161ar 2006); the "
                  f"{variant} \u03c7\u00b2_F feeds the Iman-Davenport F.", label(r.metric, r.corpus, "omnibus"),
                  cols, rows)
    if r.statistic is None:
        sentence = f"Friedman test on {lab.metric(r.metric)}: not computable ({'; '.join(r.warnings)})."
    else:
        verdict = "significant" if r.significant else "not significant"
        sentence = (f"Friedman test on {lab.metric(r.metric)}: \u03c7\u00b2_F({f.df(r.df)}) = {r.statistic:.2f}, "
                    f"{f.p_text(r.pvalue)} ({variant}), {verdict} at \u03b1 = {lab.spec.alpha:g}"
                    + (f"; Iman-Davenport F({f.df(idv.df1)}, {f.df(idv.df2)}) = {idv.statistic:.2f}, "
                       f"{f.p_text(idv.pvalue)}." if idv.statistic is not None else "."))
    return AnalysisView(r.id, r.kind, "Omnibus test: Friedman", (ranks, table), (sentence,),
                        why_this_test(r.selection), tuple(r.warnings))


def posthoc_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    if not hasattr(r, "critical_difference"):
        return pairwise_view(r, f, lab)
    where = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}"
    name = POSTHOC_NAMES.get(r.method, r.method)
    cols = (Column("a vs b", "l"), Column("Rank diff."), Column("z"), Column("p"),
            Column(f.math("p<sub>adj</sub>", r"p_{\text{adj}}")), Column("Significant", "c"))
    rows, bold = [], []
    for i, p in enumerate(r.pairs):
        rows.append((f"{p.a} vs {p.b}", f.num(p.rank_difference, 3), f.stat(p.statistic), f.p(p.pvalue),
                     f.p(p.pvalue_adjusted), "yes" if p.significant else "no"))
        if p.significant:
            bold.append(i)
    cd = ""
    if r.critical_difference is not None:
        cd = f"; critical difference CD = {r.critical_difference:.3f} (q_\u03b1 = {r.q_alpha:.3f})"
    ctrl = f" against the control {r.control}" if r.control else ""
    caption = f"{where}: {name}{ctrl} on average ranks after the {r.after} test (\u03b1 = {r.alpha:g}{cd})."
    notes = ["z = (R_a \u2212 R_b)/\u221a(k(k+1)/(6N)); a pair differs significantly when its average ranks "
             "differ by at least the critical difference (Dem\u0161ar 2006)."]
    if r.omnibus_significant is False:
        notes.append("The omnibus test did not reject: these post-hoc comparisons are shown for completeness "
                     "and should not be read as evidence of differences.")
    table = Table(slug(r.metric, r.corpus, "posthoc"), caption, label(r.metric, r.corpus, "posthoc"), cols,
                  tuple(rows), tuple(notes), tuple(bold))
    sentences = [f"{p.a} vs {p.b}: average ranks differ by {abs(p.rank_difference or 0):.3f}"
                 + (f" \u2265 CD {r.critical_difference:.3f}" if p.significant and r.critical_difference
                    else f" < CD {r.critical_difference:.3f}" if r.critical_difference else "")
                 + f", {'significant' if p.significant else 'not significant'} ({name})." for p in r.pairs]
    return AnalysisView(r.id, r.kind, f"Post-hoc: {name}", (table,), tuple(sentences), why_this_test(r.selection),
                        tuple(r.warnings))


VIEWS: dict[str, Callable[[Any, Fmt, Labels], AnalysisView]] = {
    "descriptives": descriptives_view,
    "pairwise": pairwise_view,
    "cv": pairwise_view,
    "omnibus": omnibus_any_view,
    "posthoc": posthoc_view,
}


def sections(spec: Spec, results: Mapping[str, Any], target: Target,
             metric_specs: Mapping[str, Any] | None = None) -> list[Section]:
    """Group analysis views by metric and corpus, in plan order."""
    f = Fmt(target)
    lab = Labels(spec, metric_specs)
    from sigreport.render.views_labels import VIEWS as LABEL_VIEWS

    views = {**VIEWS, **LABEL_VIEWS}
    groups: dict[tuple[Any, Any], list[AnalysisView]] = {}
    for r in results.values():
        groups.setdefault(section_key(r), []).append(views[r.kind](r, f, lab))
    out = []
    for (metric, corpus), group in groups.items():
        title = f"{lab.metric(metric)} \u2014 {lab.corpus(corpus)}"
        out.append(Section(title, "s-" + slug(metric, corpus), tuple(group)))
    return out


def section_key(r: Any) -> tuple[Any, Any]:
    """Results group into sections by (metric, corpus); label analyses name their own section in ``metric``."""
    return (r.metric, r.corpus)


def settings_rows(spec: Spec, data_info: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every statistical choice, as written in the spec or taken by default, for the report header."""
    t = spec.tests
    pair = f"{PAIRWISE_NAMES.get(t.pairwise, t.pairwise)} ({t.pairwise})"
    if t.pairwise in ("wilcoxon", "auto"):
        pair += f"; Wilcoxon zero differences: {t.zero_method}; differences rounded to each metric's precision"
    if t.pairwise in ("bootstrap", "permutation", "auto") or any(m.corpus_level for m in spec.metrics.values()):
        pair += f"; B = {t.resamples} resamples, {t.ci_method} intervals, p = (count + 1)/(B + 1)"
    if t.pairwise == "auto":
        pair += ("; auto: paired t when n \u2265 30 or every pair's differences pass Shapiro-Wilk at \u03b1, "
                 "otherwise Wilcoxon; bootstrap for corpus-level metrics")
    unit = ({"items": "items (per metric and corpus)",
             "corpora": "corpora: one score per system and corpus, analysed across corpora"}[t.level]
            if t.design == "items" else f"cross-validation design {t.design}")
    rows = [
        ("Significance level \u03b1", f"{spec.alpha:g}"),
        ("Unit of analysis", unit),
        ("Pairwise test", pair),
        ("Comparisons", "every pair of systems" if t.comparisons == "all_pairs"
         else f"every system against the baseline {spec.baseline}"),
        ("Alternative", ALTERNATIVE_TEXT[t.alternative] + " (a is the system listed first in a pair)"),
        ("Multiple-comparison correction", f"{CORRECTION_NAMES[t.correction]} ({t.correction}), family: all "
                                           "comparisons of one metric on one corpus"),
    ]
    om = {"rm_anova": "repeated-measures ANOVA (three or more systems)", "none": "none",
          "friedman": "Friedman test (three or more systems)",
          "auto": "auto: RM-ANOVA when n \u2265 30 or the residuals pass Shapiro-Wilk at \u03b1, otherwise "
                  "Friedman"}[t.omnibus]
    rows.append(("Omnibus test", om))
    if t.omnibus in ("rm_anova", "auto"):
        rows.append(("Sphericity", {"auto": "auto: if Mauchly's test rejects at \u03b1, Huynh-Feldt when the "
                                            "Greenhouse-Geisser epsilon exceeds 0.75, otherwise Greenhouse-Geisser",
                                    "none": "none (sphericity assumed)"}.get(t.sphericity,
                                                                             SPHERICITY_NAMES.get(t.sphericity, ""))))
    if t.omnibus in ("friedman", "auto"):
        rows.append(("Friedman chi-square", "tie-corrected (as R's friedman.test); it feeds the Iman-Davenport F"
                     if t.tie_correction else "uncorrected (Dem\u0161ar 2006); it feeds the Iman-Davenport F"))
    if t.omnibus != "none":
        rows.append(("Post-hoc test", {"auto": "auto: paired t tests with the correction after RM-ANOVA; Nemenyi "
                                               "(all pairs) or Bonferroni-Dunn (against the baseline) after Friedman",
                                       "none": "none"}.get(t.posthoc, POSTHOC_NAMES.get(t.posthoc, t.posthoc))))
    if t.pairwise == "auto" or t.omnibus == "auto":
        rows.append(("Selection", "fixed: the previous report's choices are kept" if t.selection == "fixed"
                     else "auto: chosen from this data; changes since the previous report are flagged"))
    if t.design != "items":
        methods = t.cv_methods or {"5x2cv": ["5x2cv_t", "5x2cv_f"], "kfold": ["kfold_t"],
                                   "resampled": ["corrected_resampled_t"]}[t.design]
        rows.append(("Cross-validation tests", ", ".join(PAIRWISE_NAMES[m] for m in methods)
                     + (f"; n_train = {t.n_train}, n_test = {t.n_test}" if t.n_train else "")))
    if spec.data.scores is not None:
        rows.append(("Missing items", spec.data.missing))
    rows.append(("Seed", f"{spec.seed} (each analysis derives its own stream from it and its id)"))
    if data_info.get("scores"):
        rows.append(("Data", f"{data_info['scores']} ({data_info['rows']} rows, "
                             f"sha256 {data_info['sha256'][:12]}\u2026)"))
    rows += label_settings_rows(spec)
    return rows


def label_settings_rows(spec: Spec) -> list[tuple[str, str]]:
    """Settings of the classification and agreement analyses, when the labels views define them."""
    from sigreport.render import views_labels

    rows = getattr(views_labels, "settings_rows", None)
    return rows(spec) if rows else []
