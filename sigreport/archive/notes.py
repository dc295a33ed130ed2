"""Release notes: a :class:`~sigreport.archive.diff.Diff` as text, Markdown, HTML and JSON.

One list of parts (:func:`parts`) is the source of the text, Markdown and HTML outputs, so they say the
same: the headline first (one line), then only the parts that have something to say, in this order: the
conclusions that changed with their causes, the comparisons of new and removed systems, the values per
metric and corpus that changed (old, new, difference and its interval), other changes of the results, and
what changed between the releases' inputs, spec (the changed settings and YAML lines) and software.

Markdown is written for a pull request on GitHub: compact pipe tables, names escaped. HTML is one
self-contained page (inline style, no script, image or external reference, every name escaped) whose rows
link to the two reports, at the section of their metric and corpus, when :class:`Links` are given.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Mapping

from sigreport.archive.diff import BlockChange, Diff, fmt, setting_text, signed, to_json
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
    out = [conclusions_part(d), *comparison_parts(d), *value_parts(d), other_part(d), inputs_part(d)]
    return [p for p in out if p is not None and (p.rows or p.lines or p.code)]


def conclusions_part(d: Diff) -> Part | None:
    rows, keys = [], []
    for c in d.changes:
        test = c.test if c.primary or c.kind != "decision" else f"{c.test}; not the test the conclusions follow"
        rows.append((c.where, f"{c.subject} ({test})", c.old, c.new, "; ".join(c.causes)))
        keys.append((c.metric, c.corpus))
    n = len(rows)
    return Part(f"{n} conclusion{'s' if n != 1 else ''} changed", ("Where", "Conclusion", d.old, d.new, "Cause"),
                tuple(rows), keys=tuple(keys))


def comparison_parts(d: Diff) -> list[Part]:
    out = []
    for status, side in (("new", d.new), ("removed", d.old)):
        found = [c for c in d.comparisons if c.status == status]
        if found:
            out.append(Part(f"Comparisons only in {side} ({status} pairs)", ("Where", "Pair", "Test", side),
                            tuple((c.where, f"{c.a} vs {c.b}", c.test, c.statement) for c in found),
                            keys=tuple((c.metric, c.corpus) for c in found)))
    return out


def block_changed(b: BlockChange) -> bool:
    """Whether a block both releases have shows a change (a value, a system, the best)."""
    both = any(r.old is not None for r in b.rows) and any(r.new is not None for r in b.rows)
    return both and any(r.delta != 0 or r.old is None or r.new is None or r.old_best != r.new_best for r in b.rows)


def only_in_one(b: BlockChange) -> bool:
    return not any(r.old is not None for r in b.rows) or not any(r.new is not None for r in b.rows)


def value_parts(d: Diff) -> list[Part]:
    """One table per metric and corpus whose values changed: each system then, now, the difference and its
    interval; the best of each release and a difference whose interval excludes 0 in bold."""
    out = []
    for b in (b for b in d.blocks if block_changed(b)):
        rows, strong = [], set()
        for i, r in enumerate(b.rows):
            tag = " (new)" if r.old is None else " (removed)" if r.new is None else ""
            ci = f"[{signed(r.ci_low, b.decimals)}, {signed(r.ci_high, b.decimals)}]" if r.ci_low is not None else "–"
            rows.append((r.system + tag, fmt(r.old, b.decimals), fmt(r.new, b.decimals), signed(r.delta, b.decimals), ci))
            strong |= {(i, j) for j, on in ((1, r.old_best), (2, r.new_best), (3, bool(r.significant))) if on}
        pct = f"{round(100 * b.ci_level, 2):g}%"
        out.append(Part(f"{b.where}: values", ("System", d.old, d.new, f"difference ({d.new} - {d.old})",
                                               f"{pct} interval of the difference"),
                        tuple(rows), frozenset(strong), frozenset({1, 2, 3}), ((b.metric, b.corpus),) * len(rows),
                        note=f"Bold: the best of each release, and a difference whose interval excludes 0. "
                             f"{b.interval_note}."))
    return out


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
    same = [b.where for b in d.blocks if not block_changed(b) and not only_in_one(b)]
    if same and len(same) < len([b for b in d.blocks if not only_in_one(b)]):
        lines.append(f"values unchanged: {', '.join(same)}")
    return Part("Other changes", lines=tuple(lines))


def inputs_part(d: Diff) -> Part | None:
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


def render_markdown(d: Diff) -> str:
    """GitHub-flavoured Markdown: the headline, then a heading and a compact table (or list) per part."""
    out = [md(d.headline), ""]
    for p in parts(d):
        out += [f"### {md(p.heading)}", ""]
        if p.rows:
            out.append("| " + " | ".join(md(c) for c in p.columns) + " |")
            out.append("|" + "|".join("---:" if j in p.numeric else "---" for j in range(len(p.columns))) + "|")
            for i, row in enumerate(p.rows):
                cells = [f"**{md(c)}**" if (i, j) in p.strong and c != "–" else md(c) for j, c in enumerate(row)]
                out.append("| " + " | ".join(cells) + " |")
            out.append("")
        if p.lines:
            out += [f"- {md(x)}" for x in p.lines] + [""]
        if p.code:
            out += ["```diff", *(clean(x).replace("```", "` ` `") for x in p.code), "```", ""]
        if p.note:
            out += [md(p.note), ""]
    return "\n".join(out).rstrip("\n") + "\n"


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
