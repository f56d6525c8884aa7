"""assay.demo."""
