"""The tactical solver's benchmarks (engine.tactics: Bayesian proof search, PP, and proof-number
search, PNS, on "can this block be captured?").

- B1: nodes to solve, PP against PNS under one node budget and move generator, on capture problems
  from the tesuji collections of tsumego.tar.xz and every `attack` test of GnuGo's reading.tst.
- B2: learned leaf priors (bench/configs/tactics/b2.yaml) trained on a train/test split of the tsumego
  problems that PNS or PP proves, then frozen and tested against PNS and PP with uniform priors.
- B3: reading.tst through GTP `attack`/`defend`, our engine as a subprocess beside GnuGo, scored as
  GnuGo's regression scores it.
- ladder: the move features' ladder reader (engine.ladder, which the playout policy also asks) against the solver, GnuGo as the
  reference.

Run as `python -m bench.tactics` (cli). The modules, in dependency order:

    results     the records (bench/results/tactics/<slug>/): folder, per-item rows, figures
    problems    the problem sources: tsumego archive problems, reading.tst parser and positions,
                problem_key and the distinct pool
    b1          B1
    training    B2's leaf-prior configurations and their training (the leaf-prior models' one import)
    b2config    bench/configs/tactics/b2.yaml, read and validated
    labels      B2's known-TRUE labels and their cache file
    report      B2's statistics against PNS, and the reports of recorded runs
    b2          B2's runs, and `--save-prior`
    b3          B3, and the command line of our GTP engine with reading settings
    ladder      the ladder check
    cli         the options and the driver (__main__ runs it)
"""
