"""`python -m trusis` runs the `trusis` command."""

from trusis.cli import main

main()
