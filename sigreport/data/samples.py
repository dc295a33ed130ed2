"""Several answers per question (``data.columns.sample``): each question's mean over its answers, and the
pass@k metrics (``metrics.M.pass_at_k``) made from the answers.

A question may have a different number of answers per system or per question (a run cut short): its mean is
over the answers it has (each question weighs the same in the mean over questions, as Miller 2024 does), and
the analyses say how many questions have fewer answers than the most (:func:`uneven_answers`). pass@k needs
k answers or more on every question (Chen et al.'s estimator is undefined below); a k above that is an error
naming the spec line.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sigreport.data.model import Block, BlockKey
from sigreport.errors import Problem
from sigreport.spec import MetricSpec, SpecFile
from sigreport.stats.samples import pass_at_k, pass_at_k_name


def sample_means(codes: np.ndarray, n_samples: int, item_rows: np.ndarray, cols: np.ndarray, stat: np.ndarray,
                 values: np.ndarray, n_items: int, k: int, n_stats: int) -> tuple[np.ndarray, np.ndarray]:
    """(items x systems x statistics means over each question's answers, items x systems x answers of the first
    statistic with NaN where an answer is absent). ``codes``: each row's answer index."""
    full = np.full((n_items, k, n_stats, n_samples), np.nan)
    full[item_rows, cols, stat, codes] = values
    present = ~np.isnan(full)
    counts = present.sum(axis=3)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, np.nansum(full, axis=3) / np.maximum(counts, 1), np.nan)
    return mean, full[:, :, 0, :]


def answer_counts(samples: np.ndarray) -> np.ndarray:
    """Items x systems: the answers each question has."""
    return (~np.isnan(samples)).sum(axis=2)


def uneven_answers(block: Block) -> str | None:
    """The warning a block with unequal answers per question needs (None when every question has as many
    answers as the most), naming the first such questions."""
    if block.samples is None:
        return None
    counts = answer_counts(block.samples)
    most = int(counts.max(initial=0))
    short = np.argwhere(counts < most)
    if not len(short):
        return None
    shown = ", ".join(f"{block.items[i]!r} ({block.systems[j]}: {counts[i, j]} of {most})" for i, j in short[:3])
    more = f" and {len(short) - 3} more" if len(short) > 3 else ""
    return (f"{len(short)} question-system pair(s) have fewer answers than the most ({most}): {shown}{more}; each "
            "question's score is the mean of the answers it has")


def pass_at_k_blocks(sf: SpecFile, blocks: dict[BlockKey, Block], problems: list[Problem]
                     ) -> tuple[dict[BlockKey, Block], dict[str, MetricSpec]]:
    """For every metric with ``pass_at_k``, one metric per k (``<metric>_pass@k``) and its blocks: per question
    and system, Chen et al.'s pass@k from the question's answers. Problems: no sample column, answers other
    than 0 and 1, a k above some question's answers (each with its spec line)."""
    spec = sf.spec
    out: dict[BlockKey, Block] = {}
    specs: dict[str, MetricSpec] = {}
    for metric, mspec in spec.metrics.items():
        if not mspec.pass_at_k:
            continue
        if spec.data.columns.sample is None:
            problems.append(sf.problem("pass_at_k needs several answers per question: name their column in "
                                       "data.columns.sample", "metrics", metric, "pass_at_k"))
            continue
        mine = [(corpus, b) for (m, corpus), b in blocks.items() if m == metric and b.samples is not None]
        bad = [corpus for corpus, b in mine if not np.all(np.isnan(b.samples) | (b.samples == 0) | (b.samples == 1))]
        if bad:
            problems.append(sf.problem(f"pass_at_k needs answers scored 0 or 1; metric {metric!r} has other values "
                                       f"on corpus {bad[0]!r}", "metrics", metric, "pass_at_k"))
            continue
        for idx, k in enumerate(mspec.pass_at_k):
            name = pass_at_k_name(metric, k)
            if name in spec.metrics:
                problems.append(sf.problem(f"{name!r} is also a metric of the spec; rename it", "metrics", metric,
                                           "pass_at_k", idx))
                continue
            fewest = [(int(answer_counts(b.samples).min()), corpus) for corpus, b in mine if b.samples.size]
            short = [(n, corpus) for n, corpus in fewest if n < k]
            if short:
                n, corpus = min(short)
                problems.append(sf.problem(f"pass@{k} needs at least {k} answers per question; a question of corpus "
                                           f"{corpus!r} has {n}", "metrics", metric, "pass_at_k", idx))
                continue
            label = f"{mspec.label or metric} pass@{k}"
            specs[name] = mspec.model_copy(update={"label": label, "pass_at_k": None, "binary": None})
            for corpus, b in mine:
                assert b.samples is not None
                present = ~np.isnan(b.samples)
                values = pass_at_k(present.sum(axis=2), np.nansum(b.samples, axis=2), k)
                out[(name, corpus)] = dataclasses.replace(b, metric=name, stats=values[:, :, None], samples=None,
                                                          sample_names=None)
    return out, specs
