"""Release notes: a :class:`~sigreport.archive.diff.Diff` as text, Markdown, HTML and JSON.

One list of parts (:func:`parts`) is the source of the text, Markdown and HTML outputs, so they say the
same: the headline first (one line), then only the parts that have something to say, in this order: the
conclusions that changed with their causes (the same change on several blocks one row; a system whose data
changed named), one table of the systems added, removed or whose data changed (a new or removed system's
value and comparisons; a changed system's values, difference and interval; systems whose data did not
change are not listed), and what else changed: other changes of the results, and the releases' inputs, spec
(the changed settings and YAML lines) and software.

Markdown is a pull-request comment on GitHub: the conclusions first, the rest collapsed in ``<details>``,
compact pipe tables, names escaped. HTML is one
self-contained page (inline style, no script, image or external reference, every name escaped) whose rows
link to the two reports, at the section of their metric and corpus, when :class:`Links` are given.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Mapping

from sigreport.archive.diff import BlockChange, Diff, ValueChange, fmt, p_text, setting_text, signed, to_json
from sigreport.archive.documents import finite_document
from sigreport.escaping import clean
from sigreport.escaping import markdown_text as md
from sigreport.results.names import test_name

Key = tuple[str | None, str | None]  # (metric, corpus) a row is about


@dataclasses.dataclass(frozen=True)
class Links:
    """Where the two reports are, relative to the page (``old`` / ``new``: the report page, None: no link),
    and each report's section anchor per (metric, corpus) (missing: the page's top)."""

    old: str | None = None
    new: str | None = None
    old_anchors: Mapping[Key, str] = dataclasses.field(default_factory=dict)
    new_anchors: Mapping[Key, str] = dataclasses.field(default_factory=dict)

    def href(self, new: bool, key: Key | None) -> str | None:
        page = self.new if new else self.old
        if page is None:
            return None
        anchor = (self.new_anchors if new else self.old_anchors).get(key) if key is not None else None
        return f"{page}#{anchor}" if anchor else page


@dataclasses.dataclass(frozen=True)
class Part:
    """One part of the notes: a table (``columns``, ``rows``; ``strong`` cells (row, column) in bold,
    ``numeric`` columns right-aligned, ``keys`` the block each row is about), bullet ``lines``, or a
    ``code`` block (a unified diff); ``note`` under it."""

    heading: str
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    strong: frozenset[tuple[int, int]] = frozenset()
    numeric: frozenset[int] = frozenset()
    keys: tuple[Key | None, ...] = ()
    lines: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    note: str = ""


def parts(d: Diff) -> list[Part]:
    """The notes' parts, only those with something in them (the order is the module doc's)."""
    out = [conclusions_part(d), systems_part(d), other_part(d)]
    return [p for p in out if p is not None and (p.rows or p.lines or p.code)]


def conclusions_part(d: Diff) -> Part | None:
    """One row per changed conclusion; the same change on several metrics or corpora (a new system now best on
    each) is one row naming them all. A system whose data changed is named in the conclusion."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, c in enumerate(d.changes):
        test = c.test if c.primary or c.kind != "decision" else f"{c.test}; not the test the conclusions follow"
        if c.data_changed:
            test += f"; data of {', '.join(c.data_changed)} changed"
        groups.setdefault((f"{c.subject} ({test})", c.old, c.new, "; ".join(c.causes)), []).append(i)
    rows, keys = [], []
    for (conclusion, old, new, causes), at in groups.items():
        rows.append((", ".join(d.changes[i].where for i in at), conclusion, old, new, causes))
        keys.append((d.changes[at[0]].metric, d.changes[at[0]].corpus))
    n = d.n_conclusions
    return Part(f"{n} conclusion{'s' if n != 1 else ''} changed", ("Where", "Conclusion", d.old, d.new, "Cause"),
                tuple(rows), keys=tuple(keys))


def listed(r: ValueChange) -> bool:
    """A system's row is news: it is new, removed, or its data changed."""
    return r.old is None or r.new is None or r.data_changed is True


def comparisons_text(d: Diff, b: BlockChange, system: str, status: str) -> str:
    """A new (removed) system's comparisons by the test the conclusions follow, in the release that has it:
    'better than A (p = 0.001), B (p = 0.03); worse than C (p = 0.01); not different from E'."""
    better, worse, same = [], [], []
    for c in d.comparisons:
        if c.status != status or (c.metric, c.corpus) != (b.metric, b.corpus) or system not in (c.a, c.b):
            continue
        other = c.b if c.a == system else c.a
        p = f" (p = {p_text(c.pvalue)})" if c.pvalue is not None else ""
        if c.significant and c.better == system:
            better.append(other + p)
        elif c.significant and c.better == other:
            worse.append(other + p)
        else:
            same.append(other)
    said = [f"{w} {', '.join(xs)}" for w, xs in (("better than", better), ("worse than", worse),
                                                  ("not different from", same)) if xs]
    return "; ".join(said) or "–"


def systems_part(d: Diff) -> Part | None:
    """One table of what changed per system, every metric and corpus both releases have: a new or removed
    system with its value and its comparisons in the release that has it; a system whose data changed with
    both values, the difference and its interval. Systems whose data did not change are not listed (their
    difference is no news): the note names how many."""
    rows, strong, keys, notes_, same = [], set(), [], [], 0
    for b in (b for b in d.blocks if not only_in_one(b)):
        shown = [r for r in b.rows if listed(r)]
        same += sum(r.data_changed is False for r in b.rows)
        if shown and b.interval_note not in notes_ and any(r.data_changed for r in shown):
            notes_.append(b.interval_note)
        for r in shown:
            i = len(rows)
            tag = " (new)" if r.old is None else " (removed)" if r.new is None else " (data changed)"
            ci = f" [{signed(r.ci_low, b.decimals)}, {signed(r.ci_high, b.decimals)}]" if r.ci_low is not None else ""
            change = signed(r.delta, b.decimals) + ci if r.delta is not None else "–"
            comparisons = ("–" if r.data_changed else
                           comparisons_text(d, b, r.system, "new" if r.old is None else "removed"))
            rows.append((b.where, r.system + tag, fmt(r.old, b.decimals), fmt(r.new, b.decimals), change, comparisons))
            strong |= {(i, j) for j, on in ((2, r.old_best), (3, r.new_best), (4, bool(r.significant))) if on}
            keys.append((b.metric, b.corpus))
    pct = f"{round(100 * d.blocks[0].ci_level, 2):g}%" if d.blocks else "95%"
    note = ("Bold: the best of each release, and a difference whose interval excludes 0. Comparisons: by the test "
            "the conclusions follow, in the release that has the system."
            + (f" Not listed: {same} system values whose data is the same in both releases." if same else "")
            + "".join(f" {x}." for x in notes_))
    return Part("Systems added, removed or with changed data", ("Where", "System", d.old, d.new,
                                                                  f"{d.new} - {d.old} ({pct} interval)",
                                                                  "Comparisons"),
                tuple(rows), frozenset(strong), frozenset({2, 3, 4}), tuple(keys), note=note)


def only_in_one(b: BlockChange) -> bool:
    return not any(r.old is not None for r in b.rows) or not any(r.new is not None for r in b.rows)


KIND_NAMES = {"descriptives": "descriptives", "pairwise": "pairwise", "cv": "cross-validation", "posthoc": "post-hoc", "omnibus": "omnibus",
              "mcnemar": "McNemar", "cochran_q": "Cochran's Q", "bayesian": "Bayesian"}


def other_part(d: Diff) -> Part | None:
    lines = []
    for ch in d.choice_changes:
        kind, where = next(((k, w) for i, k, w in d.names if i == ch.analysis), ("pairwise", ch.analysis))
        lines.append(f"{where}: the {KIND_NAMES.get(kind, kind)} test changed: {test_name(kind, ch.old_method)} → "
                     f"{test_name(kind, ch.new_method)} (before: {ch.old_reason}; now: {ch.new_reason})")
    for ids, what in ((d.analyses_added, "added"), (d.analyses_removed, "removed")):
        grouped: dict[str, list[str]] = {}
        for a in ids:
            kind, where = next(((k, w) for i, k, w in d.names if i == a), ("analysis", a))
            grouped.setdefault(where, []).append(KIND_NAMES.get(kind, kind))
        lines += [f"{where}: {', '.join(kinds)} {what}" for where, kinds in grouped.items()]
    labels = {b.metric: b.label for b in d.blocks}
    for s in d.set_changes:
        shown = (lambda xs: ", ".join(f"{labels[x]} ({x})" if s.what == "metrics" and labels.get(x, x) != x else x
                                      for x in xs))
        lines += [f"{s.what} added: {shown(s.added)}"] if s.added else []
        lines += [f"{s.what} removed: {shown(s.removed)}"] if s.removed else []
    moved = {(b.metric, b.corpus): {r.system for r in b.rows if r.old is None or r.new is None} for b in d.blocks}
    for c in d.comparisons:  # a pair compared in one release only, of systems both have (``comparisons`` changed)
        if not moved.get((c.metric, c.corpus), set()) & {c.a, c.b}:
            lines.append(f"{c.where}: {c.a} vs {c.b} compared in {d.new if c.status == 'new' else d.old} only: "
                         f"{c.statement}")
    inputs = inputs_part(d)
    return Part(f"What else changed between {d.old} and {d.new}", lines=tuple(lines) + inputs.lines,
                code=inputs.code)


def inputs_part(d: Diff) -> Part:
    c, lines = d.cause, []
    if c.data:
        lines.append("data changed: " + (", ".join(c.data_files) if c.data_files else "the inputs' hashes differ"))
    if c.software:
        lines.append("software changed: " + ", ".join(f"{k} {o} → {n}" for k, o, n in c.software_changes))
    if c.spec:
        lines.append("spec changed" + (": " + "; ".join(setting_text(*x) for x in c.spec_settings)
                                       if c.spec_settings else " (no setting changed: comments or layout)"
                                       if c.spec_compared else " (its settings cannot be compared by this version)"))
    if c.spec is None:
        lines.append("spec and software: unknown (a report without a manifest)")
    return Part(f"What changed between {d.old} and {d.new}", lines=tuple(lines), code=c.spec_lines)


# ---- text ----


def render_text(d: Diff) -> str:
    out = [clean(d.headline)]
    for p in parts(d):
        out += ["", clean(p.heading) + ":"]
        if p.rows:
            out += [f"  {row}" for row in aligned(p)]
        out += [f"  - {clean(x)}" for x in p.lines]
        out += [f"  {clean(x)}" for x in p.code]
        if p.note:
            out.append(f"  ({clean(p.note)})")
    return "\n".join(out) + "\n"


def aligned(p: Part) -> list[str]:
    table = [tuple(clean(x) for x in p.columns)] + [tuple(clean(x) for x in r) for r in p.rows]
    widths = [min(max(len(r[j]) for r in table), 60) for j in range(len(p.columns) - 1)]
    return ["  ".join(c.rjust(w) if j in p.numeric else c.ljust(w) for j, (c, w) in enumerate(zip(r, widths)))
            + "  " + r[-1] for r in table]


# ---- markdown ----


MARKDOWN_SPEC_LINES = 10
"""The spec's changed YAML lines a pull-request comment shows; a longer diff is left to the text and HTML notes
(its settings are listed in any case)."""


def render_markdown(d: Diff) -> str:
    """GitHub-flavoured Markdown for a pull-request comment: the headline, the conclusions that changed, and
    the rest collapsed (``<details>``) under a summary line naming its parts."""
    out = [md(d.headline), ""]
    found = parts(d)
    lead = [p for p in found[:1] if d.changes and p.heading == found[0].heading and p.columns
            and p.columns[1] == "Conclusion"]
    rest = found[len(lead):]
    for p in lead:
        out += markdown_part(p, "###")
    if rest:
        summary = "Details: " + "; ".join(p.heading[0].lower() + p.heading[1:] for p in rest)
        out += [f"<details><summary>{html.escape(clean(summary), quote=False)}</summary>", ""]
        for p in rest:
            out += markdown_part(p, "####")
        out += ["</details>", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def markdown_part(p: Part, level: str) -> list[str]:
    out = [f"{level} {md(p.heading)}", ""]
    if p.rows:
        out.append("| " + " | ".join(md(c) for c in p.columns) + " |")
        out.append("|" + "|".join("---:" if j in p.numeric else "---" for j in range(len(p.columns))) + "|")
        for i, row in enumerate(p.rows):
            cells = [f"**{md(c)}**" if (i, j) in p.strong and c != "–" else md(c) for j, c in enumerate(row)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    if p.lines:
        out += [f"- {md(x)}" for x in p.lines] + [""]
    if p.code and len(p.code) <= MARKDOWN_SPEC_LINES:
        out += ["```diff", *(clean(x).replace("```", "` ` `") for x in p.code), "```", ""]
    elif p.code:
        out += [md(f"The spec's changed lines ({len(p.code)}) are in the text and HTML release notes."), ""]
    if p.note:
        out += [md(p.note), ""]
    return out


# ---- html ----

STYLE = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;color:#222;"
         "line-height:1.4}h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.6rem}"
         ".scroll{overflow-x:auto;max-width:100%;"
         "background:linear-gradient(to left,#fff 40%,rgba(255,255,255,0)) right/2rem 100% no-repeat local,"
         "radial-gradient(farthest-side at 100% 50%,rgba(0,0,0,.22),rgba(0,0,0,0)) right/.8rem 100% no-repeat scroll}"
         "table{border-collapse:collapse}"
         "th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #ddd;vertical-align:top;min-width:4.5rem}"
         "th{border-bottom:2px solid #444}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}"
         "pre{background:#f6f8fa;padding:.6rem;overflow-x:auto}.add{color:#116329}.del{color:#82071e}"
         ".note,.muted{color:#555;font-size:.9rem}a{color:#0550ae}")


def render_html(d: Diff, links: Links | None = None) -> str:
    """A self-contained page; with ``links`` every table row ends with links to the row's section in the
    two reports (relative links only)."""
    e = html.escape
    body = [f"<h1>{e(clean(d.headline))}</h1>"]
    for p in parts(d):
        body.append(f"<h2>{e(clean(p.heading))}</h2>")
        if p.rows:
            body.append(html_table(p, d, links))
        if p.lines:
            body.append("<ul>" + "".join(f"<li>{e(clean(x))}</li>" for x in p.lines) + "</ul>")
        if p.code:
            body.append("<pre>" + "\n".join(code_line(x) for x in p.code) + "</pre>")
        if p.note:
            body.append(f'<p class="note">{e(clean(p.note))}</p>')
    title = e(clean(d.headline))
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title}</title><style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def code_line(line: str) -> str:
    text = html.escape(clean(line))
    cls = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
    return f'<span class="{cls}">{text}</span>' if cls else text


def html_table(p: Part, d: Diff, links: Links | None) -> str:
    e = html.escape
    linked = links is not None and (links.old or links.new) and p.keys
    head = "".join(f'<th{" class=num" if j in p.numeric else ""}>{e(clean(c))}</th>' for j, c in enumerate(p.columns))
    rows = []
    for i, row in enumerate(p.rows):
        cells = []
        for j, c in enumerate(row):
            text = e(clean(c))
            cells.append(f'<td{" class=num" if j in p.numeric else ""}>{f"<b>{text}</b>" if (i, j) in p.strong else text}</td>')
        if linked:
            key = p.keys[i] if i < len(p.keys) else None
            refs = [(links.href(side, key), label) for side, label in ((False, d.old), (True, d.new))]  # type: ignore[union-attr]
            cells.append("<td>" + " · ".join(f'<a href="{e(h)}">{e(clean(label))}</a>' for h, label in refs if h)
                         + "</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    extra = "<th>reports</th>" if linked else ""
    return f'<div class="scroll"><table><thead><tr>{head}{extra}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


# ---- json ----


def render_json(d: Diff) -> str:
    """The diff for scripts (:func:`~sigreport.archive.diff.to_json`); a value that is not a finite number (the
    difference of two values near the range of a double) is null, its path listed in ``non_finite``."""
    doc, non_finite = finite_document(to_json(d))
    if non_finite:
        doc["non_finite"] = non_finite
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render(d: Diff, fmt_name: str, links: Links | None = None) -> str:
    if fmt_name == "html":
        return render_html(d, links)
    return {"text": render_text, "markdown": render_markdown, "json": render_json}[fmt_name](d)
