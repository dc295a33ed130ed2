"""MT or summarisation outputs as text files with their references, scored by sacrebleu (sigreport[mt])."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat, listed


TEXT_METRICS = {  # sacrebleu metric -> (per-sentence statistics, higher is better, label)
    "bleu": (10, True, "BLEU"), "chrf": (18, True, "chrF2"), "chrf++": (24, True, "chrF2++"), "ter": (2, False, "TER")}


class TextSource(_Model):
    """MT or summarisation outputs as text files (line i = sentence i), scored by sacrebleu (sigreport[mt])."""

    format: Literal["text"]
    hypotheses: dict[str, str] = Field(min_length=1, description="System -> its output file (one sentence a line).")
    references: list[str] = Field(min_length=1, description="Reference files (one per reference set), same lines.")
    metrics: list[Literal["bleu", "chrf", "chrf++", "ter"]] = Field(
        default_factory=lambda: ["bleu", "chrf"], min_length=1,
        description="sacrebleu metrics, each held as per-sentence sufficient statistics so that its corpus value "
        "is resampled exactly (corpus-level: tests.pairwise auto, the default here, permutation or bootstrap). "
        "Each becomes a metric of the spec (override its label or decimals under metrics).")
    corpus: str | None = Field(None, min_length=1, description="The test set's name (default: the one corpus the "
                               "spec names, else 'test').")
    tokenize: str | None = Field(None, description="sacrebleu's BLEU tokenizer (default 13a; zh, intl, char, none, ...).")
    lowercase: bool = Field(False, description="Lowercase before scoring BLEU and chrF (sacrebleu's -lc; its "
                            "default: case-sensitive).")
    ter_case_sensitive: bool = Field(False, description="Case-sensitive TER (sacrebleu's --ter-case-sensitive; its "
                                     "default: TER is case-insensitive).")


def text_metrics(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each sacrebleu metric chosen, held as its per-sentence sufficient statistics under its corpus aggregate."""
    out = {}
    for m in listed(raw, "metrics", ["bleu", "chrf"]):
        if m in TEXT_METRICS:
            n, higher, label = TEXT_METRICS[m]
            out[m] = {"label": label, "higher_is_better": higher, "decimals": 2,
                      "aggregate": f"sigreport.sacrebleu:{m}", "statistics": [f"{m}:{j}" for j in range(n)]}
    return out


FORMAT = SourceFormat(name="text", model=TextSource, reader="sigreport.data.sources.text:text_source",
                      path_fields=("hypotheses", "references"), default_metrics=text_metrics, optional_library=True)
