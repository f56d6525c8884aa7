"""assay.data.importers."""
