"""The annotations table (``item, annotator, label``, optionally ``corpus``): ratings for agreement.

``read_annotations`` checks the table and turns it into label codes per corpus
(:class:`~sigreport.data.model.Annotations`, -1 = no rating), with numeric label values at the
interval level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

import math

import numpy as np

from sigreport.data.label_tables import (Collector, check_blank, declared_list, listing, read_label_table,
                                         undeclared)
from sigreport.data.model import AnnotationGroup, Annotations
from sigreport.data.tables import Table
from sigreport.spec import AgreementSpec, SpecFile


def _as_number(x: str) -> float | None:
    try:
        v = float(x)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_annotations(sf: SpecFile, out: Collector, frame: "pd.DataFrame | None" = None
                     ) -> tuple[Table, Annotations | None]:
    """Read and check ``data.annotations``; problems go to ``out``."""
    spec = sf.spec
    agr = spec.agreement or AgreementSpec()
    lc = spec.data.label_columns
    wanted = {"item": lc.item, "annotator": lc.annotator, "label": lc.label}
    table = read_label_table(sf, spec.data.annotations, "data.annotations", wanted, {"corpus": lc.corpus}, lc != type(lc)(), out, frame)
    path, df = table.path, table.frame
    shown = str(path)
    has_corpus = "corpus" in df.columns
    keys = (["corpus"] if has_corpus else []) + ["item", "annotator"]
    check_blank(table, keys + ["label"], out,
                 {"label": "label (leave the row out for a missing rating)"})
    dup = df.index[df.duplicated(keys, keep=False)]
    if len(dup):
        r = df.loc[dup[0]]
        out.add(shown, f"duplicate ({', '.join(keys)}) rows at {table.where(dup)} "
                f"(first: {', '.join(str(r[k]) for k in keys)})")
    annotators = [a for a in dict.fromkeys(df["annotator"]) if a != ""]
    if len(annotators) < 2:
        who = f" ({annotators[0]!r})" if annotators else ""
        out.add(shown, f"only one annotator{who} in column {lc.annotator!r}: agreement needs two or more "
                "annotators rating the same items")
    used = [x for x in dict.fromkeys(df["label"]) if x != ""]
    order = declared_list(agr.order, out, "agreement", "order")
    values: tuple[float, ...] | None = None
    if order is not None:
        undeclared(table, {"label": "label"}, order, "agreement.order", out)
        labels = order
    else:
        labels = used
    if agr.level == "interval":
        nums = {lab: _as_number(lab) for lab in labels}
        bad_labels = [lab for lab, v in nums.items() if v is None]
        if bad_labels:
            bad = df.index[df["label"].isin(bad_labels)]
            out.add(shown, f"agreement.level is interval, but label{'s' if len(bad_labels) > 1 else ''} "
                    f"{listing(bad_labels)} at {table.where(bad)} {'are' if len(bad_labels) > 1 else 'is'} "
                    "not a number")
        elif order is None:
            labels = sorted(labels, key=lambda lab: nums[lab])
        if not bad_labels:
            values = tuple(float(nums[lab]) for lab in labels)  # type: ignore[arg-type]
            if len(set(values)) != len(values):
                out.add(shown, "agreement.level is interval, but some labels are the same number written "
                        "differently (e.g. 1 and 1.0); write each value one way")
    present_corpora = list(dict.fromkeys(df["corpus"])) if has_corpus else []
    if out.data or out.spec:
        return table, None

    corpora: list[str | None]
    if has_corpus:
        corpora = [c for c in spec.corpora if c in present_corpora] if spec.corpora else present_corpora
        if not corpora:
            out.add_spec(f"none of the corpora is in {shown}; present: {', '.join(present_corpora)}", "corpora")
            return table, None
    else:
        corpora = [None]
    code = {lab: i for i, lab in enumerate(labels)}
    groups: dict[str | None, AnnotationGroup] = {}
    for corpus in corpora:
        sub = df[df["corpus"] == corpus] if corpus is not None else df
        items = list(dict.fromkeys(sub["item"]))
        who = [a for a in annotators if (sub["annotator"] == a).any()]
        ratings = np.full((len(items), len(who)), -1, dtype=np.int64)
        ratings[sub["item"].map({it: i for i, it in enumerate(items)}).to_numpy(),
                sub["annotator"].map({a: j for j, a in enumerate(who)}).to_numpy()] = sub["label"].map(code).to_numpy()
        groups[corpus] = AnnotationGroup(corpus, tuple(items), tuple(who), ratings)
    return table, Annotations(shown, tuple(labels), values, tuple(annotators), groups)
