"""TREC runs with their qrels, scored per query by ir_measures (sigreport[ir])."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat, listed


class TrecSource(_Model):
    """TREC runs with their qrels, per-query values from ir_measures (pytrec_eval; sigreport[ir])."""

    format: Literal["trec"]
    runs: str = Field(description="Run file(s), a glob pattern (runs/*.run): 'qid Q0 docid rank score tag' lines "
                      "(fields after the tag ignored, as trec_eval does); each file is a system, named as "
                      "system_name says.")
    system_name: Literal["tag", "stem"] = Field(
        "tag", description="What names each run: tag (its run tag, the lines' 6th field, as trec_eval reports it; "
        "one tag a file) or stem (the file name without its suffix). Two runs of one name are an error.")
    qrels: str = Field(description="Relevance judgements: 'qid iteration docid relevance' lines, one a document "
                       "and query.")
    measures: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=lambda: ["nDCG@10", "RR", "AP"], min_length=1,
        description="ir_measures measure names (nDCG@10, RR, AP, P@10, R@1000, ...) or trec_eval's (ndcg_cut_10, "
        "recip_rank, map, P_10, recall_1000, ...), each a per-query metric (higher is better).")
    missing: Literal["zero", "drop"] = Field(
        "zero", description="A query of the qrels that a run does not answer: zero (scored as an empty ranking, as "
        "trec_eval -c does: 0, and NumRel its judged count) or drop (only queries every run answers are analysed).")
    corpus: str | None = Field(None, min_length=1, description="The collection's name (default: the one corpus the "
                               "spec names, else the qrels file name without its suffix).")


def trec_metrics(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each measure a per-query metric, labelled by its name, higher is better."""
    return {m: {"label": m, **fields} for m, fields in listed(raw, "measures", ["nDCG@10", "RR", "AP"],
                                                               higher_is_better=True, decimals=4).items()}


FORMAT = SourceFormat(name="trec", model=TrecSource, reader="sigreport.data.sources.trec:trec_source",
                      path_fields=("runs", "qrels"), default_metrics=trec_metrics, optional_library=True)
