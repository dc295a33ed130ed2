"""The diff of two releases as a release note, from their results.json documents (and manifests, for the cause).

Analyses are matched by their stable ids. A conclusion changed when a decision flipped (a pair or an
omnibus test significant in one release and not in the other, or significant in both with the direction
reversed), or when the best system or the rank order of the systems both releases share changed. Each
changed conclusion gets its causes in words (:func:`causes_of`): the data of one of its systems changed,
other systems of its correction family changed, the family changed size, the test, the correction or the
spec changed (the changed settings, and the YAML lines), or, when nothing else explains it, the software.

Per metric and corpus, every system's value in both releases and their difference, with the interval of
the difference (:func:`value_changes`). The rule for that interval: **paired** (a t interval of the mean
of the per-item differences, on the items both releases share) when both releases' item scores are given
(:class:`ItemScores`: the callers read them from the archive's store, :mod:`sigreport.archive.scores`, else
from the inputs the manifests name, where ``verify`` finds them, and only when their sha256 is the
manifest's); otherwise **unpaired** (Welch's t interval from each
release's mean, SD and number of items in results.json), which is wider than the paired one when a
system's scores on the same items are positively correlated across releases, and says so; none for a
corpus-level metric (no per-item mean). The interval's level is the new report's interval level. A system
whose data did not change (the same hash in both releases' store, else the same summary) gets no interval:
a difference of 0 with an interval around it is no news.

Other differences (analyses, pairs, systems, corpora or metrics added or removed; automatic test choices
that changed) are listed too. Nothing here runs a test on the systems: every decision is read from the
documents through the decision model (:func:`~sigreport.results.decisions.decide_document`).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Literal, Union

import numpy as np

from sigreport.archive.manifest import ManifestFacts, manifest_facts
from sigreport.errors import Problem, UserError
from sigreport.results.decisions import BlockDecisions, Decisions, decide_records, rank_systems
from sigreport.results.names import correction_name, test_name
from sigreport.results.reading import DEFAULT_DECIMALS, DocumentRecords, read_document
from sigreport.results.records import (AgreementPair, AgreementRecord, BayesianPair, BayesianRecord, CochranQRecord,
                                       DescriptivesRecord, FriedmanRecord, McNemarPair, McNemarRecord, PairRow,
                                       PairwiseRecord, PosthocRecord, PosthocRow, PreferenceRecord, Record,
                                       RMAnovaRecord, RunPair,
                                       RunsRecord, SystemSummary)

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
    source: str  # "means", "average ranks" or "tiers" (preference votes: the decision model's tiers)
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
    """Whether data, spec or software changed between the releases (None: unknown, no manifest).

    ``spec_settings``: the settings the spec changed (dotted path, old value, new value, as JSON text; the
    spec as validated, so a default written out is no change); ``spec_lines``: the changed YAML lines as a
    small unified diff."""

    data: bool | None
    spec: bool | None
    software: bool | None
    data_files: tuple[str, ...]
    software_changes: tuple[tuple[str, str | None, str | None], ...]
    spec_settings: tuple[tuple[str, str | None, str | None], ...] = ()
    spec_lines: tuple[str, ...] = ()
    spec_compared: bool = True  # False: a spec text this version cannot read; only its lines are compared


ItemValues = Union[Sequence[float], np.ndarray]  # a system's per-item values, in item order


@dataclasses.dataclass(frozen=True)
class ItemScores:
    """A release's per-item values of its item-level mean metrics, read from its inputs by the caller:
    (metric, corpus) -> (item names, system -> values in item order). ``missing``: why there are none (no
    manifest, an input not found or changed since the release, a user aggregate the diff does not run).
    ``hashes``: (metric, corpus, system) -> the hash of that system's scores and the block's items, as the
    archive's store keeps them (:mod:`sigreport.archive.scores`); two releases with the same hash have the
    same data for that system, even when the scores themselves are not at hand."""

    blocks: Mapping[tuple[str, str | None], tuple[tuple[str, ...], Mapping[str, ItemValues]]]
    missing: str | None = None
    hashes: Mapping[tuple[str, str | None, str], str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class ValueChange:
    """One system's value in both releases (None: not in that release) and the difference new - old, with
    its interval (``interval``: "paired" on ``n`` shared items, "unpaired" Welch, or "" none) and whether the
    interval excludes zero. ``old_best`` / ``new_best``: in the best tier of that release's decisions.
    ``data_changed``: whether the system's scores differ between the releases (by the store's hashes, else by
    its summary); a system whose data did not change gets no interval (its difference is no news)."""

    system: str
    old: float | None
    new: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    interval: str
    n: int | None
    significant: bool | None
    old_best: bool
    new_best: bool
    data_changed: bool | None = None


@dataclasses.dataclass(frozen=True)
class BlockChange:
    """Every system's values for one metric on one corpus (``corpus`` None: across corpora), with the
    interval rule that applied (``interval_note``: in words, e.g. why it is unpaired)."""

    metric: str
    corpus: str | None
    label: str
    higher_is_better: bool
    decimals: int
    ci_level: float
    rows: tuple[ValueChange, ...]
    interval_note: str

    @property
    def where(self) -> str:
        return where_text(self.label, self.corpus)


@dataclasses.dataclass(frozen=True)
class Change:
    """A conclusion that changed, told in words: ``kind`` decision (a pair), omnibus, best (the best system)
    or order (the order of the shared systems); ``subject`` ("B vs C", "best system"); ``old`` / ``new`` the
    two releases' statements; ``causes`` why, each a sentence; ``test`` the test's display name;
    ``primary``: the test the new report's conclusions follow; ``analysis`` its id (for scripts);
    ``data_changed``: the systems of the subject whose data changed (a pair's, or every system's of the block)."""

    kind: str
    metric: str
    corpus: str | None
    where: str
    test: str
    subject: str
    old: str
    new: str
    causes: tuple[str, ...]
    primary: bool
    analysis: str
    short: str
    data_changed: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Comparison:
    """A pair the test the conclusions follow compares in only one release (``status``: new or removed),
    with that release's decision."""

    metric: str
    corpus: str | None
    where: str
    test: str
    a: str
    b: str
    status: str
    significant: bool | None
    better: str | None
    pvalue: float | None
    estimate: float | None
    statement: str


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
    changes: tuple[Change, ...] = ()  # flips, omnibus flips and rank changes, in words with their causes
    blocks: tuple[BlockChange, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    names: tuple[tuple[str, str, str], ...] = ()  # (analysis id, kind, where: 'BLEU · news') of both releases

    def name_of(self, analysis: str) -> str:
        """An analysis as a reader knows it ('pairwise on BLEU · news'), not by its id."""
        found = next(((k, w) for i, k, w in self.names if i == analysis), None)
        return f"{found[0]} on {found[1]}" if found else analysis

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

    @property
    def n_conclusions(self) -> int:
        return len(self.flips) + len(self.omnibus_flips) + len(self.rank_changes)

    @property
    def headline(self) -> str:
        """One line: "3 conclusions changed since v1.2: B vs C on BLEU · news now significant; ..." (the
        first three, then how many more), or "no conclusion changed since v1.2" with what else changed."""
        n = self.n_conclusions
        if not n:
            rest = other_changes(self)
            return f"no conclusion changed since {self.old}" + (f" ({rest})" if rest else "")
        shown = [c.short for c in self.changes[:HEADLINE_ITEMS]]
        more = f"; and {n - len(shown)} more" if n > len(shown) else ""
        return f"{n} conclusion{'s' if n != 1 else ''} changed since {self.old}: {'; '.join(shown)}{more}"

    def counts(self) -> dict[str, int]:
        """How many of each kind of change, for a summary line and for scripts."""
        return {"conclusions": self.n_conclusions, "decisions_flipped": len(self.flips) + len(self.omnibus_flips),
                "best_or_order": len(self.rank_changes),
                "systems_added": sum(len(s.added) for s in self.set_changes if s.what == "systems"),
                "systems_removed": sum(len(s.removed) for s in self.set_changes if s.what == "systems"),
                "comparisons_new": sum(c.status == "new" for c in self.comparisons),
                "comparisons_removed": sum(c.status == "removed" for c in self.comparisons),
                "test_choices_changed": len(self.choice_changes)}

    def exit_code(self, fail_on: FailOn = "conclusions") -> int:
        """0 or 1 for the CLI: conclusions (default) fails on flips and best/rank changes, ``flips`` only on
        flipped decisions, ``any`` on any listed difference of the results (not on the cause alone)."""
        changed = {"conclusions": self.conclusions_changed, "flips": self.decisions_flipped,
                   "any": self.anything_changed}[fail_on]
        return 1 if changed else 0


HEADLINE_ITEMS = 3


def other_changes(d: Diff) -> str:
    """What changed besides the conclusions, briefly ("1 system added; data, spec changed")."""
    c = d.counts()
    parts = [f"{c[k]} {one if c[k] == 1 else many}" for k, one, many in (
        ("systems_added", "system added", "systems added"), ("systems_removed", "system removed", "systems removed"),
        ("test_choices_changed", "test choice changed", "test choices changed")) if c[k]]
    changed = [w for w, v in (("data", d.cause.data), ("spec", d.cause.spec), ("software", d.cause.software)) if v]
    if changed:
        parts.append(f"{', '.join(changed)} changed")
    return "; ".join(parts)


# ---- comparing ---------------------------------------------------------------------------------------


def check_schema(old_doc: DocumentRecords, new_doc: DocumentRecords, source: str = "diff") -> None:
    """Refuse to match analyses across results.json schema versions (their fields may mean other things)."""
    ov, nv = old_doc.schema_version, new_doc.schema_version
    if ov != nv:
        raise UserError(source, [Problem(source, None, "schema_version",
                                         f"results.json schema_version {ov} vs {nv}: analyses cannot be matched "
                                         "across schema versions; still comparable: the systems, corpora and metrics "
                                         "lists and the manifests (data, spec, software)")])


Document = Union[DocumentRecords, Mapping[str, object]]
"""A results.json as read (:func:`~sigreport.results.reading.read_document`), or as parsed (read here)."""


def read(doc: Document) -> DocumentRecords:
    """A results.json's records, read once (:func:`~sigreport.results.reading.read_document`)."""
    return doc if isinstance(doc, DocumentRecords) else read_document(doc)


def diff_results(old_doc: Document, new_doc: Document, old_manifest: Mapping[str, object] | None = None,
                 new_manifest: Mapping[str, object] | None = None, old_label: str = "old",
                 new_label: str = "new", old_items: ItemScores | None = None,
                 new_items: ItemScores | None = None) -> Diff:
    """Everything that differs between two results.json documents of the same schema version. ``old_items``
    / ``new_items``: the releases' per-item scores when the caller found them (paired intervals)."""
    old, new = read(old_doc), read(new_doc)
    check_schema(old, new)
    old_dec, new_dec = (Blocks(decide_records(d.records, d.metrics)) for d in (old, new))
    primary = {b.primary.id for b in new_dec if b.primary is not None}  # the reports' own decisions
    flips, omni, ranks, choices, pairs = [], [], [], [], []
    for aid in (a.id for a in new.analyses):
        o, n = old.record(aid), new.record(aid)
        if o is None or n is None:
            continue
        f, pc = pair_flips(aid, o, n)
        flips += [dataclasses.replace(x, primary=aid in primary) for x in f]
        pairs += [pc] if pc else []
        omni += [x for x in [omnibus_flip(aid, o, n)] if x]
        ranks += [x for x in [rank_change(aid, o, n, old_dec, new_dec)] if x]
        choices += [x for x in [choice_change(aid, o, n)] if x]
    c = cause(old, new, old_manifest, new_manifest)
    ctx = Context(old, new, old_dec, new_dec, c, old_items, new_items)
    old_ids, new_ids = [a.id for a in old.analyses], [a.id for a in new.analyses]
    return Diff(old=old_label, new=new_label, analyses_added=tuple(i for i in new_ids if i not in old_ids),
                analyses_removed=tuple(i for i in old_ids if i not in new_ids), flips=tuple(flips),
                omnibus_flips=tuple(omni), rank_changes=tuple(ranks), choice_changes=tuple(choices),
                pairs_changes=tuple(pairs), set_changes=tuple(set_changes(old, new)), cause=c,
                changes=changes_of(ctx, flips, omni, ranks), blocks=value_changes(ctx),
                comparisons=comparisons_of(ctx), names=analysis_names(ctx))


def analysis_names(ctx: "Context") -> tuple[tuple[str, str, str], ...]:
    """(id, kind, where) of every analysis of both releases, for the notes to name them by label."""
    out = {}
    for doc in (ctx.old, ctx.new):
        for a in doc.analyses:
            block = ctx.block(a.metric, a.corpus)
            out[a.id] = (a.id, a.kind, where_text(block.label if block else a.metric, a.corpus))
    return tuple(out.values())


def number(v: object) -> float | None:
    """A number of a document as a float; None for anything else (a partial document's fields are not coerced)."""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _text(v: object) -> str | None:
    """A string field of a record; None for an empty one (a partial document's missing field)."""
    return v if isinstance(v, str) and v else None


DECIDED = (PairRow, PosthocRow, McNemarPair)  # pairs with a significance decision of their own
Pair = Union[PairRow, PosthocRow, McNemarPair, AgreementPair, BayesianPair, RunPair]
WITH_PAIRS = (PairwiseRecord, PosthocRecord, McNemarRecord, AgreementRecord, BayesianRecord, RunsRecord)
OWN_DECISION = (FriedmanRecord, RMAnovaRecord, CochranQRecord)  # records with one decision of their own


def pairs_of(r: Record) -> tuple[Pair, ...]:
    return r.pairs if isinstance(r, WITH_PAIRS) else ()


def method_of(r: Record) -> str | None:
    return _text(r.method)


def correction_of(r: Record) -> str | None:
    """The family's correction (pairwise, cross-validation and McNemar families), else None."""
    return _text(r.correction) if isinstance(r, (PairwiseRecord, McNemarRecord)) else None


def pair_decision(p: Pair) -> tuple[bool | None, float | None, float | None]:
    """(significant, estimate of a - b, the p-value the decision was taken on: adjusted when present) of a
    pair; (None, None, None) for a pair without a significance decision (Bayesian, agreement, runs)."""
    if not isinstance(p, DECIDED):
        return None, None, None
    pvalue = number(p.pvalue_adjusted)
    return p.significant, number(p.estimate) if isinstance(p, PairRow) else None, \
        pvalue if pvalue is not None else number(p.pvalue)


def own_pvalue(r: Record) -> float | None:
    """The p-value an omnibus decision was taken on: the corrected one (RM-ANOVA) when present."""
    corrected = number(r.pvalue_corrected) if isinstance(r, RMAnovaRecord) else None
    return corrected if corrected is not None else number(r.pvalue) if isinstance(r, OWN_DECISION) else None


def pair_flips(aid: str, old: Record, new: Record) -> tuple[list[DecisionFlip], PairsChange | None]:
    """Flipped decisions of the pairs both analyses hold (a pair listed the other way round has its
    estimate negated), and the pairs only one of them holds."""
    op, np_ = ({(p.a, p.b): p for p in pairs_of(r)} for r in (old, new))
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
        os_, oe, op_value = pair_decision(o)
        ns, ne, np_value = pair_decision(n)
        oe = oe * sign if oe is not None else None
        reason = None
        if isinstance(os_, bool) and isinstance(ns, bool) and os_ != ns:
            reason = "significance"
        elif os_ is True and ns is True and oe is not None and ne is not None and oe * ne < 0:
            reason = "direction"
        if reason:
            flips.append(DecisionFlip(analysis=aid, a=key[0], b=key[1], old_significant=os_, new_significant=ns,
                                      old_pvalue=op_value, new_pvalue=np_value, old_estimate=oe, new_estimate=ne,
                                      reason=reason))
    added = tuple(f"{a} vs {b}" for (a, b) in np_ if (a, b) not in op and (b, a) not in op)
    removed = tuple(f"{a} vs {b}" for (a, b) in op if (a, b) not in matched)
    return flips, (PairsChange(aid, added, removed) if added or removed else None)


def omnibus_flip(aid: str, old: Record, new: Record) -> OmnibusFlip | None:
    """An analysis with one decision of its own (omnibus tests, Cochran's Q) that flipped."""
    if not isinstance(old, OWN_DECISION) or not isinstance(new, OWN_DECISION):
        return None
    os_, ns = old.significant, new.significant
    if isinstance(os_, bool) and isinstance(ns, bool) and os_ != ns:
        return OmnibusFlip(aid, method_of(old), method_of(new), os_, ns, own_pvalue(old), own_pvalue(new))
    return None


RANK_DECIMALS = 3  # average ranks as the report shows them


def rank_change(aid: str, old: Record, new: Record, old_dec: Blocks, new_dec: Blocks) -> RankChange | None:
    """The best system or the order of the shared systems changed: by the reports' decisions (values as shown,
    ties shared, :func:`~sigreport.results.decisions.rank_systems`) for descriptives; by average ranks as shown
    (1 = best) for a Friedman test."""
    if isinstance(old, DescriptivesRecord):
        ob_, nb_ = old_dec.get(old.metric, old.corpus), new_dec.get(new.metric, new.corpus)
        if ob_ is None or nb_ is None:
            return None
        ot, nt, source = ob_.tiers, nb_.tiers, "means"
    elif isinstance(old, FriedmanRecord) and isinstance(new, FriedmanRecord):
        ot, nt, source = rank_tiers(old.average_ranks), rank_tiers(new.average_ranks), "average ranks"
    elif isinstance(old, PreferenceRecord) and isinstance(new, PreferenceRecord):
        return tier_change(aid, old_dec.get(old.metric, old.corpus), new_dec.get(new.metric, new.corpus))
    else:
        return None
    shared = {s for t in ot for s in t} & {s for t in nt for s in t}
    best_o, best_n = (ot[0] if ot else ()), (nt[0] if nt else ())
    if best_o == best_n and restricted(ot, shared) == restricted(nt, shared):
        return None
    oo, no = tuple(s for t in ot for s in t), tuple(s for t in nt for s in t)
    return RankChange(aid, source, oo, no, best_o[0] if best_o else None, best_n[0] if best_n else None,
                      tuple(best_o), tuple(best_n))


def tier_change(aid: str, old: BlockDecisions | None, new: BlockDecisions | None) -> RankChange | None:
    """The tiers of preference votes changed (the decision model's Rank (UB) tiers of the Bradley-Terry intervals,
    which the Conclusions state): tier 1 changed, or a system both releases share moved to another tier relative
    to the others (a changed tier is news; a changed order of strengths within a tier is not). The orders are
    the tiers, best first, each as "A = B"."""
    if old is None or new is None or old.ranks is None or new.ranks is None:
        return None
    ot, nt = old.ranks.members, new.ranks.members
    shared = set(old.ranks.systems) & set(new.ranks.systems)
    best_o, best_n = (ot[0] if ot else ()), (nt[0] if nt else ())

    def layers(tiers: tuple[tuple[str, ...], ...]) -> list[frozenset[str]]:  # a tier is a set: its order is news to no one
        return [frozenset(t) for t in restricted(tiers, shared)]

    if set(best_o) == set(best_n) and layers(ot) == layers(nt):
        return None
    return RankChange(aid, "tiers", tuple(" = ".join(t) for t in ot), tuple(" = ".join(t) for t in nt),
                      best_o[0] if best_o else None, best_n[0] if best_n else None, tuple(best_o), tuple(best_n))


def restricted(tiers: tuple[tuple[str, ...], ...], keep: set[str]) -> list[tuple[str, ...]]:
    """The tiers of an order with only the systems in ``keep`` (empty tiers dropped)."""
    return [t for t in (tuple(s for s in tier if s in keep) for tier in tiers) if t]


def rank_tiers(ranks: Mapping[str, float | None]) -> tuple[tuple[str, ...], ...]:
    """Systems by average rank as shown (1 = best), ties shared."""
    return rank_systems({str(s): number(r) for s, r in ranks.items()}, False, RANK_DECIMALS)


def chosen(r: Record) -> tuple[str | None, str | None] | None:
    """(method, reason) of an automatic choice (``selection``), None when the spec set the test."""
    sel = r.selection
    if sel is None or not (sel.method or sel.reason or sel.steps):  # (a partial document's empty selection)
        return None
    return _text(sel.method), _text(sel.reason)


def choice_change(aid: str, old: Record, new: Record) -> ChoiceChange | None:
    """The test changed: by the automatic choice (``selection.method``, with its ``reason``) or by the spec."""
    osel, nsel = chosen(old), chosen(new)
    om = osel[0] if osel else method_of(old)
    nm = nsel[0] if nsel else method_of(new)
    if method_of(old) == method_of(new) and om == nm:
        return None
    return ChoiceChange(aid, method_of(old), method_of(new), osel[1] if osel else "set in the spec",
                        nsel[1] if nsel else "set in the spec")


def set_changes(old_doc: DocumentRecords, new_doc: DocumentRecords) -> list[SetChange]:
    out = []
    for what, o, n in (("systems", old_doc.systems, new_doc.systems), ("corpora", old_doc.corpora, new_doc.corpora),
                       ("metrics", old_doc.metric_names, new_doc.metric_names)):
        added, removed = tuple(x for x in n if x not in o), tuple(x for x in o if x not in n)
        if added or removed:
            out.append(SetChange(what, added, removed))
    return out


def cause(old_doc: DocumentRecords, new_doc: DocumentRecords, old_m: Mapping[str, object] | None,
          new_m: Mapping[str, object] | None) -> Cause:
    """From the manifests when both exist; otherwise what results.json says (data hash, sigreport version)."""
    if old_m is None or new_m is None:
        data = old_doc.data != new_doc.data
        ov, nv = old_doc.sigreport_version, new_doc.sigreport_version
        soft = ((("sigreport", ov, nv),) if ov != nv else ())
        return Cause(data, None, bool(soft) or None, (), soft)
    of, nf = manifest_facts(old_m), manifest_facts(new_m)
    oi, ni = of.inputs, nf.inputs
    files = tuple(sorted(str(k[1]) for k in set(oi) | set(ni) if oi.get(k) != ni.get(k)))
    spec = of.spec_sha256 != nf.spec_sha256
    settings, lines = ((), ())
    if spec:
        settings, lines = spec_settings(of.spec_text, nf.spec_text), spec_diff_lines(of.spec_text, nf.spec_text)
    return Cause(bool(files), spec, bool(soft := software_changes(of, nf)), files, soft, settings or (), lines,
                 settings is not None)


SPEC_DIFF_LINES = 40  # a longer YAML diff is cut, saying how many lines were left out


def spec_diff_lines(old: str | None, new: str | None) -> tuple[str, ...]:
    """The changed lines of the spec as a unified diff with one line of context (``@@`` headers kept, file
    headers left out); () when a text is missing."""
    if not isinstance(old, str) or not isinstance(new, str):
        return ()
    out = [ln for ln in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=1)
           if not ln.startswith(("---", "+++"))]
    if len(out) > SPEC_DIFF_LINES:
        out = out[:SPEC_DIFF_LINES] + [f"... {len(out) - SPEC_DIFF_LINES} more lines"]
    return tuple(out)


def spec_settings(old: str | None, new: str | None) -> tuple[tuple[str, str | None, str | None], ...] | None:
    """(dotted setting, old, new) for every setting the two spec texts give differently, read as the build
    read them (validated, defaults filled in); None when either cannot be read as a spec by this version."""
    from sigreport.errors import UserError as _UserError
    from sigreport.spec import load_spec

    try:
        flat = [flatten(load_spec(t).spec.model_dump(mode="json")) for t in (old, new)]
    except (_UserError, TypeError, ValueError):
        return None
    out, seen = [], set()
    for k in dict.fromkeys([*flat[0], *flat[1]]):
        o, n = flat[0].get(k, MISSING), flat[1].get(k, MISSING)
        if o == n:
            continue
        if o is MISSING or n is MISSING:  # a whole part added or removed: named once ('metrics.m3: added')
            k = subtree(k, flat[0] if o is MISSING else flat[1])
            if k not in seen:
                seen.add(k)
                out.append((k, None if o is MISSING else "(removed)", "(added)" if o is MISSING else None))
            continue
        if isinstance(o, list) and isinstance(n, list):
            out.append((k, *list_change(o, n)))
            continue
        out.append((k, _setting(o), _setting(n)))
    return tuple(out)


def list_change(old: list[object], new: list[object]) -> tuple[str, str]:
    """A list setting that changed, told by what changed, so that a long list is never cut before the added
    name (``systems: ["A", "B", "C"] → [..., "D"]``): ('(list)', 'added "D"; removed "E"'), or the reordered
    list in full when only the order changed."""
    added = [x for x in new if x not in old]
    removed = [x for x in old if x not in new]
    if not added and not removed:
        return _setting(old) or "[]", _setting(new) or "[]"
    said = ([f"added {', '.join(_setting(x) or '' for x in added)}"] if added else []) + \
        ([f"removed {', '.join(_setting(x) or '' for x in removed)}"] if removed else [])
    return LIST_CHANGE, "; ".join(said)


LIST_CHANGE = "(list)"


def subtree(key: str, lacks: Mapping[str, object]) -> str:
    """The shortest prefix of ``key`` that ``lacks`` has no setting under (the part that was added)."""
    parts = key.split(".")
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if not any(k == prefix or k.startswith(prefix + ".") for k in lacks):
            return prefix
    return key


MISSING = object()


def flatten(value: object, prefix: str = "") -> dict[str, object]:
    """A nested spec as {dotted path: value}; lists are values (``systems: [A, B]``)."""
    if isinstance(value, dict) and value:
        out: dict[str, object] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def setting_text(key: str, old: str | None, new: str | None) -> str:
    """'tests.correction: "none" → "holm"', 'metrics.m3: added', 'metrics.m2: removed'."""
    if new == "(added)" or old == "(removed)":
        return f"{key}: {'added' if new == '(added)' else 'removed'}"
    if old == LIST_CHANGE:
        return f"{key}: {new}"
    return f"{key}: {old if old is not None else '(not set)'} → {new if new is not None else '(not set)'}"


def _setting(v: object) -> str | None:
    if v is MISSING:
        return None
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def software_changes(old: ManifestFacts, new: ManifestFacts) -> tuple[tuple[str, str | None, str | None], ...]:
    """(name, old version, new version) of each piece of software whose version differs, by name."""
    o, n = old.versions, new.versions
    return tuple((k, o.get(k), n.get(k)) for k in sorted(set(o) | set(n)) if o.get(k) != n.get(k))




# ---- values, causes and the conclusions in words ------------------------------------------------------

RTOL = 1e-9  # a summary that moved less than this (relative) is unchanged (last digits of another machine)


class Blocks:
    """A report's decisions with each block found by its (metric, corpus) at once (a large report has thousands:
    :meth:`~sigreport.results.decisions.Decisions.get` looks through them in order); the first of a key, as
    there."""

    def __init__(self, decisions: Decisions) -> None:
        self.decisions = decisions
        self.by_key: dict[tuple[str, str | None], BlockDecisions] = {}
        for b in decisions:
            self.by_key.setdefault((b.metric, b.corpus), b)

    def __iter__(self) -> Iterator[BlockDecisions]:
        return iter(self.decisions)

    def get(self, metric: str, corpus: str | None) -> BlockDecisions | None:
        return self.by_key.get((metric, corpus))


@dataclasses.dataclass(frozen=True)
class Context:
    """Both releases' records, their decisions, the cause, and any item scores."""

    old: DocumentRecords
    new: DocumentRecords
    old_dec: Blocks
    new_dec: Blocks
    cause: Cause
    old_items: ItemScores | None = None
    new_items: ItemScores | None = None

    def block(self, metric: str, corpus: str | None) -> BlockDecisions | None:
        """The new release's decisions of the block, else the old one's."""
        return self.new_dec.get(metric, corpus) or self.old_dec.get(metric, corpus)

    def same_data(self, metric: str, corpus: str | None, system: str) -> bool | None:
        """Whether the system's scores on the block are the same in both releases by the store's hashes
        (:attr:`ItemScores.hashes`); None when either release has no hash for it."""
        if self.old_items is None or self.new_items is None:
            return None
        o = self.old_items.hashes.get((metric, corpus, system))
        n = self.new_items.hashes.get((metric, corpus, system))
        return None if o is None or n is None else o == n


def where_text(label: str, corpus: str | None) -> str:
    """How a block is named to a reader: 'BLEU · news' ('across corpora' for a block over corpora)."""
    return f"{label} · {corpus if corpus is not None else 'across corpora'}"


def descriptives_of(doc: DocumentRecords, metric: str, corpus: str | None) -> DescriptivesRecord | None:
    """The block's descriptives (of a repeated id, the last analysis)."""
    return doc.descriptives(metric, corpus)


def system_rows(desc: DescriptivesRecord | None) -> dict[str, SystemSummary]:
    return {str(r.system): r for r in desc.systems} if desc is not None else {}


def _moved(a: object, b: object) -> bool:
    x, y = number(a), number(b)
    if x is None or y is None:
        return (x is None) != (y is None)
    return not math.isclose(x, y, rel_tol=RTOL, abs_tol=0.0)


def summary_moved(old: SystemSummary, new: SystemSummary) -> bool:
    """A system's summary (mean, SD, median or number of items) moved (more than :data:`RTOL`)."""
    return any(_moved(o, n) for o, n in ((old.mean, new.mean), (old.sd, new.sd), (old.median, new.median),
                                         (old.n, new.n)))


def changed_systems(ctx: Context, metric: str, corpus: str | None) -> dict[str, str]:
    """Systems in both releases whose scores on this block changed (their summary: mean, SD, median or
    number of items), each with its mean then and now as the report shows it."""
    old, new = (system_rows(descriptives_of(d, metric, corpus)) for d in (ctx.old, ctx.new))
    block = ctx.block(metric, corpus)
    decimals = block.decimals if block else DEFAULT_DECIMALS
    out = {}
    for s in new:
        if s not in old:
            continue
        same = ctx.same_data(metric, corpus, s)
        if same is False or (same is None and summary_moved(old[s], new[s])):
            out[s] = f"mean {fmt(number(old[s].mean), decimals)} → {fmt(number(new[s].mean), decimals)}"
    return out


def systems_in(doc: DocumentRecords, metric: str, corpus: str | None) -> list[str]:
    return list(system_rows(descriptives_of(doc, metric, corpus)))


def fmt(v: float | None, decimals: int) -> str:
    return "–" if v is None else f"{v:.{decimals}f}"


def signed(v: float | None, decimals: int) -> str:
    return "–" if v is None else f"{v:+.{decimals}f}"


# ---- per block: values and the interval of their difference ----


def value_changes(ctx: Context) -> tuple[BlockChange, ...]:
    """Per metric and corpus (the new release's order, then blocks only the old one has), every system's
    value in both releases and the difference with its interval (module doc: the rule)."""
    keys = list(dict.fromkeys([(b.metric, b.corpus) for b in ctx.new_dec] + [(b.metric, b.corpus) for b in ctx.old_dec]))
    return tuple(block_change(ctx, m, c) for m, c in keys)


def mean_metric(*descs: DescriptivesRecord | None) -> bool:
    """Whether the block's values are means of item scores (a corpus-level aggregate has no per-item mean)."""
    return all(d is None or d.aggregate in (None, "", "mean") for d in descs)


def block_change(ctx: Context, metric: str, corpus: str | None) -> BlockChange:
    ob, nb = ctx.old_dec.get(metric, corpus), ctx.new_dec.get(metric, corpus)
    info = nb or ob
    assert info is not None
    old_vals, new_vals = (dict(b.values) if b else {} for b in (ob, nb))
    systems = list(dict.fromkeys([*new_vals, *old_vals]))
    od, nd = descriptives_of(ctx.old, metric, corpus), descriptives_of(ctx.new, metric, corpus)
    level = interval_level(nd or od, ctx.new)
    paired = paired_source(ctx, metric, corpus)
    means = mean_metric(od, nd)
    rows = []
    olds, news = system_rows(od), system_rows(nd)
    for s in systems:
        o, n = number(old_vals.get(s)), number(new_vals.get(s))
        delta = n - o if o is not None and n is not None else None
        lo = hi = None
        kind, count = "", None
        changed = data_changed(ctx, metric, corpus, s, olds.get(s), news.get(s), delta)
        if delta is not None and means and changed:
            found = paired_interval(paired, s, level) if paired else None
            if found is not None:
                (lo, hi), count, kind = found[0], found[1], "paired"
            else:
                found = welch_interval(system_rows(od).get(s), system_rows(nd).get(s), delta, level)
                if found is not None:
                    (lo, hi), kind = found, "unpaired"
        sig = None if lo is None or hi is None else bool(lo > 0 or hi < 0)
        rows.append(ValueChange(system=s, old=o, new=n, delta=delta, ci_low=lo, ci_high=hi, interval=kind, n=count,
                                significant=sig, old_best=bool(ob and s in ob.best),
                                new_best=bool(nb and s in nb.best), data_changed=changed))
    return BlockChange(metric, corpus, info.label, info.higher_is_better, info.decimals, level, tuple(rows),
                       interval_note(ctx, paired is not None, means, level))


def data_changed(ctx: Context, metric: str, corpus: str | None, system: str, old: SystemSummary | None,
                 new: SystemSummary | None, delta: float | None) -> bool | None:
    """Whether a system both releases have changed its data on the block: by the store's hashes when both
    releases have them; else by its summary (mean, SD, median, n: :func:`summary_moved`) or, without one,
    by its value. None for a system only one release has."""
    if delta is None:
        return None
    same = ctx.same_data(metric, corpus, system)
    if same is not None:
        return not same
    if old is not None and new is not None:
        return summary_moved(old, new)
    return delta != 0


def interval_level(desc: DescriptivesRecord | None, doc: DocumentRecords) -> float:
    """The new report's interval level: the one its descriptives record holds (``ci_level``, set by
    :meth:`~sigreport.spec.Spec.interval_level`); a hand-made document without it gets the same rule
    (:func:`sigreport.spec.interval_level`) applied to its alpha."""
    level = number(desc.ci_level) if desc is not None else None
    if level is not None and not math.isnan(level):  # (a partial document's missing level reads as NaN)
        return level
    from sigreport.spec import interval_level as rule

    return rule(None, doc.alpha)


def interval_note(ctx: Context, paired: bool, mean_metric: bool, level: float) -> str:
    pct = f"{round(100 * level, 2):g}%"
    if not mean_metric:
        return "no interval: a corpus-level metric has no per-item mean to pair"
    if paired:
        return (f"{pct} interval of the difference: paired t interval of the mean of the per-item differences, "
                "on the items both releases share")
    why = next((i.missing for i in (ctx.old_items, ctx.new_items) if i is not None and i.missing),
               "the item scores were not read")
    return (f"{pct} interval of the difference: unpaired (Welch, from each release's mean, SD and number of items); "
            f"a paired one needs both releases' item scores: {why}")


PairedSource = tuple[tuple[str, ...], Mapping[str, ItemValues], tuple[str, ...], Mapping[str, ItemValues]]
"""(old items, old values by system, new items, new values by system) of one block."""


def paired_source(ctx: Context, metric: str, corpus: str | None
                  ) -> PairedSource | None:
    """(old items, old values, new items, new values) of the block when both releases' item scores hold it."""
    if ctx.old_items is None or ctx.new_items is None:
        return None
    o, n = ctx.old_items.blocks.get((metric, corpus)), ctx.new_items.blocks.get((metric, corpus))
    if o is None or n is None:
        return None
    return o[0], o[1], n[0], n[1]


def paired_interval(src: PairedSource,
                    system: str, level: float) -> tuple[tuple[float, float], int] | None:
    """The t interval of the mean of new - old over the items both releases hold for ``system`` (both
    values finite), and how many items that is; None under two items. Reproduced by R's
    ``t.test(new, old, paired = TRUE, conf.level = level)$conf.int`` on those items."""
    old_items, old_vals, new_items, new_vals = src
    if system not in old_vals or system not in new_vals:
        return None
    at = {item: i for i, item in enumerate(old_items)}
    pairs = [(at[item], j) for j, item in enumerate(new_items) if item in at]
    if len(pairs) < 2:
        return None
    oi, ni = (np.array(ix, dtype=np.intp) for ix in zip(*pairs))
    d = np.asarray(new_vals[system], dtype=float)[ni] - np.asarray(old_vals[system], dtype=float)[oi]
    d = d[np.isfinite(d)]
    if d.size < 2:
        return None
    return t_interval(float(d.mean()), float(d.std(ddof=1)) / math.sqrt(d.size), d.size - 1, level), int(d.size)


def welch_interval(old: SystemSummary | None, new: SystemSummary | None, delta: float,
                   level: float) -> tuple[float, float] | None:
    """Welch's t interval of new mean - old mean from each release's mean, SD and n (Welch-Satterthwaite
    degrees of freedom); reproduced by R's ``t.test(new, old, var.equal = FALSE)$conf.int`` on the scores.
    None without an SD and n on both sides, or when the values are so large (near the range of a double) that
    the interval is not a finite number."""
    if old is None or new is None:
        return None
    s1, n1, s2, n2 = number(old.sd), number(old.n), number(new.sd), number(new.n)
    if s1 is None or n1 is None or s2 is None or n2 is None or n1 < 2 or n2 < 2:
        return None
    try:
        v1, v2 = s1 ** 2 / n1, s2 ** 2 / n2
        se = math.sqrt(v1 + v2)
        if se == 0:
            return delta, delta
        df = (v1 + v2) ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1))
        found = t_interval(delta, se, df, level)
    except (OverflowError, ZeroDivisionError):
        return None
    return found if all(map(math.isfinite, found)) else None


def t_interval(mean: float, se: float, df: float, level: float) -> tuple[float, float]:
    """mean ± t(1 - (1 - level) / 2, df) * se; a zero ``se`` gives the point (all differences equal)."""
    if se == 0:
        return mean, mean
    from sigreport.stats.pairwise import t_ppf

    h = t_ppf(0.5 + level / 2, df) * se
    return mean - h, mean + h


# ---- the conclusions that changed, with their causes ----


def changes_of(ctx: Context, flips: Sequence[DecisionFlip], omni: Sequence[OmnibusFlip],
               ranks: Sequence[RankChange]) -> tuple[Change, ...]:
    """Every changed conclusion in words, primary decisions first, then the other tests', omnibus tests and
    best systems and orders, in the new report's order."""
    out = [flip_change(ctx, f) for f in flips if f.primary] + [flip_change(ctx, f) for f in flips if not f.primary]
    out += [omnibus_change(ctx, o) for o in omni] + [rank_change_text(ctx, r) for r in ranks]
    return tuple(out)


def test_label(a: Record) -> str:
    """The test's display name, with its family's correction ('paired t test, Holm-adjusted')."""
    name = test_name(a.kind, method_of(a))
    corr = correction_of(a)
    if a.kind in ("pairwise", "cv") and corr is not None:
        name += ", unadjusted" if corr == "none" else f", {correction_name(corr)}-adjusted"
    return name


def better_of(a: str, b: str, estimate: float | None, higher: bool) -> str | None:
    if estimate is None or estimate == 0:
        return None
    return a if (estimate > 0) == higher else b


def estimate_text(a: str, b: str, estimate: float | None, decimals: int) -> str:
    """'A - B = +0.0136' (the test's estimate of a - b, as the block prints values), or ''."""
    return f"{a} - {b} = {signed(estimate, decimals)}" if estimate is not None else ""


def decision_text(significant: bool | None, pvalue: float | None, better: str | None, estimate: str = "") -> str:
    facts = [x for x in (estimate, f"p = {p_text(pvalue)}" if pvalue is not None else "") if x]
    p = f" ({', '.join(facts)})" if facts else ""
    if significant is None:
        return "undecided" + p
    if significant:
        return f"significant, {better} better{p}" if better else f"significant{p}"
    return f"not significant{p}"


def flip_change(ctx: Context, f: DecisionFlip) -> Change:
    o, n = old_new(ctx, f.analysis)
    block = ctx.block(n.metric, n.corpus)
    higher = block.higher_is_better if block else True
    decimals = block.decimals if block else DEFAULT_DECIMALS
    where = where_text(block.label if block else n.metric, n.corpus)
    old = decision_text(f.old_significant, f.old_pvalue, better_of(f.a, f.b, f.old_estimate, higher),
                        estimate_text(f.a, f.b, f.old_estimate, decimals))
    new = decision_text(f.new_significant, f.new_pvalue, better_of(f.a, f.b, f.new_estimate, higher),
                        estimate_text(f.a, f.b, f.new_estimate, decimals))
    state = ("direction reversed" if f.reason == "direction" else "now significant" if f.new_significant
             else "no longer significant")
    changed = changed_systems(ctx, n.metric, n.corpus)
    marked = tuple(s for s in (f.a, f.b) if s in changed)
    return Change(kind="decision", metric=n.metric, corpus=n.corpus, where=where, test=test_label(n),
                  subject=f"{f.a} vs {f.b}", old=old, new=new,
                  causes=pair_causes(ctx, o, n, (f.a, f.b)), primary=f.primary, analysis=f.analysis,
                  short=f"{f.a} vs {f.b} on {where} {state}{data_mark(marked)}", data_changed=marked)


def data_mark(systems: Sequence[str]) -> str:
    """' (data of B changed)' for the systems of a changed conclusion whose data changed, or ''."""
    return f" (data of {', '.join(systems)} changed)" if systems else ""


def old_new(ctx: Context, analysis: str) -> tuple[Record, Record]:
    """The records of an analysis both releases hold (a change is only found between two)."""
    o, n = ctx.old.record(analysis), ctx.new.record(analysis)
    assert o is not None and n is not None
    return o, n


def family_size(a: Record) -> int:
    """The size of the record's correction family (a partial document without it: its pairs)."""
    size = a.family_size if isinstance(a, (PairwiseRecord, McNemarRecord)) else None
    return size if isinstance(size, int) and not isinstance(size, bool) and size else len(pairs_of(a))


def _correction(name: str | None) -> str:
    """A correction's display name; a record without one (a post-hoc family) as "None"."""
    return correction_name(name) if name is not None else str(name)


def family_name(a: Record) -> str:
    corr = correction_of(a)
    if a.kind in ("pairwise", "cv") and corr is not None and corr != "none":
        return f"{correction_name(corr)} family"
    return f"family of the {test_name(a.kind, method_of(a))}"


def family_dependent(a: Record) -> bool:
    """Whether a pair's decision depends on the other pairs of its family: a correction over the family, or a
    post-hoc test (its ranks and critical difference depend on every system)."""
    corr = correction_of(a)
    return a.kind == "posthoc" or (corr is not None and corr != "none")


def pair_causes(ctx: Context, o: Record, n: Record, pair: tuple[str, str]) -> tuple[str, ...]:
    """Why a pair's decision changed, most specific first (module doc)."""
    metric, corpus = n.metric, n.corpus
    changed = changed_systems(ctx, metric, corpus)
    out = [f"the data of {s} changed ({changed[s]})" for s in pair if s in changed]
    if family_dependent(n):
        fo, fn = family_size(o), family_size(n)
        if fo != fn:
            out.append(f"the {family_name(n)} changed size: {fo} → {fn} pairs{membership(ctx, metric, corpus)}")
        others = [s for s in changed if s not in pair]
        if others:
            corr = correction_of(n)
            why = "they move the average ranks" if n.kind == "posthoc" else \
                f"their p-values enter the {correction_name(corr) if corr is not None else corr} adjustment"
            out.append(f"other systems of the family changed: {', '.join(others)} ({why})")
    out += test_causes(ctx, o, n)
    return finish_causes(ctx, out, metric)


def membership(ctx: Context, metric: str, corpus: str | None) -> str:
    """' (added: D; removed: E)' for the block's systems, or ''."""
    old, new = systems_in(ctx.old, metric, corpus), systems_in(ctx.new, metric, corpus)
    added, removed = [s for s in new if s not in old], [s for s in old if s not in new]
    parts = ([f"added: {', '.join(added)}"] if added else []) + ([f"removed: {', '.join(removed)}"] if removed else [])
    return f" ({'; '.join(parts)})" if parts else ""


def test_causes(ctx: Context, o: Record, n: Record) -> list[str]:
    """The test, its correction or alpha changed."""
    out = []
    if method_of(o) != method_of(n):
        sel = chosen(n)
        why = f" ({sel[1]})" if sel and sel[1] else ""
        out.append(f"the test changed: {test_name(o.kind, method_of(o))} → {test_name(n.kind, method_of(n))}{why}")
    oc, nc = correction_of(o), correction_of(n)
    if oc != nc:
        out.append(f"the correction changed: {_correction(oc)} → {_correction(nc)}")
    oa, na = ctx.old.alpha, ctx.new.alpha
    if oa != na:
        out.append(f"alpha changed: {oa:g} → {na:g}" if oa is not None and na is not None else "alpha changed")
    return out


IRRELEVANT_SETTINGS = ("title", "description", "outputs.", "data.scores", "data.predictions", "data.annotations",
                       "data.columns.", "data.label_columns.", "tests.power", "tests.ci_level", "tests.ci_method")
"""Settings that cannot move a decision (what is shown, where the data is, intervals and power)."""


def relevant_settings(cause: Cause, metric: str) -> list[str]:
    """The spec's changed settings that can move a decision of ``metric`` ('tests.correction: "none" → "holm"')."""
    out = []
    for key, old, new in cause.spec_settings:
        if key.startswith(IRRELEVANT_SETTINGS) or (key.startswith("metrics.") and not key.startswith(f"metrics.{metric}.")):
            continue
        out.append(setting_text(key, old, new))
    return out


def finish_causes(ctx: Context, out: list[str], metric: str) -> tuple[str, ...]:
    """Add the spec's relevant settings; the software only when nothing else explains the change; and say so
    when nothing does."""
    settings = relevant_settings(ctx.cause, metric)
    if settings:
        out.append(f"the spec changed: {'; '.join(settings)}")
    elif ctx.cause.spec and not ctx.cause.spec_compared:
        out.append("the spec changed (its settings cannot be compared by this version: see its changed lines)")
    if not out and ctx.cause.software:
        out.append("the software changed: " + ", ".join(f"{k} {o} → {n}" for k, o, n in ctx.cause.software_changes))
    if not out:
        out.append("no cause found in the two reports: the same data summaries, family, test and spec" +
                   ("" if ctx.cause.spec is not None else " (no manifests: spec and software unknown)"))
    return tuple(dict.fromkeys(out))


def block_causes(ctx: Context, n: Record) -> tuple[str, str | None, str, list[str]]:
    """(metric, corpus, where in words, causes) of a change that concerns every system of analysis ``n``: each
    system whose data changed, and the systems compared when they changed."""
    metric, corpus = n.metric, n.corpus
    block = ctx.block(metric, corpus)
    causes = [f"the data of {s} changed ({v})" for s, v in changed_systems(ctx, metric, corpus).items()]
    members = membership(ctx, metric, corpus)
    if members:
        causes.append(f"the systems compared changed{members}")
    return metric, corpus, where_text(block.label if block else metric, corpus), causes


def omnibus_change(ctx: Context, f: OmnibusFlip) -> Change:
    o, n = old_new(ctx, f.analysis)
    metric, corpus, where, causes = block_causes(ctx, n)
    causes += test_causes(ctx, o, n)
    test = test_name(n.kind, method_of(n))
    state = "now significant" if f.new_significant else "no longer significant"
    marked = tuple(changed_systems(ctx, metric, corpus))
    return Change(kind="omnibus", metric=metric, corpus=corpus, where=where, test=test, subject="all systems",
                  old=decision_text(f.old_significant, f.old_pvalue, None),
                  new=decision_text(f.new_significant, f.new_pvalue, None),
                  causes=finish_causes(ctx, causes, metric), primary=False, analysis=f.analysis,
                  short=f"the {test} on {where} {state}{data_mark(marked)}", data_changed=marked)


def rank_change_text(ctx: Context, r: RankChange) -> Change:
    _, n = old_new(ctx, r.analysis)
    metric, corpus, where, causes = block_causes(ctx, n)
    best = " = ".join(r.new_best_tied) if r.new_best_tied else str(r.new_best)
    was = " = ".join(r.old_best_tied) if r.old_best_tied else str(r.old_best)
    test = {"means": "means", "average ranks": "average ranks", "tiers": "Bradley-Terry tiers"}[r.source]
    tiers = r.source == "tiers"  # preference votes: tier 1 (no system significantly better) and the tiers
    changed = changed_systems(ctx, metric, corpus)
    if (set(r.old_best_tied) != set(r.new_best_tied)) if tiers else tuple(r.old_best_tied) != tuple(r.new_best_tied):
        marked = tuple(s for s in dict.fromkeys([*(r.new_best_tied or [r.new_best]), *(r.old_best_tied or [r.old_best])])
                       if s in changed)
        return Change(kind="best", metric=metric, corpus=corpus, where=where, test=test,
                      subject="tier 1" if tiers else "best system", old=was, new=best,
                      causes=finish_causes(ctx, causes, metric), primary=tiers, analysis=r.analysis,
                      short=f"{'tier 1' if tiers else 'best'} on {where} now {best} (was {was}){data_mark(marked)}",
                      data_changed=marked)
    block = ctx.block(metric, corpus)
    order = block.order if tiers and block is not None else r.new_order  # (tiers: the orders are "A = B" tiers)
    marked = tuple(s for s in order if s in changed)
    return Change(kind="order", metric=metric, corpus=corpus, where=where, test=test,
                  subject="tiers of the systems" if tiers else "order of the systems",
                  old=" > ".join(r.old_order), new=" > ".join(r.new_order),
                  causes=finish_causes(ctx, causes, metric), primary=tiers, analysis=r.analysis,
                  short=f"{'tiers' if tiers else 'order'} on {where} changed{data_mark(marked)}", data_changed=marked)


# ---- comparisons of systems only one release has ----


def comparisons_of(ctx: Context) -> tuple[Comparison, ...]:
    """Pairs the test the conclusions follow compares in one release only (a new or removed system's
    comparisons, or a changed ``comparisons`` setting), with that release's decision."""
    out = []
    for dec, other, status in ((ctx.new_dec, ctx.old_dec, "new"), (ctx.old_dec, ctx.new_dec, "removed")):
        for b in dec:
            there = other.get(b.metric, b.corpus)
            if there is None or b.primary is None:  # a block of one release only: the notes list it as added
                continue
            known = {frozenset((p.a, p.b)) for p in there.pairs}
            for p in b.pairs:
                if frozenset((p.a, p.b)) in known:
                    continue
                where = where_text(b.label, b.corpus)
                better = p.better if p.significant else None
                out.append(Comparison(metric=b.metric, corpus=b.corpus, where=where, test=b.primary.name, a=p.a, b=p.b,
                                      status=status, significant=p.significant, better=better,
                                      pvalue=p.pvalue_adjusted, estimate=p.estimate,
                                      statement=decision_text(p.significant, p.pvalue_adjusted, better,
                                                              estimate_text(p.a, p.b, p.estimate, b.decimals))))
    return tuple(out)


def p_text(v: float | None) -> str:
    """A p-value as the notes print it: three significant digits, scientific below 0.001."""
    return "–" if v is None else (f"{v:.3g}" if v >= 0.001 else f"{v:.2e}")


# ---- for scripts (the renderers are sigreport.archive.notes) ----


def to_json(d: Diff) -> dict[str, object]:
    """Everything of the diff for scripts: the dataclasses as JSON, with the headline, counts and flags."""
    doc = dataclasses.asdict(d)
    doc.update(headline=d.headline, counts=d.counts(), conclusions_changed=d.conclusions_changed,
               decisions_flipped=d.decisions_flipped, anything_changed=d.anything_changed, format="sigreport-diff",
               diff_version=1)
    return doc
