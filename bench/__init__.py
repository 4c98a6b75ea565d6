"""Benchmarks and experiments, one module per question, each runnable as `python -m bench.<name>`.

Engines are driven only through GTP subprocesses, ours included. Results go under `bench/results/`.

- `gtpclient`  a GTP subprocess with timeouts and restarts
- `speed`      playouts per second of the search and of raw playouts
- `rules`      replays the expert archives and compares every position with sgfmill
- `match`      config-driven matches between GTP engines, on a process pool or a Dask cluster
"""
