"""The version of sigreport (one place; the package metadata reads it)."""

__version__ = "0.1.0"
