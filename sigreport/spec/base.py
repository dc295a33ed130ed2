"""The base of every spec model, and the error a cross-field rule raises at the field it belongs to.

Apart from :mod:`sigreport.spec.models` so that an input format's model (:mod:`sigreport.spec.sources`) can
derive from it without importing the whole spec.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class _At(ValueError):
    """A cross-field problem that belongs to one field: its path (keys of the YAML) gives the line."""

    def __init__(self, path: tuple[Any, ...], message: str):
        super().__init__(message)
        self.path = path


class _Model(BaseModel):
    """Base of every spec model: unknown keys refused, immutable, and no silent type coercion."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
