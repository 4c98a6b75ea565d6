"""Typed parameters, one frozen dataclass per component.

YAML keys, dataclass fields and constructor arguments share one snake_case name: the section
`search:` of a config fills `SearchParams`, and `--set search.n_threads=2` overrides one field.
`engine.config` loads and validates; constructors receive these objects, never raw dicts.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlayoutParams:
    capture_rate: int = 90       # % of moves that capture the last move's group when it is in atari
    save_rate: int = 90          # % that save own groups in atari next to the last move, when they can escape
    pattern_rate: int = 100      # % that play a 3x3 shape move around the last two moves
    self_atari_rate: int = 90    # % of checks that refuse self-atari of a group of >= 2 stones
    max_moves: int = 0           # playout length cap; 0 means 3 * board points


@dataclass(frozen=True)
class SearchParams:
    playouts: int = 10000        # playouts per move; 0 means use the clock only
    n_threads: int = 1           # search threads (run without the GIL)
    expand_visits: int = 8       # visits before a leaf grows children (Pachi)
    ucb_c: float = 0.0           # UCB exploration constant; RAVE does the exploring (Fuego, Pachi)
    rave_equiv: float = 0.0      # K in beta = n~/(n~ + n + n*n~/K); 0 picks 3000 below 15x15, 4000 above
    rave_distance_weight: bool = True  # Fuego's AMAF weight, 2 near the node falling to 0 at the end
    even_visits: int = 0         # virtual visits at 0.5 given to each new child; 0 picks 14 / 20 by board
    virtual_loss: int = 1        # losses added per thread descending through a node
    max_nodes: int = 1_000_000   # node store capacity; the search stops growing the tree when full
    reuse_tree: bool = True      # keep the subtree of the played moves between genmoves
    resign_threshold: float = 0.1  # resign when the root win rate is below this (0 never resigns)
    resign_min_visits: int = 2000  # ... and the best move has at least this many visits
    pass_when_won: bool = True   # pass when the opponent passed and the area score wins
    ponder: bool = False         # think on the opponent's time after genmove, until the next command
    seed: int = 1                # RNG seed; with fixed playouts and one thread the move is repeatable


@dataclass(frozen=True)
class TimeParams:
    main_time: float = 0.0       # default main time in seconds when the controller sends none (0 = none)
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    max_time_per_move: float = 0.0   # cap on one move's thinking time; 0 means no cap
    safety_margin: float = 0.5       # seconds kept back per move for GTP and process latency
    moves_left_min: int = 30         # assume at least this many own moves remain in main time


@dataclass(frozen=True)
class PriorParams:
    name: str = "none"           # registry name: none, mm, fbt, dtree, spt, pbn
    model: str = ""              # path of the model file (.npz)
    temperature: float = 1.0     # p ~ p ** (1 / temperature)
    floor: float = 1e-4          # minimum probability of a legal point before renormalising
    additive: bool = True        # Rosin/Fuego additive term -sqrt(d / (N + d)) * K_a
    additive_shape: str = "inv_sqrt"  # K = s * sqrt(sum p / p_a); "inv" is Rosin's 1/p shape
    additive_scale: float = 0.03
    additive_decay: float = 5.0
    pw: bool = False             # progressive widening ordered by the prior
    pw_init: int = 1
    pw_a: float = 20.0
    pw_b: float = 1.4
    pw_c: float = 0.67


@dataclass(frozen=True)
class GtpParams:
    analyze_interval: int = 50       # centiseconds between lz-/kata-analyze updates when the command gives none
    live_gfx: bool = False           # GoGui live graphics: gogui-gfx lines on stderr while genmove searches
    live_gfx_interval: float = 0.5   # seconds between two live graphics updates
    view_playouts: int = 0           # playouts a GoGui view adds before drawing; 0: search.playouts (5 s if 0)


@dataclass(frozen=True)
class ReadingParams:                 # the tactical solver behind GnuGo's reading commands (attack, defend, bps_*)
    method: str = "pp"               # pp (Bayesian proof search) or pns (proof-number search)
    budget: int = 20_000             # nodes per query
    prior: str = "uniform"           # PP's leaf prior: uniform, beta, hier, or a trained model file (.npz)
    branching: float = 0.0           # PP's branching leaf term (engine.tactics.branching_logodds); 0 is off
    decay: float = 0.0               # PP's depth decay: leaf log-odds lowered this much per ply; 0 is off


@dataclass(frozen=True)
class EngineParams:
    search: SearchParams = field(default_factory=SearchParams)
    playout: PlayoutParams = field(default_factory=PlayoutParams)
    time: TimeParams = field(default_factory=TimeParams)
    prior: PriorParams = field(default_factory=PriorParams)
    gtp: GtpParams = field(default_factory=GtpParams)
    reading: ReadingParams = field(default_factory=ReadingParams)
    data_dir: str = "../shared/data"   # where the expert game archives are read from
    name: str = "Tesuji"               # GTP name
