"""Datapoints: the items of an evaluation, loaded from a table (or the hub) and sampled over
the strata of declared target attributes (``assay datapoints``)."""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._items": ["DatapointSample", "FIELDS", "load_items", "sample_items", "write_datapoints"],
    "assay.stats.sampling": ["STRATEGIES", "equal_allocation", "proportional_allocation", "sample_indices"],
})
