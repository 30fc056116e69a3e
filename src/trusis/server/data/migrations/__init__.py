"""Alembic migrations of the server's schema, run by `trusis serve` at every start."""
