"""Fixtures shared by several test modules."""

from clusterproc import two_processes

__all__ = ["two_processes"]
