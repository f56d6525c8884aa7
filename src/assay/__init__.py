"""assay: evaluate LLM systems with LLM judges and read the results with honest statistics."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
