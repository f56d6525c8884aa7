"""assay.stats."""
