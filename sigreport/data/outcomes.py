"""Paired yes/no outcomes without gold labels (``data.outcomes``): one outcome per system and subject.

Two or more conditions (systems) observed on the same subjects (items), each outcome yes or no: what
McNemar's test (two conditions) and Cochran's Q (more) compare, with no gold label to be right or wrong
against. The table is read like the score table (long, or wide with one row per subject and one column
per condition; ``data.outcome_columns`` maps its column names), and each outcome must be 1/0,
true/false or yes/no.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sigreport.data.label_tables import Collector, listing
from sigreport.data.model import OutcomeGroup, Outcomes
from sigreport.data.sources.tables import table_source
from sigreport.data.tables import MAX_ROWS_SHOWN, Table, control_problems, factorize
from sigreport.errors import did_you_mean
from sigreport.spec import SpecFile, TableSource

if TYPE_CHECKING:
    import pandas as pd

YES = ("1", "1.0", "true", "yes", "y")
NO = ("0", "0.0", "false", "no", "n")
ONE_CORPUS = "all"  # the corpus of a table without a corpus column when the spec names none


def read_outcomes(sf: SpecFile, out: Collector, frame: pd.DataFrame | None = None) -> tuple[Table, Outcomes | None]:
    """Read and check ``data.outcomes``; problems go to ``out``."""
    spec = sf.spec
    source = spec.data.outcomes
    source = TableSource(path=source) if isinstance(source, str) else source or TableSource()
    cols = spec.data.outcome_columns
    table = table_source(sf, source, frame, cols, "outcomes")
    shown = str(table.path)
    corpus = spec.corpora[0] if spec.corpora is not None and len(spec.corpora) == 1 else ONE_CORPUS
    wanted = {"system": cols.system, "item": cols.item, "value": cols.value}
    missing = [c for c in wanted.values() if c not in table.columns]
    if missing:
        out.add(shown, f"missing column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}; present: "
                f"{', '.join(map(repr, table.columns))}" + ("" if cols == type(cols)() else
                                                             " (mapped in data.outcome_columns)"))
        return table, None
    if not len(table):
        out.add(shown, "the table has no rows")
        return table, None
    keys = {role: factorize(table.cells[c]) for role, c in wanted.items() if role != "value"}
    keys["corpus"] = factorize(table.cells[cols.corpus]) if cols.corpus in table.columns else \
        (np.zeros(len(table), dtype=np.int64), [corpus])
    out.extend(control_problems(table, {k: getattr(cols, k) for k in keys}, keys))
    value = _yes_no(table, table.cells[cols.value], cols.value, out)
    if value is None or out:
        return table, None
    systems = list(spec.systems) if spec.systems else keys["system"][1]
    for i, s in enumerate(spec.systems or []):
        if s not in keys["system"][1]:
            out.add_spec(f"system {s!r} is not in {shown}{did_you_mean(s, keys['system'][1])}; present: "
                         f"{', '.join(keys['system'][1])}", "systems", i)
    if len(systems) < 2:
        out.add(shown, f"paired outcomes need two or more systems (conditions); found {listing(systems)}")
    if out:
        return table, None
    groups = {}
    for c, name in enumerate(keys["corpus"][1]):
        if spec.corpora and name not in spec.corpora:
            continue
        group = _group(sf, table, keys, value, c, name, systems, out)
        if group is not None:
            groups[name] = group
    return table, Outcomes(shown, tuple(systems), tuple(groups), groups)


def _yes_no(table: Table, cells: object, column: str, out: Collector) -> np.ndarray | None:
    """Each cell as True (1, true, yes) or False (0, false, no); anything else is a problem naming its lines."""
    codes, names = factorize(cells)  # type: ignore[arg-type]
    lower = [n.strip().lower() for n in names]
    bad = [k for k, n in enumerate(lower) if n not in YES and n not in NO]
    if bad:
        at = table.places[np.isin(codes, bad)]
        out.add(str(table.path), f"column {column!r} at {table.where(at)}: {listing([names[k] for k in bad])} "
                "is not a yes/no outcome (1/0, true/false, yes/no)")
        return None
    return np.array([n in YES for n in lower], dtype=bool)[codes]


def _group(sf: SpecFile, table: Table, keys: dict, value: np.ndarray, c: int, corpus: str, systems: list[str],
           out: Collector) -> OutcomeGroup | None:
    """The subjects x systems outcomes of one corpus; a duplicate or a missing outcome is a problem (or, with
    data.missing: drop_items, the subject is dropped)."""
    shown = str(table.path)
    rows = np.flatnonzero(keys["corpus"][0] == c)
    index = {s: j for j, s in enumerate(systems)}
    sys_of = np.array([index.get(n, -1) for n in keys["system"][1]], dtype=np.int64)[keys["system"][0][rows]]
    rows, sys_of = rows[sys_of >= 0], sys_of[sys_of >= 0]
    item_codes = keys["item"][0][rows]
    items, item_of = np.unique(item_codes, return_inverse=True)
    order = np.argsort([np.flatnonzero(item_codes == i)[0] for i in items], kind="stable")  # first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    item_of = rank[item_of]
    names = [keys["item"][1][items[k]] for k in order]
    count = np.zeros((len(names), len(systems)), dtype=np.int64)
    np.add.at(count, (item_of, sys_of), 1)
    if (count > 1).any():
        i, j = np.argwhere(count > 1)[0]
        dup = rows[(item_of == i) & (sys_of == j)]
        out.add(shown, f"corpus {corpus!r}: several outcomes of {systems[j]} for item {names[i]!r} at "
                f"{table.where(table.places[dup])}")
        return None
    outcome = np.zeros((len(names), len(systems)), dtype=bool)
    outcome[item_of, sys_of] = value[rows]
    holes = count == 0
    dropped = 0
    if holes.any():
        if sf.spec.data.missing == "error":
            where = list(zip(*np.nonzero(holes)))
            desc = ", ".join(f"{systems[j]} lacks item {names[i]!r}" for i, j in where[:MAX_ROWS_SHOWN])
            out.add(shown, f"corpus {corpus!r}: {desc} that another system has (set data.missing: drop_items to "
                    "analyse only the items every system has)")
            return None
        keep = ~holes.any(axis=1)
        dropped = int((~keep).sum())
        outcome = outcome[keep]
        names = [n for n, k in zip(names, keep) if k]
    return OutcomeGroup(corpus, tuple(names), outcome, dropped)
