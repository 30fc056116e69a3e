"""`python -m trusis` runs the `trusis` command."""

from trusis.cli.main import main

main()
