"""``tests.level: corpora`` (Demsar's setting): one score per system and corpus.

The one implementation for score metrics and classification test metrics alike: each corpus's block
is reduced to the metric's corpus value (its aggregate over the summed per-item statistics), and the
corpora become the rows of a single block analysed as a mean metric.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sigreport.data.model import Block
from sigreport.stats.resampling import CorpusMetric


def across_corpora(metric: str, per_corpus: Sequence[Block], aggregate: CorpusMetric) -> Block:
    """One block with a row per corpus: the metric's corpus-level value of every system."""
    values = np.asarray([aggregate.value(b.stats.sum(axis=0), b.stats.shape[0]) for b in per_corpus], dtype=float)
    dropped = sum(b.dropped_items for b in per_corpus)
    corpora = tuple(str(b.corpus) for b in per_corpus)
    return Block(metric, None, per_corpus[0].systems, corpora, values[:, :, None], dropped, "corpora")
