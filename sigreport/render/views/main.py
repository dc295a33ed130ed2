"""The main results table: systems x (metric, corpus), best in bold, second underlined, significance markers.

Every mark comes from the report's decisions (:mod:`sigreport.results.decisions`), the object the
Conclusions, the key figure, the release index and the diff read too: bold and underline are its first and
second tiers of values as shown (ties share the mark), the markers its primary test's corrected decisions
(who significantly beats whom), never raw p-values. Values come from the descriptives.

Split rule: at most :data:`MAX_COLUMNS` (metric, corpus) columns in one table; a wider table becomes one
table per metric (``main-<metric>``), and a metric with more corpora than that is cut into parts of
:data:`MAX_COLUMNS` corpora (``main-<metric>-2``, ...).
"""

from __future__ import annotations

import dataclasses
import functools
import string
from collections.abc import Iterable, Sequence

from sigreport.render import names
from sigreport.render.model import CI, Cell, Column, Int, Lines, Marked, Num, Table, Text, join
from sigreport.render.options import MainTableOptions
from sigreport.render.views.common import correction_name, LARGE_FAMILY, Labels, pct, the
from sigreport.results.collection import Results
from sigreport.results.decisions import BlockDecisions, Decisions, decide
from sigreport.results.ranks import RANKED_MIN
from sigreport.results.records import (DescriptivesRecord, PairwiseRecord, PosthocRecord, PreferenceRecord, RunsRecord,
                                       SystemSummary)

MAX_COLUMNS = 6
DAGGER, DDAGGER = "\u2020", "\u2021"


@dataclasses.dataclass(frozen=True)
class Column_:
    metric: str
    corpus: str | None
    desc: DescriptivesRecord
    dec: BlockDecisions  # its decisions

    @property
    def family(self) -> PairwiseRecord | PosthocRecord | None:
        """The record of the test the decisions follow (None: no pairwise test ran)."""
        return self.dec.record if self.dec.primary is not None else None


def columns_of(results: Results, opts: MainTableOptions, decisions: Decisions | None = None) -> list[Column_]:
    """The (metric, corpus) columns in option (or spec) order that have descriptives."""
    decisions = decisions if decisions is not None else decide(results)
    desc = {(r.metric, r.corpus): r for r in results.records if isinstance(r, DescriptivesRecord)}
    metrics = opts.metrics or tuple(results.metrics)
    corpora = [c for c in (opts.corpora or tuple(results.corpora))]
    out = []
    for m in metrics:
        for c in [*corpora, None]:
            d, dec = desc.get((m, c)), decisions.get(m, c)
            if d is not None and dec is not None:
                out.append(Column_(m, c, d, dec))
    return out


def letters(systems: Iterable[str]) -> dict[str, str]:
    """a, b, c, ... per system in spec order (numbers beyond 26 systems)."""
    systems = list(systems)
    if len(systems) <= 26:
        return dict(zip(systems, string.ascii_lowercase))
    return {s: str(i + 1) for i, s in enumerate(systems)}


def has_ties(dec: BlockDecisions) -> bool:
    """Whether two systems share the best or the second-best value as shown."""
    return any(len(t) > 1 for t in dec.tiers[:2])


@dataclasses.dataclass(frozen=True)
class Builder:
    results: Results
    lab: Labels
    opts: MainTableOptions

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.results.systems)

    baseline: str | None = None  # markers against it (comparisons vs_baseline, or a post-hoc control)
    level: str = "95%"  # the interval level of the first column's descriptives (value_ci)

    def decimals(self, metric: str) -> int:
        return self.opts.decimals if self.opts.decimals is not None else self.lab.decimals(metric)

    def header(self, col: Column_) -> Cell:
        info = self.results.metrics[col.metric]
        arrow = "\u2191" if info.higher_is_better else "\u2193"
        head = Text(f"{info.label} {arrow}")
        return head if col.corpus is None else Lines((head, Text(col.corpus)))

    def value(self, col: Column_, s: SystemSummary | None) -> Cell:
        d = self.decimals(col.metric)
        if s is None or s.mean is None:
            return Num(None)
        if self.opts.cell == "value_ci" and s.ci_low is not None and s.ci_high is not None:
            return join(Num(s.mean, d), " ", CI(s.ci_low, s.ci_high, col.desc.ci_level, d))
        if self.opts.cell == "value_sd":
            sd = self.run_sd(col, s.system)
            sd = s.sd if sd is None and not self.has_runs else sd
            if sd is not None:
                return join(Num(s.mean, d), " \u00b1 ", Num(sd, d))
        return Num(s.mean, d)

    @functools.cached_property
    def runs(self) -> dict[tuple[str, str | None], dict[str, float | None]]:
        """(metric, corpus) -> system -> SD of its values over its training runs (a run column)."""
        return {(r.metric, r.corpus): {x.system: x.sd for x in r.systems}
                for r in self.results.records if isinstance(r, RunsRecord)}

    @property
    def has_runs(self) -> bool:
        return bool(self.runs)

    def run_sd(self, col: Column_, system: str) -> float | None:
        return self.runs.get((col.metric, col.corpus), {}).get(system)

    def marks(self, col: Column_, system: str) -> str:
        dec = col.dec
        if not self.opts.markers or dec.primary is None:
            return ""
        beats = dec.beats.get(system, frozenset())
        base = self.baseline
        if base is not None:
            if system == base:
                return ""
            worse = system in dec.beats.get(base, frozenset())
            mark = DAGGER if base in beats else DDAGGER if worse else ""
        elif self.letters_left_out:
            mark = ""
        else:
            lett = letters(self.systems)
            mark = "".join(lett[s] for s in self.systems if s in beats)
        return mark + ("?" if system in dec.undecided else "")

    @property
    def letters_left_out(self) -> bool:
        """More than :data:`~.common.LARGE_FAMILY` systems with a rank column: no letters (see there)."""
        return len(self.systems) > LARGE_FAMILY and self.opts.rank != "none"

    def cell(self, col: Column_, system: str) -> Cell:
        summary = {s.system: s for s in col.desc.systems}.get(system)
        emphasis = {1: "best", 2: "second"}.get(col.dec.rank(system) or 0, "")
        return Marked(self.value(col, summary), emphasis, self.marks(col, system))

    def ranked(self, cols: list[Column_]) -> Column_ | None:
        """The column whose decisions the rank column shows (None: no rank column): with
        ``outputs.main_table.rank: ub`` and :data:`RANKED_MIN` or more systems, the first metric's column across
        corpora when the table has it, else the first column with a primary test."""
        if self.opts.rank == "none" or len(self.systems) < RANKED_MIN:
            return None
        with_ranks = [c for c in cols if c.dec.ranks is not None]
        if not with_ranks:
            return None
        first = with_ranks[0]
        return next((c for c in with_ranks if c.metric == first.metric and c.corpus is None), first)

    @staticmethod
    def rank_header() -> Cell:
        """One line whatever the table (its note names the metric and corpus ranked): a phone's narrow column
        would stack a metric's label word by word above the other heads."""
        return Text("Rank (UB)")

    def rank_cell(self, col: Column_, system: str) -> Cell:
        ranks = col.dec.ranks
        return Int(ranks.rank_ub.get(system) if ranks is not None else None)

    def table(self, cols: list[Column_], name: str, part: str | None, key: tuple[str, ...]) -> Table:
        ranked = self.ranked(cols)
        rank_cols = (Column(self.rank_header()),) if ranked is not None else ()
        columns = (Column(Text("System"), "l"), *rank_cols, *(Column(self.header(c)) for c in cols))
        lett = letters(self.systems)
        show_letters = self.opts.markers and self.baseline is None and bool(self.used_marks(cols))
        rows = tuple((Text(f"{s} ({lett[s]})" if show_letters else s),
                      *((self.rank_cell(ranked, s),) if ranked is not None else ()), *(self.cell(c, s) for c in cols))
                     for s in self.systems)
        what = "Main results" + (f" ({part})" if part else "")
        caption = f"{what}: {self.value_words(cols)} of every system; best in bold, second best underlined."
        notes = (*self.legend(cols), *((self.rank_legend(ranked),) if ranked is not None else ()))
        return Table(key, caption, columns, rows, notes, name=name, sortable=True)

    def rank_legend(self, col: Column_) -> str:
        """What the rank column counts, by which decisions."""
        dec = col.dec
        label = self.results.metrics[col.metric].label
        where = label + ("" if col.corpus is None else f" on {col.corpus}")
        only = (f"; only comparisons with {dec.baseline} were tested, so only they can lower a rank"
                if dec.baseline is not None else "")
        return (f"Rank (UB) by {where}: 1 + the number of systems significantly better, by the same corrected "
                f"decisions{only}; systems that no system significantly beats share rank 1, and ties share a rank.")

    def value_words(self, cols: list[Column_]) -> str:
        """What a cell shows; the corpus-level value is named only when a column's metric is one (an aggregate
        other than the mean), so that a caption never explains what no cell holds."""
        level = self.level
        corpus = any(self.results.metrics[c.metric].aggregate != "mean" for c in cols)
        mean = "mean over items" + (" (or the corpus-level value)" if corpus else "")
        return {"value": mean,
                "value_ci": f"{mean} with its {level} confidence interval",
                "value_sd": ("mean \u00b1 standard deviation over each system's training runs" if self.has_runs else
                             "mean \u00b1 standard deviation over items" + (" (corpus-level values alone)" if corpus
                                                                              else ""))}[self.opts.cell]

    def used_marks(self, cols: list[Column_]) -> set[str]:
        """Every marker character some cell of these columns shows: the legend explains only these."""
        return {ch for c in cols for s in self.systems for ch in self.marks(c, s)}

    def legend(self, cols: list[Column_]) -> list[str]:
        out = []
        dirs = [f"{'higher' if self.results.metrics[m].higher_is_better else 'lower'} is better for "
                f"{self.results.metrics[m].label}" for m in dict.fromkeys(c.metric for c in cols)]
        shown = ("as shown" if self.opts.decimals is None else
                 "at each metric's own decimals, whatever decimals the table prints")
        out.append(f"Bold: best value, underlined: second best, {shown} ({'; '.join(dirs)}).")
        if any(has_ties(c.dec) for c in cols):
            out.append("Systems tied at the shown decimals share the mark." if self.opts.decimals is None else
                       "Systems tied at their metric's decimals share the mark.")
        out += self.marker_legend(cols)
        if any(s.mean is None for c in cols for s in c.desc.systems):
            out.append("\u2014: not computable.")
        return out

    def marker_legend(self, cols: list[Column_]) -> list[str]:
        if not self.opts.markers:
            return ["Significance markers are switched off in this report."]
        fams = [c.dec for c in cols if c.dec.primary is not None]
        if not fams:
            return ["No pairwise test compared the systems: no significance markers."]
        tests = "; ".join(dict.fromkeys(self.test_words(f) for f in fams))
        base, used = self.baseline, self.used_marks(cols)
        if base is not None:
            parts = ([f"{DAGGER}: significantly better than the baseline {base}"] if DAGGER in used else []) + (
                [f"{DDAGGER}: significantly worse" + ("" if DAGGER in used else f" than the baseline {base}")]
                if DDAGGER in used else [])
            head = ", ".join(parts) or f"No system differs significantly from the baseline {base}"
        elif self.letters_left_out and any(c.dec.beats for c in cols):
            head = (f"With {len(self.systems)} systems the superscript letters are left out: Rank (UB) counts the "
                    "systems significantly better, and the pairwise sections give the pairs")
        elif used - {"?"}:
            lett = letters(self.systems)
            head = ("Superscript letters name the systems a system is significantly better than ("
                    + ", ".join(f"{lett[s]} = {s}" for s in self.systems) + ")")
        else:
            head = "No system is significantly better than another"
        out = [f"{head}, by the corrected decisions (never raw p-values) of {tests}; "
               f"\u03b1 = {self.results.alpha:g}."]
        if "?" in used:
            out.append("?: a comparison of this system could not be computed (no decision).")
        missing = [f"{self.results.metrics[c.metric].label}" + ("" if c.corpus is None else f" on {c.corpus}")
                   for c in cols if c.dec.primary is None]
        if missing:
            out.append(f"No markers for {', '.join(missing)}: no pairwise test ran there.")
        return out

    def test_words(self, dec: BlockDecisions) -> str:
        """The primary test of a column, its comparisons and its correction, in words."""
        r, name = dec.record, dec.primary.name if dec.primary is not None else ""
        if isinstance(r, PosthocRecord):  # a rank post-hoc test adjusts by its own procedure
            return the(name) + (f" against {r.control}" if r.control else ", all pairs")
        assert isinstance(r, PairwiseRecord)
        corr = correction_name(r.correction)
        n = r.family_size
        family = ("no multiple-comparison correction" if r.correction == "none" else
                  "a single comparison per metric and corpus (no correction needed)" if n == 1 else
                  f"{corr} correction over the {n} comparisons of each metric and corpus")
        return f"{the(name)} ({r.comparisons.replace('_', ' ')}), {family}"


def baseline_of(cols: Iterable[Column_]) -> str | None:
    """The reference system of the decisions (comparisons against the baseline, or a post-hoc control), from
    the first column that has one; None for all pairs."""
    return next((c.dec.baseline for c in cols if c.dec.baseline is not None), None)


def main_tables(results: Results, lab: Labels, decisions: Decisions | None = None,
                opts: MainTableOptions = MainTableOptions(), columns: Sequence[Column_] | None = None
                ) -> tuple[Table, ...]:
    """The main results table of a run (several when it is too wide; see the module doc), or none; ``opts``:
    ``outputs.main_table``; ``columns``: its :func:`columns_of`, when the caller has them (the report builds
    them once for the table, the Conclusions and the key figure)."""
    decisions = decisions if decisions is not None else decide(results)
    cols = list(columns) if columns is not None else columns_of(results, opts, decisions)
    b = Builder(results, lab, opts, baseline_of(cols), next((pct(c.desc.ci_level) for c in cols), "95%"))
    votes = preference_tables(results, decisions, opts, bool(cols))
    if not cols or not results.systems:
        return votes
    if len(cols) <= MAX_COLUMNS:
        return (b.table(cols, "main", None, ("main",)), *votes)
    out = []
    for m in dict.fromkeys(c.metric for c in cols):
        mine = [c for c in cols if c.metric == m]
        chunks = [mine[i:i + MAX_COLUMNS] for i in range(0, len(mine), MAX_COLUMNS)]
        for i, chunk in enumerate(chunks):
            several = len(chunks) > 1
            part = names.slug(m) + (f"-{i + 1}" if several else "")  # unique with the rest: views.name_parts
            out.append(b.table(chunk, f"main-{part}", results.metrics[m].label + (f", part {i + 1}" if several else ""),
                               ("main", m, str(i + 1)) if several else ("main", m)))
    return (*out, *votes)


def preference_tables(results: Results, decisions: Decisions, opts: MainTableOptions,
                      after: bool) -> tuple[Table, ...]:
    """The main table of the preference votes (data.preferences), one per Bradley-Terry analysis: every system's
    strength with its bootstrap interval, and, as for a metric (``outputs.main_table.rank``, 3 or more systems),
    its Rank (UB) and tier from the decision model (the intervals, Chatbot Arena's rule), so that main.md and
    main.csv carry them; ``after``: the report has a metrics' main table (this one is then named
    ``main-preferences``)."""
    records = {r.id: r for r in results.records if isinstance(r, PreferenceRecord)}
    out = []
    for dec in decisions:
        record = records.get(dec.primary.id) if dec.primary is not None else None
        if record is None:
            continue
        ranks = dec.ranks if opts.rank != "none" and len(record.systems) >= RANKED_MIN else None
        d = dec.decimals
        level = pct(record.ci_level)
        rank_cols = (Column(Text("Rank (UB)")), Column(Text("Tier"))) if ranks is not None else ()
        columns = (Column(Text("System"), "l"), *rank_cols, Column(Text(f"{dec.label} \u2191")))
        rows = []
        first = {x: i for i, x in enumerate(dec.order)}  # strongest first, as a leaderboard (the votes' order is arbitrary)
        for s in sorted(record.systems, key=lambda x: first.get(x.system, len(first))):
            value = (join(Num(s.strength, d), " ", CI(s.ci_low, s.ci_high, record.ci_level, d))
                     if s.strength is not None and s.ci_low is not None and s.ci_high is not None else Num(s.strength, d))
            emphasis = {1: "best", 2: "second"}.get(dec.rank(s.system) or 0, "")
            ranked = (Int(ranks.rank_ub.get(s.system)), Int(ranks.tier.get(s.system))) if ranks is not None else ()
            rows.append((Text(s.system), *ranked, Marked(value, emphasis, "")))
        unit = "items with all their votes" if record.unit == "items" else "votes"
        caption = (f"Main results of the preference votes: Bradley-Terry strength of every system with its {level} "
                   f"bootstrap percentile interval ({record.n_resamples:,} replicates resampling {unit}); best in "
                   "bold, second best underlined.")
        notes = [f"Strengths from {record.n_votes:,} votes, relative to the systems' mean (0); higher is better."]
        if ranks is not None:
            notes.append("Rank (UB): 1 + the number of systems whose interval lies wholly above this system's "
                         "(Chatbot Arena's rule); Tier: no system of a tier is significantly better than another of "
                         "it, and each system below tier 1 is significantly worse than one of the tier above.")
        several = f"-{names.slug(str(record.corpus))}" if len(records) > 1 else ""  # (one per group of votes)
        name = ("main-preferences" if after or several else "main") + several
        out.append(Table(("main", "preferences", str(record.corpus)), caption, columns, tuple(rows), tuple(notes),
                         name=name, sortable=True))
    return tuple(out)
