"""assay.judge's public surface: __all__ sorted, complete and importable; openai loaded lazily."""

from __future__ import annotations

import inspect
import subprocess
import sys

import assay.judge


def test_all_is_sorted_and_every_name_exists():
    names = assay.judge.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))  # constants first (ruff RUF022)
    for name in names:
        assert getattr(assay.judge, name) is not None, name


def test_every_public_attribute_is_listed():
    helpers = ("annotations", "TYPE_CHECKING")
    public = {n for n, v in vars(assay.judge).items()
              if not n.startswith("_") and not inspect.ismodule(v) and n not in helpers}
    assert public - set(assay.judge.__all__) == set()


def test_reading_a_store_does_not_import_openai():
    code = ("import sys, assay.judge.store; assert 'openai' not in sys.modules; "
            "import assay.judge; assay.judge.LLMClient; assert 'openai' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
