"""The version of assay, in one place."""

__version__ = "0.1.0"
