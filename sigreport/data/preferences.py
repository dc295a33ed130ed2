"""Pairwise preference votes (``data.preferences``): one row per vote, A against B, and which won.

Columns (renamed in ``data.preference_columns``): ``a`` and ``b`` the two systems, ``winner`` the text ``a``,
``b`` or ``tie`` (case-insensitive), and optionally ``item`` (the prompt voted on: the bootstrap then resamples
items) and ``judge`` (who voted). Every bad row is named at once, by line: a winner that is none of the three,
a system compared with itself, an empty name. Votes that involve a system the spec's ``systems`` does not
list are left out and named (as for the other tables); a listed system without a vote is an error.

The work is on the distinct names (factorized once), so a million votes cost a few array passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sigreport.data.label_tables import Collector, listing
from sigreport.data.model import PREFERENCE_GROUP, LeftOut, PreferenceGroup, Preferences
from sigreport.data.tables import Table, control_problems, factorize, first_rows, frame_table, read_table
from sigreport.spec import SpecFile

if TYPE_CHECKING:
    import pandas as pd

FIELD = "data.preferences"
OUTCOMES = {"a": 1, "b": -1, "tie": 0}


def read_preferences(sf: SpecFile, out: Collector, frame: pd.DataFrame | None = None
                     ) -> tuple[Table | None, Preferences | None, tuple[LeftOut, ...]]:
    """Read and check ``data.preferences``; problems go to ``out`` (all of them, then None)."""
    spec = sf.spec
    cols = spec.data.preference_columns
    if frame is not None:
        table = frame_table(frame, FIELD)
    else:
        table = read_table(sf.resolve(spec.data.preferences or ""), str(sf.path), FIELD)
    shown = str(table.path)
    needed = {"a": cols.a, "b": cols.b, "winner": cols.winner}
    missing = [c for c in needed.values() if c not in table.columns]
    if missing:
        out.add(shown, f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}; present: "
                f"{', '.join(map(repr, table.columns))}" + ("" if cols == type(cols)() else
                                                             " (mapped in data.preference_columns)"))
        return table, None, ()
    if not len(table):
        out.add(shown, "the table has no rows")
        return table, None, ()
    optional = {role: c for role, c in (("item", cols.item), ("judge", cols.judge)) if c in table.columns}
    roles = {**needed, **optional}
    raw = {role: factorize(table.cells[c]) for role, c in roles.items()}
    out.extend(control_problems(table, roles, raw))
    keys = {role: _stripped(*raw[role]) for role in roles}  # names without surrounding blanks
    outcome = _cell_problems(table, roles, keys, out)
    # one list of names for both columns, in order of first appearance (a before b on each row)
    a_codes, a_names = keys["a"]
    b_codes, b_names = keys["b"]
    first = _first_appearance(a_codes, a_names, b_codes, b_names)
    index = {n: i for i, n in enumerate(first)}
    a = np.array([index[n] for n in a_names], dtype=np.int64)[a_codes]
    b = np.array([index[n] for n in b_names], dtype=np.int64)[b_codes]
    same = a == b
    if same.any():
        out.add(shown, f"a system compared with itself ({listing(sorted({first[i] for i in a[same]}))}) at "
                f"{table.where(table.places[same])}")
    listed = list(spec.systems) if spec.systems else None
    for i, s in enumerate(listed or []):
        if s not in index:
            out.add_spec(f"system {s!r} has no vote in {shown}; present: {listing(first)}", "systems", i)
    if out:
        return table, None, ()
    systems = listed if listed is not None else first
    rows, left_out = _listed_rows(listed, first, a, b, len(table))
    if listed is not None:
        to_spec = np.array([listed.index(n) if n in set(listed) else -1 for n in first], dtype=np.int64)
        a, b, outcome = to_spec[a[rows]], to_spec[b[rows]], outcome[rows]
    if len(systems) < 2:
        out.add(shown, f"preference votes need two or more systems; found {listing(systems)}")
        return table, None, ()
    if not rows.any():
        out.add(shown, "no vote is between systems the spec lists")
        return table, None, ()
    graph_problems(shown, systems, a, b, outcome, out)
    if spec.tests.preferences.ties == "davidson" and not outcome.any():
        out.add(shown, "every vote is a tie: Davidson's tie parameter has no finite estimate (it grows without "
                "bound); set tests.preferences.ties: split to count each tie as half a win")
    if out:
        return table, None, ()
    item, items = _codes(keys.get("item"), rows)
    judge, judges = _codes(keys.get("judge"), rows)
    group = PreferenceGroup(corpus=PREFERENCE_GROUP, a=a, b=b, outcome=outcome, items=items, item=item,
                            judges=judges, judge=judge)
    return table, Preferences(shown, tuple(systems), (PREFERENCE_GROUP,), {PREFERENCE_GROUP: group}), left_out


def _cell_problems(table: Table, roles: dict[str, str], keys: dict[str, tuple[np.ndarray, list[str]]],
                   out: Collector) -> np.ndarray:
    """Empty names and winners that are not a, b or tie, each with its lines; the outcome of each row (1: a won,
    -1: b won, 0: a tie, and 0 for a bad winner, never used: the problem stops the build)."""
    shown = str(table.path)
    for role in roles:
        codes, names = keys[role]
        if role != "winner" and "" in names:
            at = table.places[codes == names.index("")]
            out.add(shown, f"empty {'system' if role in ('a', 'b') else role} in column {roles[role]!r} at "
                    f"{table.where(at)}")
    codes, names = keys["winner"]
    lower = [n.lower() for n in names]
    bad = [k for k, n in enumerate(lower) if n not in OUTCOMES]
    if bad:
        at = table.places[np.isin(codes, bad)]
        out.add(shown, f"column {roles['winner']!r} at {table.where(at)}: {listing([names[k] for k in bad])} is not "
                "a winner (a, b or tie)")
    return np.array([OUTCOMES.get(n, 0) for n in lower], dtype=np.int8)[codes]


def _listed_rows(listed: list[str] | None, first: list[str], a: np.ndarray, b: np.ndarray, total: int
                 ) -> tuple[np.ndarray, tuple[LeftOut, ...]]:
    """The votes between systems the spec lists (all of them when it lists none), and what is left out."""
    if listed is None:
        return np.ones(total, dtype=bool), ()
    known = np.array([n in set(listed) for n in first])
    keep = known[a] & known[b]
    if keep.all():
        return keep, ()
    idle = tuple(n for n in first if n not in set(listed))
    return keep, (LeftOut("systems", idle, int((~keep).sum()), "preferences", total),)


def graph_problems(shown: str, systems: list[str], a: np.ndarray, b: np.ndarray, outcome: np.ndarray,
                   out: Collector) -> None:
    """Votes whose Bradley-Terry strengths are not all defined: systems in groups never compared with each other
    (the comparison graph is disconnected), or a group that never beats or ties anyone outside it (the maximum
    likelihood strengths are infinite; Hunter 2004, assumption 1)."""
    from sigreport.stats.bradley_terry import components, count_matrices

    k = len(systems)
    wins, ties = count_matrices(a, b, outcome, k)
    weak, strong = components(wins, ties)
    def names(group: list[int]) -> str:
        return listing([systems[i] for i in group])

    if len(weak) > 1:
        out.add(shown, f"the votes never compare some systems with others, directly or through others: "
                f"{'; '.join(names(g) for g in weak)} (strengths of different groups cannot be compared: add votes "
                "between them, or list one group in systems)")
        return
    if len(strong) > 1:
        beats = (wins + ties) > 0
        for g in strong:
            rest = [i for i in range(k) if i not in set(g)]
            if not beats[np.ix_(g, rest)].any():
                out.add(shown, f"{names(g)} never {'beats or ties' if len(g) == 1 else 'beat or tie'} any other "
                        f"system: {'its strength is' if len(g) == 1 else 'their strengths are'} minus infinity "
                        "(Bradley-Terry's maximum likelihood is not finite); add such votes, or leave "
                        f"{'it' if len(g) == 1 else 'them'} out of systems")
            if not beats[np.ix_(rest, g)].any():
                out.add(shown, f"{names(g)} never {'loses' if len(g) == 1 else 'lose'} to or {'ties' if len(g) == 1 else 'tie'} "
                        f"any other system: {'its strength is' if len(g) == 1 else 'their strengths are'} infinite "
                        "(Bradley-Terry's maximum likelihood is not finite); add such votes, or leave "
                        f"{'it' if len(g) == 1 else 'them'} out of systems")


def _stripped(codes: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Codes and names with blanks around each name removed (names that then coincide merged)."""
    clean = [n.strip() for n in names]
    merged = list(dict.fromkeys(clean))
    if len(merged) == len(clean):
        return codes, clean
    where = {n: i for i, n in enumerate(merged)}
    return np.array([where[n] for n in clean], dtype=np.int64)[codes], merged


def _first_appearance(a_codes: np.ndarray, a_names: list[str], b_codes: np.ndarray, b_names: list[str]) -> list[str]:
    """Names of both columns in order of first appearance, row by row, a before b."""
    first_a, first_b = first_rows(a_codes, len(a_names)), first_rows(b_codes, len(b_names))
    seen: dict[str, float] = {}
    for names, first, offset in ((a_names, first_a, 0.0), (b_names, first_b, 0.5)):
        for n, f in zip(names, first):
            seen[n] = min(seen.get(n, np.inf), f + offset)
    return sorted(seen, key=lambda n: seen[n])


def _codes(key: tuple[np.ndarray, list[str]] | None, rows: np.ndarray) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """A column's codes over the kept rows, renumbered over the names they use (in order of first use)."""
    if key is None:
        return None, ()
    codes, names = key
    kept = codes[rows]
    used, first, inverse = np.unique(kept, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse].astype(np.int64), tuple(names[used[k]] for k in order)
