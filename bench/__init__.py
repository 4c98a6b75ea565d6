"""Benchmarks and experiments, one module per question, each runnable as `python -m bench.<name>`.

Engines are driven only through GTP subprocesses, ours included. Results go under `bench/results/<bench>/<slug>/`.

- `records`     where a record goes (`results_folder`) and the commit it was measured at
- `gtpclient`    a GTP subprocess with timeouts and restarts
- `stats`        Wilson intervals and Elo differences
- `gameclock`    a timed game's settings and each side's clock (absolute, Japanese byo-yomi, Canadian)
- `matchconfig`  match configuration: engines, variants, board, games, time; validated
- `position`     the harness's own board, the judge of legality
- `game`         one game between two engines, scored and cross-checked with a referee
- `sgfout`       one SGF per game
- `report`       summary table, gogui-twogtp `.dat` file, win-rate plot
- `match`        config-driven matches between GTP engines, on a process pool or a Dask cluster
- `speed`        playouts per second of the search and of raw playouts
- `tactics`      the tactical solver's benchmarks B1-B3
- `rules`        replays the expert archives and compares every position with sgfmill
"""
