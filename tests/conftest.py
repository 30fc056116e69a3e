"""Fixtures shared by several test modules."""

from clusterproc import two_processes, two_processes_long_lease

__all__ = ["two_processes", "two_processes_long_lease"]
