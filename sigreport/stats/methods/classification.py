"""McNemar's test and Cochran's Q on per-item correctness (kinds ``mcnemar`` and ``cochran_q``,
``tests.classification``): their names, options, references and records. The computation is
:func:`sigreport.stats.contingency.mcnemar` and :func:`~sigreport.stats.contingency.cochran_q`, run by
``sigreport.analyses.labels``; McNemar's record keeps the variant asked (:data:`MCNEMAR_VARIANTS`) as its method."""

from __future__ import annotations

from sigreport.stats.declaration import ProcedureDeclaration, no_mde

MCNEMAR_VARIANTS = ("auto", "exact", "chi2")
"""``tests.classification.mcnemar``: the exact binomial test, the chi-square, or auto (exact below 25
discordant pairs)."""
NO_MDE = no_mde("tests.power computes the minimum detectable difference of item-level pairwise families only")

MCNEMAR = ProcedureDeclaration(
    kind="mcnemar", name="mcnemar", spec_name=None, display="McNemar's test", record="McNemarRecord",
    applies=("item_correctness",), compute=None, mde=NO_MDE, references=("mcnemar1947",), citation=None,
    bibliography={}, random=False,
    options={f"{where}.{option}": text for where in ("classification", "outcomes") for option, text in (
        ("mcnemar", "the variant: " + ", ".join(MCNEMAR_VARIANTS)),
        ("mcnemar_correction", "the continuity correction of the chi-square"))})
COCHRAN_Q = ProcedureDeclaration(
    kind="cochran_q", name="cochran_q", spec_name=None, display="Cochran's Q test", record="CochranQRecord",
    applies=("item_correctness",), compute=None, mde=NO_MDE, references=("cochran1950",), citation=None,
    bibliography={}, random=False, options={"tests.omnibus": "none: not run (three or more systems otherwise)"})

DECLARATIONS = (MCNEMAR, COCHRAN_Q)
