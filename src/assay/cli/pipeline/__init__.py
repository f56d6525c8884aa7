"""The commands of the whole evaluation before and after judging: items, plans, ground truth,
baselines and export (``assay datapoints``, ``describe``, ``native-scores``, ``baselines``,
``export``).

Each module registers one command on the shared typer app when imported.
"""
