"""The public surface is curated: __all__ is sorted, complete and importable."""

import inspect

import assay


def test_all_is_sorted_and_every_name_exists():
    assert assay.__all__ == sorted(assay.__all__)
    for name in assay.__all__:
        assert hasattr(assay, name), name


def test_every_public_attribute_is_listed():
    public = {n for n, v in vars(assay).items()
              if not n.startswith("_") and not inspect.ismodule(v) and n != "annotations"}
    assert public - set(assay.__all__) == set()
