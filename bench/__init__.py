"""Benchmarks and experiments, one module per question, each runnable as `python -m bench.<name>`.

Games are played only between GTP subprocesses, ours included (`match`, `league`, `regress`, `scorecheck`,
the tactics bench's B3), so a match measures what a user gets. Measurements inside one process (`speed`,
`prior_cost`, the judge of `openings`) build the engine with the engine's own builder (`engine.builder`);
the solver's B1, B2 and ladder check and `rules` call `engine.tactics` and `engine.board` directly. No
bench imports `gtp`. Results go under `bench/results/<bench>/<slug>/`.

- `records`      where a record goes (`results_folder`), its run.json with the commit and machine of each
                 invocation, items and summaries (with the figures the results page reads), plots;
                 `RunError`, a run folder or engine that cannot be used
- `runlock`      one run at a time per folder: the flock on its run.lock
- `gtpclient`    a GTP subprocess with timeouts and restarts
- `stats`        Wilson intervals and Elo differences
- `sprt`         the sequential probability ratio test on Elo that a match can stop by, and its simulation
- `gameclock`    a timed game's settings and each side's clock (absolute, Japanese byo-yomi, Canadian)
- `matchconfig`  match configuration: engines, variants, board, games, time; validated
- `position`     the harness's own board, the judge of legality
- `game`         one game between two engines, scored and cross-checked with a referee
- `gamerecords`  a run's games.jsonl: compact game lines, and `read_games`, the one reader
- `probe`        each engine started once before a run: name, version, and that it takes the setup
- `executors`    where games are played: a process pool or a Dask cluster; the pool workers' signals
- `report`       summary table, gogui-twogtp `.dat` file, win-rate plot, the sequential summary
- `matchrun`     one match run: the resume check, the games still to play, the SPRT that stops them
- `runreport`    what a match run writes and shows: summary.txt/.json, `.dat` files, plot, progress line
- `match`        config-driven matches between GTP engines (`python -m bench.match`): the command line
                 (shared with `league`) and the run, locked, played and reported
- `sgf`          a match game as SGF, and `python -m bench.sgf`, which writes a run's SGFs from its records
- `league`       round robins between any engines on the match harness, rated by `ratings` (Bradley-Terry Elo)
- `openings`     balanced opening suites for paired games: built with the default engine's judge, loaded checked
- `paired`       two match runs against the same opponent, compared game by game
- `scorecheck`   our `final_score` against GnuGo's on finished match games
- `speed`        playouts per second of the search and of raw playouts
- `prior_cost`   the time per move each prior costs the search at equal playouts
- `predict`      move prediction of priors on unseen games: top-k, log-likelihood, time per position
- `harvest`      how many large patterns a training config's harvest keeps, without a fit
- `fbt_runs`     FBT settings over several seeds, scored on unseen games
- `spt_study`    the SPT parameter study (Tidwell 2012 Figs 5.1-5.5)
- `pbn_trends`   the PBN prediction trends on held-out games (Michalowski et al. 2011 Figs 3-5)
- `tactics`      the tactical solver's benchmarks B1-B3
- `regress`      GnuGo's regression suite: its move tests through any GTP engine
- `rules`        replays the expert archives and compares every position with sgfmill
"""
