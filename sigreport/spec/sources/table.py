"""A score table (the default format): one or several files, long or wide, names from file names."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from sigreport.spec.base import _Model
from sigreport.spec.sources.declaration import SourceFormat, no_metrics


class TableSource(_Model):
    """A score table with how to read it: its layout, several files by a glob, names taken from file names."""

    format: Literal["table"] = Field("table", description="A table of scores (the default format).")
    path: str | None = Field(
        None, description="The table (.csv, .tsv, .jsonl, .parquet), or a glob pattern of several (data/*.csv); "
        "leave it out when a data frame is given to the Python API.")
    layout: Literal["long", "wide"] = Field(
        "long", description="long: one score per row (system, corpus, item, metric, value); wide: one row per "
        "corpus or item (see rows) and one column per system, or two header rows of metric and system "
        "(header: [metric, system]).")
    rows: Literal["item", "corpus"] = Field(
        "item", description="Wide layout: what a row is; its name is in the first column (or the data frame's "
        "index).")
    header: list[Literal["metric", "system"]] = Field(
        default_factory=lambda: ["system"], min_length=1, max_length=2,
        description="Wide layout: the header rows (a data frame's column levels), e.g. [metric, system].")
    from_name: str | None = Field(
        None, description="Names taken from each file's name: a pattern with {system}, {corpus} and/or {metric} "
        "(e.g. '{system}.csv' or '{corpus}/{system}.csv', matched against the end of the path); those columns "
        "are then not in the files.")

    @model_validator(mode="after")
    def _consistent(self) -> "TableSource":
        if self.layout == "wide" and len(set(self.header)) != len(self.header):
            raise ValueError("header lists a level more than once")
        if self.from_name is not None:
            names = re.findall(r"{([^{}]*)}", self.from_name)
            bad = [n for n in names if n not in ("system", "corpus", "metric")]
            if bad or not names or len(set(names)) != len(names):
                raise ValueError("from_name needs one or more of {system}, {corpus}, {metric}, each once; given "
                                 f"{', '.join('{' + n + '}' for n in names) or 'none'}")
            if self.layout == "wide" and ("system" in names or ("metric" in names and "metric" in self.header)):
                raise ValueError("a wide table has its systems in the header: from_name may name {corpus} (and "
                                 "{metric} when the header has no metric row)")
        return self


FORMAT = SourceFormat(name="table", model=TableSource, reader="sigreport.data.sources.tables:read_table_source",
                      path_fields=("path",), default_metrics=no_metrics, reads_frame=True)
