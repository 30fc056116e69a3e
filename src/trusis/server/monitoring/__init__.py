"""How a process tells an operator how it is doing: Prometheus metrics, log lines (with no
credential in them), and the event loop's lag."""
