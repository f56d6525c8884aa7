"""assay.analysis."""
