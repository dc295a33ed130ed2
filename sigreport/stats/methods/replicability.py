"""The combinations of the partial-conjunction procedure (``tests.replicability``; Dror et al. 2017), declared
once: their spec names, display names and references, read by the spec's allowed values, the computation
(:mod:`sigreport.stats.replicability`), the report's table and the methods paragraph. No numpy here: the spec
imports it."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True, kw_only=True)
class CombinationDeclaration:
    """How a partial-conjunction p-value combines the N - u + 1 largest p-values."""

    name: str  # the spec's tests.replicability value
    display: str  # "Bonferroni"
    formula: str  # in words, for the table's note
    references: tuple[str, ...]


BONFERRONI = CombinationDeclaration(name="bonferroni", display="Bonferroni",
                                    formula="min(1, (N \u2212 u + 1) p(u)), p(u) the u-th smallest p-value",
                                    references=("dror2017",))
FISHER = CombinationDeclaration(name="fisher", display="Fisher",
                                formula="P(\u03c7\u00b2 with 2(N \u2212 u + 1) df \u2265 \u22122 \u03a3 ln p(i), i \u2265 u)",
                                references=("dror2017",))
DECLARATIONS = (BONFERRONI, FISHER)
NAMES: tuple[str, ...] = tuple(d.name for d in DECLARATIONS)


def combination(name: str) -> CombinationDeclaration:
    """The declaration of ``name``; ValueError naming the known ones for any other."""
    found = next((d for d in DECLARATIONS if d.name == name), None)
    if found is None:
        raise ValueError(f"unknown partial-conjunction method {name!r}; known: {', '.join(NAMES)}")
    return found
