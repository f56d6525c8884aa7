"""benchmark_qed's own functions as oracles (the ``qed`` extra): imported once, skipped with
the reason when the package is not installed.

Its import pulls in its LLM stack (litellm), which takes tens of seconds; the functions used
are pure pandas/scipy. Warnings raised while importing it are its own and are ignored."""

from __future__ import annotations

import functools
import importlib
import os
import warnings
from types import ModuleType

import pytest


@functools.cache
def _module(name: str) -> ModuleType | None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return importlib.import_module(name)
        except ImportError:
            return None


def qed(name: str) -> ModuleType:
    """``benchmark_qed.<name>``, or skip: the oracle is benchmark_qed itself."""
    module = _module(f"benchmark_qed.{name}")
    if module is None:
        pytest.skip("benchmark_qed is not installed (pip install 'assay[qed]'): its own "
                    "functions are the oracle of this test")
    return module


def quietly(function, *args, **kwargs):  # type: ignore[no-untyped-def]
    """Call a benchmark_qed function with its warnings (pandas, scipy) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)
