"""The data layer: tables named in the spec -> one typed, checked :class:`Dataset`.

Modules: ``model`` (Dataset, Block, Predictions, Annotations), ``tables`` (the one ``read_table``, line
numbers), ``scores``, ``predictions``, ``annotations`` (one reader each), ``aggregates`` (corpus-level
metric functions, user aggregates), ``corpora`` (``tests.level: corpora``), ``dataset``
(``load_data``). Nothing here runs a test; this layer imports only errors, spec and stats.
"""

from sigreport.data.dataset import left_out_warnings, load_data, with_frames
from sigreport.data.model import (AnnotationGroup, Annotations, Block, DataFile, Dataset, LeftOut, OutcomeGroup, Outcomes,
                                  PredictionGroup, Predictions)
from sigreport.data.tables import MAX_ROWS_SHOWN, Table, read_table

__all__ = ["AnnotationGroup", "Annotations", "Block", "DataFile", "Dataset", "LeftOut", "MAX_ROWS_SHOWN", "OutcomeGroup",
           "Outcomes", "PredictionGroup",
           "Predictions", "Table", "left_out_warnings", "load_data", "read_table",
           "with_frames"]
