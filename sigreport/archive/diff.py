"""The diff of two releases' conclusions, from their results.json documents (and manifests, for the cause).

Analyses are matched by their stable ids. A conclusion changed when a decision flipped (a pair or an
omnibus test significant in one release and not in the other, or significant in both with the direction
reversed), or when the best system or the rank order of the systems both releases share changed. Other
differences (analyses, pairs, systems, corpora or metrics added or removed; automatic test choices that
changed) are listed too, and the manifests say whether the data, the spec or the software changed, so the
reader knows the cause. Nothing here computes a statistic: every number is read from the documents.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Mapping
from typing import Any, Literal

from sigreport.errors import Problem, UserError
from sigreport.results.decisions import BlockDecisions, Decisions, analysis_key, decide_document, rank_systems

FailOn = Literal["conclusions", "flips", "any"]


@dataclasses.dataclass(frozen=True)
class DecisionFlip:
    """A pairwise decision (pairwise, post-hoc or McNemar pair) that flipped."""

    analysis: str
    a: str
    b: str
    old_significant: bool | None
    new_significant: bool | None
    old_pvalue: float | None
    new_pvalue: float | None
    old_estimate: float | None
    new_estimate: float | None
    reason: str  # "significance" or "direction"
    primary: bool = False  # the analysis is the test the new report's conclusions follow for its block


@dataclasses.dataclass(frozen=True)
class OmnibusFlip:
    analysis: str
    old_method: str | None
    new_method: str | None
    old_significant: bool | None
    new_significant: bool | None
    old_pvalue: float | None
    new_pvalue: float | None


@dataclasses.dataclass(frozen=True)
class RankChange:
    """The best system or the order of the shared systems changed (descriptives: means in the metric's
    direction; omnibus/post-hoc: average ranks, 1 = best)."""

    analysis: str
    source: str  # "means" or "average ranks"
    old_order: tuple[str, ...]
    new_order: tuple[str, ...]
    old_best: str | None
    new_best: str | None
    old_best_tied: tuple[str, ...] = ()  # every system sharing the best value as shown (decisions: ties)
    new_best_tied: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class ChoiceChange:
    """The test of an analysis changed: the automatic choice (``selection``) or the spec."""

    analysis: str
    old_method: str | None
    new_method: str | None
    old_reason: str | None
    new_reason: str | None


@dataclasses.dataclass(frozen=True)
class PairsChange:
    analysis: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SetChange:
    """Systems, corpora or metrics added or removed."""

    what: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Cause:
    """Whether data, spec or software changed between the releases (None: unknown, no manifest)."""

    data: bool | None
    spec: bool | None
    software: bool | None
    data_files: tuple[str, ...]
    software_changes: tuple[tuple[str, str | None, str | None], ...]


@dataclasses.dataclass(frozen=True)
class Diff:
    old: str
    new: str
    analyses_added: tuple[str, ...]
    analyses_removed: tuple[str, ...]
    flips: tuple[DecisionFlip, ...]
    omnibus_flips: tuple[OmnibusFlip, ...]
    rank_changes: tuple[RankChange, ...]
    choice_changes: tuple[ChoiceChange, ...]
    pairs_changes: tuple[PairsChange, ...]
    set_changes: tuple[SetChange, ...]
    cause: Cause

    @property
    def decisions_flipped(self) -> bool:
        return bool(self.flips or self.omnibus_flips)

    @property
    def conclusions_changed(self) -> bool:
        return self.decisions_flipped or bool(self.rank_changes)

    @property
    def anything_changed(self) -> bool:
        return self.conclusions_changed or bool(self.analyses_added or self.analyses_removed or self.choice_changes
                                                or self.pairs_changes or self.set_changes)

    def exit_code(self, fail_on: FailOn = "conclusions") -> int:
        """0 or 1 for the CLI: conclusions (default) fails on flips and best/rank changes, ``flips`` only on
        flipped decisions, ``any`` on any listed difference of the results (not on the cause alone)."""
        changed = {"conclusions": self.conclusions_changed, "flips": self.decisions_flipped,
                   "any": self.anything_changed}[fail_on]
        return 1 if changed else 0


# ---- comparing ---------------------------------------------------------------------------------------


def check_schema(old_doc: Mapping[str, Any], new_doc: Mapping[str, Any], source: str = "diff") -> None:
    """Refuse to match analyses across results.json schema versions (their fields may mean other things)."""
    ov, nv = old_doc.get("schema_version"), new_doc.get("schema_version")
    if ov != nv:
        raise UserError(source, [Problem(source, None, "schema_version",
                                         f"results.json schema_version {ov} vs {nv}: analyses cannot be matched "
                                         "across schema versions; still comparable: the systems, corpora and metrics "
                                         "lists and the manifests (data, spec, software)")])


def diff_results(old_doc: Mapping[str, Any], new_doc: Mapping[str, Any], old_manifest: Mapping[str, Any] | None = None,
                 new_manifest: Mapping[str, Any] | None = None, old_label: str = "old",
                 new_label: str = "new") -> Diff:
    """Everything that differs between two results.json documents of the same schema version."""
    check_schema(old_doc, new_doc)
    old_a, new_a = by_id(old_doc), by_id(new_doc)
    common = [i for i in new_a if i in old_a]
    old_dec, new_dec = decide_document(old_doc), decide_document(new_doc)  # the reports' own decisions
    primary = {b.primary.id for b in new_dec if b.primary is not None}
    flips, omni, ranks, choices, pairs = [], [], [], [], []
    for aid in common:
        o, n = old_a[aid], new_a[aid]
        f, pc = pair_flips(aid, o, n)
        flips += [dataclasses.replace(x, primary=aid in primary) for x in f]
        pairs += [pc] if pc else []
        omni += [x for x in [omnibus_flip(aid, o, n)] if x]
        ranks += [x for x in [rank_change(aid, o, n, old_dec, new_dec)] if x]
        choices += [x for x in [choice_change(aid, o, n)] if x]
    return Diff(old_label, new_label, tuple(i for i in new_a if i not in old_a), tuple(i for i in old_a if i not in new_a),
                tuple(flips), tuple(omni), tuple(ranks), tuple(choices), tuple(pairs),
                tuple(set_changes(old_doc, new_doc)), cause(old_doc, new_doc, old_manifest, new_manifest))


def descriptives_key(a: dict[str, Any]) -> tuple[str, str | None]:
    """(metric, corpus) of an analysis: its fields when present, else from its id '<metric>/<corpus>/...'."""
    parts = str(a.get("id", "")).split("/")
    metric = a.get("metric") or (parts[0] if parts else "")
    corpus = a.get("corpus") if "corpus" in a else (parts[1] if len(parts) > 2 else None)
    return str(metric), corpus


def by_id(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(a["id"]): a for a in doc.get("analyses") or [] if isinstance(a, dict) and "id" in a}


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _pvalue(d: Mapping[str, Any]) -> float | None:
    """The p-value the decision was taken on: adjusted (pairs) or corrected (omnibus) when present."""
    for key in ("pvalue_adjusted", "pvalue_corrected", "pvalue"):
        if _num(d.get(key)) is not None:
            return _num(d.get(key))
    return None


def _pairs(a: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(p.get("a")), str(p.get("b"))): p for p in a.get("pairs") or [] if isinstance(p, dict)}


def pair_flips(aid: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[list[DecisionFlip], PairsChange | None]:
    """Flipped decisions of the pairs both analyses hold (a pair listed the other way round has its
    estimate negated), and the pairs only one of them holds."""
    op, np_ = _pairs(old), _pairs(new)
    if not op and not np_:
        return [], None
    flips, matched = [], set()
    for key, n in np_.items():
        o, sign = op.get(key), 1.0
        if o is None and (key[1], key[0]) in op:
            o, sign = op[(key[1], key[0])], -1.0
        if o is None:
            continue
        matched.add(key if sign > 0 else (key[1], key[0]))
        oe = _num(o.get("estimate"))
        oe = oe * sign if oe is not None else None
        ne = _num(n.get("estimate"))
        os_, ns = o.get("significant"), n.get("significant")
        reason = None
        if isinstance(os_, bool) and isinstance(ns, bool) and os_ != ns:
            reason = "significance"
        elif os_ is True and ns is True and oe is not None and ne is not None and oe * ne < 0:
            reason = "direction"
        if reason:
            flips.append(DecisionFlip(aid, key[0], key[1], os_, ns, _pvalue(o), _pvalue(n), oe, ne, reason))
    added = tuple(f"{a} vs {b}" for (a, b) in np_ if (a, b) not in op and (b, a) not in op)
    removed = tuple(f"{a} vs {b}" for (a, b) in op if (a, b) not in matched)
    return flips, (PairsChange(aid, added, removed) if added or removed else None)


def omnibus_flip(aid: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> OmnibusFlip | None:
    """An analysis with one decision of its own (omnibus tests, Cochran's Q) that flipped."""
    os_, ns = old.get("significant"), new.get("significant")
    if isinstance(os_, bool) and isinstance(ns, bool) and os_ != ns:
        return OmnibusFlip(aid, old.get("method"), new.get("method"), os_, ns, _pvalue(old), _pvalue(new))
    return None


RANK_DECIMALS = 3  # average ranks as the report shows them


def rank_change(aid: str, old: Mapping[str, Any], new: Mapping[str, Any], old_dec: Decisions,
                new_dec: Decisions) -> RankChange | None:
    """The best system or the order of the shared systems changed: by the reports' decisions (values as shown,
    ties shared, :func:`~sigreport.results.decisions.rank_systems`) for descriptives; by average ranks as shown
    (1 = best) for a Friedman test."""
    if old.get("kind") == "descriptives":
        ob_, nb_ = _block(old_dec, old), _block(new_dec, new)
        if ob_ is None or nb_ is None:
            return None
        ot, nt, source = ob_.tiers, nb_.tiers, "means"
    elif isinstance(old.get("average_ranks"), dict) and isinstance(new.get("average_ranks"), dict) \
            and old.get("kind") == "omnibus":
        ot, nt, source = rank_tiers(old["average_ranks"]), rank_tiers(new["average_ranks"]), "average ranks"
    else:
        return None
    shared = {s for t in ot for s in t} & {s for t in nt for s in t}
    best_o, best_n = (ot[0] if ot else ()), (nt[0] if nt else ())
    if best_o == best_n and restricted(ot, shared) == restricted(nt, shared):
        return None
    oo, no = tuple(s for t in ot for s in t), tuple(s for t in nt for s in t)
    return RankChange(aid, source, oo, no, best_o[0] if best_o else None, best_n[0] if best_n else None,
                      tuple(best_o), tuple(best_n))


def _block(decisions: Decisions, a: Mapping[str, Any]) -> BlockDecisions | None:
    metric, corpus = analysis_key(a)
    return decisions.get(metric, corpus)


def restricted(tiers: tuple[tuple[str, ...], ...], keep: set[str]) -> list[tuple[str, ...]]:
    """The tiers of an order with only the systems in ``keep`` (empty tiers dropped)."""
    return [t for t in (tuple(s for s in tier if s in keep) for tier in tiers) if t]


def rank_tiers(ranks: Mapping[str, Any]) -> tuple[tuple[str, ...], ...]:
    """Systems by average rank as shown (1 = best), ties shared."""
    return rank_systems({str(s): _num(r) for s, r in ranks.items()}, False, RANK_DECIMALS)


def choice_change(aid: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> ChoiceChange | None:
    """The test changed: by the automatic choice (``selection.method``, with its ``reason``) or by the spec."""
    osel, nsel = old.get("selection") or {}, new.get("selection") or {}
    om = osel.get("method") if isinstance(osel, dict) and osel else old.get("method")
    nm = nsel.get("method") if isinstance(nsel, dict) and nsel else new.get("method")
    if old.get("method") == new.get("method") and om == nm:
        return None
    reason = (lambda sel: (sel.get("reason") if isinstance(sel, dict) and sel else "set in the spec"))
    return ChoiceChange(aid, old.get("method"), new.get("method"), reason(osel), reason(nsel))


def _names(v: Any) -> list[str]:
    return [str(x) for x in (v.keys() if isinstance(v, dict) else v or [])]


def set_changes(old_doc: Mapping[str, Any], new_doc: Mapping[str, Any]) -> list[SetChange]:
    out = []
    for what in ("systems", "corpora", "metrics"):
        o, n = _names(old_doc.get(what)), _names(new_doc.get(what))
        added, removed = tuple(x for x in n if x not in o), tuple(x for x in o if x not in n)
        if added or removed:
            out.append(SetChange(what, added, removed))
    return out


def cause(old_doc: Mapping[str, Any], new_doc: Mapping[str, Any], old_m: Mapping[str, Any] | None,
          new_m: Mapping[str, Any] | None) -> Cause:
    """From the manifests when both exist; otherwise what results.json says (data hash, sigreport version)."""
    if old_m is None or new_m is None:
        data = (old_doc.get("data") or {}) != (new_doc.get("data") or {})
        ov, nv = old_doc.get("sigreport_version"), new_doc.get("sigreport_version")
        soft = ((("sigreport", ov, nv),) if ov != nv else ())
        return Cause(data, None, bool(soft) or None, (), soft)
    oi = {(f.get("role"), f.get("name")): f.get("sha256") for f in old_m.get("inputs") or []}
    ni = {(f.get("role"), f.get("name")): f.get("sha256") for f in new_m.get("inputs") or []}
    files = tuple(sorted(str(k[1]) for k in set(oi) | set(ni) if oi.get(k) != ni.get(k)))
    return Cause(bool(files), (old_m.get("spec") or {}).get("sha256") != (new_m.get("spec") or {}).get("sha256"),
                 bool(soft := software_changes(old_m, new_m)), files, soft)


def software_changes(old_m: Mapping[str, Any], new_m: Mapping[str, Any]) -> tuple[tuple[str, str | None, str | None], ...]:
    def versions(m: Mapping[str, Any]) -> dict[str, Any]:
        return {"sigreport": m.get("sigreport_version"), "python": m.get("python_version"), **(m.get("libraries") or {})}

    o, n = versions(old_m), versions(new_m)
    return tuple((k, o.get(k), n.get(k)) for k in sorted(set(o) | set(n)) if o.get(k) != n.get(k))


# ---- rendering ---------------------------------------------------------------------------------------


def _p(v: float | None) -> str:
    return "–" if v is None else (f"{v:.3g}" if v >= 0.001 else f"{v:.2e}")


def _e(v: float | None) -> str:
    return "–" if v is None else f"{v:.4g}"


def _sig(v: bool | None) -> str:
    return {True: "significant", False: "not significant"}.get(v, "undecided")  # type: ignore[arg-type]


def lines(d: Diff) -> list[tuple[str, list[str]]]:
    """The diff as (section heading, items), the one source of the text, markdown and HTML outputs."""
    sections = []
    c = d.cause
    def yn(v: bool | None) -> str:
        return "unknown (no manifest)" if v is None else ("changed" if v else "unchanged")
    cause_items = [f"data: {yn(c.data)}" + (f" ({', '.join(c.data_files)})" if c.data_files else ""),
                   f"spec: {yn(c.spec)}",
                   f"software: {yn(c.software)}" + (" (" + ", ".join(f"{k} {o} -> {n}" for k, o, n in
                                                                     c.software_changes) + ")" if c.software_changes else "")]
    sections.append(("Cause", cause_items))
    sections.append(("Pairwise decisions flipped", [
        f"{f.analysis}: {f.a} vs {f.b}: " + (f"{_sig(f.old_significant)} -> {_sig(f.new_significant)}"
                                              if f.reason == "significance" else "direction reversed")
        + f" (p {_p(f.old_pvalue)} -> {_p(f.new_pvalue)}, estimate {_e(f.old_estimate)} -> {_e(f.new_estimate)})"
        + ("; the test the conclusions follow" if f.primary else "")
        for f in d.flips]))
    sections.append(("Omnibus decisions flipped", [
        f"{o.analysis} ({o.old_method} -> {o.new_method}): {_sig(o.old_significant)} -> {_sig(o.new_significant)} "
        f"(p {_p(o.old_pvalue)} -> {_p(o.new_pvalue)})" for o in d.omnibus_flips]))
    sections.append(("Best system or rank order changed", [
        f"{r.analysis} ({r.source}): best {_best(r.old_best_tied, r.old_best)} -> {_best(r.new_best_tied, r.new_best)}; "
        f"order {' > '.join(r.old_order)} -> {' > '.join(r.new_order)}" for r in d.rank_changes]))
    sections.append(("Test choices changed", [
        f"{ch.analysis}: {ch.old_method} -> {ch.new_method} (before: {ch.old_reason}; now: {ch.new_reason})"
        for ch in d.choice_changes]))
    sections.append(("Analyses added", list(d.analyses_added)))
    sections.append(("Analyses removed", list(d.analyses_removed)))
    sections.append(("Pairs added or removed", [
        f"{pc.analysis}:" + (f" added {', '.join(pc.added)}" if pc.added else "")
        + (f" removed {', '.join(pc.removed)}" if pc.removed else "") for pc in d.pairs_changes]))
    sections.append(("Systems, corpora, metrics", [
        f"{s.what}:" + (f" added {', '.join(s.added)}" if s.added else "")
        + (f" removed {', '.join(s.removed)}" if s.removed else "") for s in d.set_changes]))
    return sections


def _best(tied: tuple[str, ...], best: str | None) -> str:
    return " = ".join(tied) + " (tied)" if len(tied) > 1 else str(best)


def summary(d: Diff) -> str:
    n = len(d.flips) + len(d.omnibus_flips) + len(d.rank_changes)
    return (f"{n} conclusion{'s' if n != 1 else ''} changed" if n else "no conclusion changed") + \
        f" between {d.old} and {d.new}"


def render_text(d: Diff) -> str:
    out = [summary(d)]
    for head, items in lines(d):
        if items:
            out.append(f"{head}:")
            out += [f"  {_clean(i)}" for i in items]
    return "\n".join(out) + "\n"


def _clean(s: str) -> str:
    """Names come from user data: no control character may reach a terminal."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in s)


def render_markdown(d: Diff) -> str:
    out = [f"# {_md(summary(d))}", ""]
    for head, items in lines(d):
        if items:
            out += [f"## {head}", ""] + [f"- {_md(i)}" for i in items] + [""]
    return "\n".join(out)


def _md(s: str) -> str:
    s = _clean(s)
    for ch in "\\`*_[]<|#":
        s = s.replace(ch, "\\" + ch)
    return s


def render_html(d: Diff) -> str:
    """A self-contained page (inline style, no link, script or image), every value escaped."""
    e = html.escape
    parts = []
    for head, items in lines(d):
        body = "".join(f"<li>{e(_clean(i))}</li>" for i in items) or "<li class=muted>none</li>"
        parts.append(f"<h2>{e(head)}</h2><ul>{body}</ul>")
    style = ("body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}"
             "li{margin:.2rem 0}.muted{color:#666}")
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>{e(_clean(summary(d)))}</title>"
            f"<style>{style}</style></head><body><h1>{e(_clean(summary(d)))}</h1>\n" + "\n".join(parts)
            + "\n</body></html>\n")


def to_json(d: Diff) -> dict[str, Any]:
    doc = dataclasses.asdict(d)
    doc.update(conclusions_changed=d.conclusions_changed, decisions_flipped=d.decisions_flipped,
               anything_changed=d.anything_changed, format="sigreport-diff", diff_version=1)
    return doc


def render_json(d: Diff) -> str:
    return json.dumps(to_json(d), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


RENDERERS = {"text": render_text, "markdown": render_markdown, "html": render_html, "json": render_json}


def render(d: Diff, fmt: str) -> str:
    return RENDERERS[fmt](d)
