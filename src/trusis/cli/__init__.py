"""The `trusis` command: `main` builds it from one module per subcommand.

Shared helpers live in `common`, below every subcommand, so that imports run
downward only.
"""
