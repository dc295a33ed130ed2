"""The multiple-comparison corrections' declarations (kind ``correction``, ``tests.correction``): each one's spec
value, display name, references and ``compute`` ((p-values) -> adjusted p-values in the same order, NaN left out
of the family: :func:`sigreport.stats.correction.adjust`, R's ``p.adjust``). The spec's allowed values, the
analyses' adjustment, the report's names and the methods paragraph's sentence read them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sigreport.stats.declaration import ProcedureDeclaration, no_mde

NO_MDE = no_mde("a correction adjusts a family's p-values; the power step reads its level per pair (alpha / m)")


def adjusting(name: str) -> Callable[[Any], Any]:
    """The adjustment of ``name`` (numpy imported when it runs: the spec imports these declarations)."""

    def compute(pvalues: Any) -> Any:
        from sigreport.stats import correction

        return correction.adjust(pvalues, name)

    return compute


def _declare(name: str, display: str, references: tuple[str, ...]) -> ProcedureDeclaration:
    return ProcedureDeclaration(kind="correction", name=name, spec_name=name, display=display, options={},
                                applies=("family",), record="PairwiseRecord", compute=adjusting(name), mde=NO_MDE,
                                references=references, citation=None, bibliography={}, random=False)


DECLARATIONS = (
    _declare("holm", "Holm", ("holm1979",)),
    _declare("bonferroni", "Bonferroni", ("dunn1961",)),
    _declare("hochberg", "Hochberg", ("hochberg1988",)),
    _declare("hommel", "Hommel", ("hommel1988",)),
    _declare("fdr_bh", "Benjamini-Hochberg", ("benjamini1995",)),
    _declare("fdr_by", "Benjamini-Yekutieli", ("benjamini2001",)),
    _declare("none", "no correction", ()),  # cites nothing: the p-values are left as they are
)
"""In the spec's order (``tests.correction``)."""
