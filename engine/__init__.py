"""The engine core: rules, playouts, tree search, time control, scoring, and the builder of a player.

Owns the Go logic. Knows nothing of the move priors' models: the search receives a prior as an object
with `evaluate(board, color)` (and optionally `move_kernel(n_slots)`, a `MoveKernel`), and the builder loads one through the loader its caller hands over
(`priors.base.load_prior`). The tactical solver's leaf priors, which learn from the solver's own
searches, live with it in `tactics/`. Knows nothing of the GTP protocol beyond vertex names
(`coords`). Modules, in dependency order:

- `rng.pxd`      PCG32 random numbers, one state per thread
- `coords`       vertex names (`D4`, `pass`) <-> points, with one point in every notation
- `board`        rules: stones, groups, liberties, captures, ko, Zobrist hashing, 3x3 codes, area scoring
- `ladder`       ladder reading: one bounded depth-first reader, for the move features and the playout
                 policy's ladder rules
- `policy_eyes.pxd`, `policy_replies.pxd`  inline helpers of the playout policy: small eye spaces (nakade
                 vital points, dead shapes, useful self-ataris) and the last good replies
- `playout`      the fast playout policy (captures, escapes, 3x3 shapes, self-atari and eye filters, and
                 the optional ko, ladder, nakade and fill-board rules)
- `knobs`        a parameter field's default, bound and meaning, declared once; the check derived from them
- `params`       typed parameters of every component: the table of knobs
- `configfile`   the one YAML reader and ConfigError of every kind of config (engine, match, training, ...)
- `config`       engine configs: YAML and `--set` into `params`, old keys deprecated, default.yaml generated
- `tree`         the node store: a preallocated C array, children contiguous, compaction for reuse
- `selection.pxd`  the selection formula (UCT with RAVE) and the prior's shaping: temperature and floor,
                 the additive term, virtual wins, progressive widening; inline for the walk
- `move_kernel`  MoveKernel: the face a move prior may offer the search to be evaluated without the GIL
- `reuse.pxd`    positions the tree keeps or grows into: the new root within two moves, superko repeats
- `report`       what the tree tells its readers: best move, principal variation, root children, ownership
- `search`       the walk (select, expand, play out, back up), threads, tree reuse, the Search class
- `game`         the game record: moves, undo, handicap, positional superko, SGF
- `modelfile`    `.npz` model files with a JSON header, read without pickles (every learned model's)
- `tactics/`     capture reading, a package (its `__init__` lists its modules): Bayesian proof search and
                 proof-number search on one node store, the capture goal, GnuGo's reading results, and
                 the learned leaf priors that guide it
- `timecontrol`  how long to think under absolute, byo-yomi and Canadian time
- `scoring`      dead stones and final score from playout ownership
- `ponder`       searching on the opponent's time and in sliced runs for analysis output
- `player`       a game plus a search: genmove, final_score, final_status_list
- `builder`      players and searches from parameters (the move prior through the caller's loader), and
                 the solver's leaf prior that `reading.prior` names: for gtp.server and in-process benches
"""

__version__ = "0.1.0"
