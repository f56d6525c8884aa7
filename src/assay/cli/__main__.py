"""``python -m assay.cli``."""

from assay.cli import main

main()
