"""Tests of assay.stats (a package so that test module names cannot clash across folders)."""
