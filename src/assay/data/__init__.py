"""assay.data."""
