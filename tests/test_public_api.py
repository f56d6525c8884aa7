"""The public surface is curated: __all__ is sorted, complete and importable."""

import inspect

import assay


def test_all_is_sorted_and_every_name_exists():
    assert assay.__all__ == sorted(assay.__all__)
    for name in assay.__all__:
        assert hasattr(assay, name), name


def test_every_public_attribute_is_listed():
    helpers = ("annotations", "TYPE_CHECKING")
    public = {n for n, v in vars(assay).items()
              if not n.startswith("_") and not inspect.ismodule(v) and n not in helpers}
    assert public - set(assay.__all__) == set()


def test_import_assay_loads_no_analysis_stack():
    """`import assay` (and so the CLI's start-up) loads neither scipy nor pandas; a name loads its module."""
    import subprocess
    import sys

    code = ("import sys, assay; assert not {'scipy', 'pandas'} & set(sys.modules), sorted(sys.modules); "
            "assay.win_rates; assert 'scipy' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
