"""Typed parameters, one frozen dataclass per component.

YAML keys, dataclass fields and constructor arguments share one snake_case name: the section
`search:` of a config fills `SearchParams`, and `--set search.n_threads=2` overrides one field.
`engine.config` loads and validates; constructors receive these objects, never raw dicts.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

TACTICS_METHODS = ("pp", "pns")          # engine.tactics: Bayesian proof search, proof-number search
TACTICS_GENERATORS = ("region", "local")  # engine.tactics' move generators
TACTICS_MAX_PLIES = 1024                   # engine/tactics/types.pxd MAX_PLIES: the replay path buffer
LARGE_BOARD = 15                           # boards from this size up take the large-board defaults (Pachi)


def cores() -> int:
    """The CPU cores this process may run on (its affinity mask, as Pachi's default thread count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not on Linux
        return os.cpu_count() or 1


def by_board(size: int, small: float, large: float) -> float:
    """A size-dependent default: `large` from LARGE_BOARD up, `small` below."""
    return large if size >= LARGE_BOARD else small


@dataclass(frozen=True)
class PlayoutParams:
    capture_rate: int = 90       # % of moves that capture the last move's group when it is in atari
    save_rate: int = 90          # % that save own groups in atari next to the last move, when they can escape
    pattern_rate: int = 100      # % that play a 3x3 shape move around the last two moves
    self_atari_rate: int = 90    # % of checks that refuse self-atari of a group of >= 2 stones
    # Rules off (0) until a match shows they help (engine/playout.pyx says what each does):
    ko_rate: int = 0             # % of moves that retake a ko lost in the last 4 moves when it is legal
    ko_threat_rate: int = 0      # % of moves right after losing a ko that threaten: an atari elsewhere
    ladder_rate: int = 0         # % of moves that read ladders: no escape into one, ataris that work
    nakade_rate: int = 0         # % that take the vital point of a 3- to 6-point eye space by the last move
    useful_self_atari_rate: int = 0  # % of checks that allow a self-atari only as a nakade or throw-in
    nakade_self_atari_rate: int = 0  # % of refused self-ataris of >= 2 stones allowed as a nakade
    fill_board_rate: int = 0     # % that play a point with 8 empty neighbours before the random move
    reply_rate: int = 0          # % that play the search thread's last good reply (LGRF-2) to the last moves
    max_moves: int = 0           # playout length cap; 0 means 3 * board points


@dataclass(frozen=True)
class SearchParams:
    playouts: int = 10000        # playouts per move; 0 means use the clock only
    n_threads: int = 0           # search threads (run without the GIL); 0 means one per core
    expand_visits: int = 8       # visits before a leaf grows children (Pachi)
    ucb_c: float = 0.0           # UCB exploration constant; RAVE does the exploring (Fuego, Pachi)
    rave_equiv: float = 0.0      # K in beta = n~/(n~ + n + n*n~/K); 0 picks 3000 below 15x15, 4000 above
    rave_distance_weight: bool = True  # Fuego's AMAF weight, 2 near the node falling to 0 at the end
    even_visits: int = 0         # virtual visits at 0.5 given to each new child; 0 picks 14 / 20 by board
    virtual_loss: int = 1        # losses added per thread descending through a node
    score_weight: float = 0.0    # share of a simulation's value given by its score margin (Fuego's score
                                 # modification, Pachi's val_scale); 0 counts wins and losses only
    score_span: float = 0.0      # margin in points at which that share is full; 0 picks board points / 9
    handicap_komi: float = 0.0   # points per handicap stone the search lets White receive at the start,
                                 # falling linearly to 0 (Pachi's linear dynkomi, 7); 0 is off
    handicap_komi_moves: int = 0  # moves over which it falls to 0; 0 picks board points * 200 / 361
    handicap_margin_step: float = 1.0  # handicap games: points per move by which the margin the search
                                 # asks of its own side grows while its win rate is above 0.75, dropped
                                 # below 0.5 (the green zone of Pachi's adaptive dynkomi); 0 is off
    max_nodes: int = 1_000_000   # node store capacity; the search stops growing the tree when full
    reuse_tree: bool = True      # keep the subtree of the played moves between genmoves
    resign_threshold: float = 0.1  # resign when the root win rate is below this (0 never resigns)
    resign_min_visits: int = 2000  # ... and the best move has at least this many visits
    pass_when_won: bool = True   # pass when the opponent passed and the area score wins
    ponder: bool = False         # think on the opponent's time after genmove, until the next command
    seed: int = 1                # RNG seed; with fixed playouts and one thread the move is repeatable

    def rave_equiv_for(self, size: int) -> float:
        """K on a size x size board: rave_equiv, or 3000 / 4000 by board when 0."""
        return self.rave_equiv if self.rave_equiv > 0 else by_board(size, 3000.0, 4000.0)

    def even_visits_for(self, size: int) -> float:
        """The even prior's visits: even_visits, Pachi's 14 / 20 by board when 0, none when negative."""
        if self.even_visits:
            return float(max(self.even_visits, 0))
        return by_board(size, 14.0, 20.0)

    def thread_count(self) -> int:
        """The threads the search runs: n_threads, or the cores this process may use when it is 0."""
        return self.n_threads or cores()


TIME_MANAGERS = ("adaptive", "fixed")   # engine.timecontrol: the clock-scaled plan, or the fixed margins of before


@dataclass(frozen=True)
class TimeParams:
    main_time: float = 0.0       # default main time in seconds when the controller sends none (0 = none)
    byo_yomi_time: float = 0.0
    byo_yomi_stones: int = 0
    max_time_per_move: float = 0.0   # cap on one move's thinking time; 0 means no cap
    manager: str = "adaptive"        # adaptive: the plan below; fixed: safety_margin per assumed move left
    latency: float = 0.05            # adaptive: seconds a move costs beyond its search (GTP, pipes, process)
    reserve: float = 0.1             # adaptive: share of the time left (main time or period) never planned
    moves_left_floor: int = 5        # adaptive: own moves assumed still to play, at least
    extension: float = 2.0           # adaptive: an unsure move may think this many times its share (1: never)
    safety_margin: float = 0.5       # fixed: seconds kept back per move for GTP and process latency
    moves_left_min: int = 30         # fixed: assume at least this many own moves remain in main time

    def __post_init__(self) -> None:
        _require(self.manager in TIME_MANAGERS, self, "manager", f"must be one of {', '.join(TIME_MANAGERS)}")
        _require(0.0 <= self.latency <= 10.0, self, "latency", "must be in [0, 10] seconds")
        _require(0.0 <= self.reserve < 1.0, self, "reserve", "must be in [0, 1)")
        _require(_is_int(self.moves_left_floor, least=1), self, "moves_left_floor", "must be an integer >= 1")
        _require(1.0 <= self.extension <= 10.0, self, "extension", "must be in [1, 10]")


@dataclass(frozen=True)
class PriorParams:
    name: str = "fbt"            # registry name: none, mm, fbt, dtree, spt, pbn
    model: str = "priors/models/fbt.npz"   # path of the model file (.npz); "" for none
    temperature: float = 1.0     # p ~ p ** (1 / temperature)
    floor: float = 1e-4          # minimum probability of a legal point before renormalising
    additive: bool = True        # Rosin/Fuego additive term -sqrt(d / (N + d)) * K_a
    additive_shape: str = "inv_sqrt"  # K = s * sqrt(sum p / p_a); "inv" is Rosin's 1/p shape
    additive_scale: float = 0.03
    additive_decay: float = 5.0
    virtual_wins: float = 0.0    # each child starts with virtual_wins * sqrt(p) won simulations; 0 picks
                                 # 160 on boards from 15x15 up and 40 below; a negative value is off
    pw: bool = False             # progressive widening ordered by the prior
    pw_init: int = 1
    pw_a: float = 20.0
    pw_b: float = 1.4
    pw_c: float = 0.67

    def virtual_wins_for(self, size: int) -> float:
        """The virtual wins: virtual_wins, or by board when 0: 160 (Pachi's weight) on large boards, 40 on
        small ones, each measured head to head on 19x19 and 9x9; none when negative."""
        if self.virtual_wins:
            return max(self.virtual_wins, 0.0)
        return by_board(size, 40.0, 160.0)


@dataclass(frozen=True)
class GtpParams:
    analyze_interval: int = 50       # centiseconds between lz-/kata-analyze updates when the command gives none
    live_gfx: bool = False           # GoGui live graphics: gogui-gfx lines on stderr while genmove searches
    live_gfx_interval: float = 0.5   # seconds between two live graphics updates
    view_playouts: int = 0           # playouts a GoGui view adds before drawing; 0: search.playouts (5 s if 0)


@dataclass(frozen=True)
class TacticsParams:
    method: str = "pp"           # "pp" (Bayesian proof search) or "pns" (proof-number search)
    max_nodes: int = 100_000     # developed nodes per query, summed over the liberty loop
    max_store: int = 20_000_000  # nodes the tree may hold (a memory bound; a full store ends as UNKNOWN)
    max_depth: int = 100         # plies below the root; a leaf this deep has no moves (the attacker fails)
    move_gen: str = "region"     # "region" (the problem's bounding box) or "local" (around the goal)
    margin: int = 1              # points added around the stones' bounding box by the region generator
    l_start: int = 0             # first L of the goal "FALSE at >= L liberties"; 0 means libs + 1
    l_max: int = 8               # last L tried: FALSE at l_max is the final answer
    prior_p: float = 0.5         # the uniform leaf prior (when no learned prior is given)
    branching_weight: float = 0.0  # PP adds w * branching_logodds(number of moves) to every leaf's log-odds,
                                 # uniform or learned (ours: it stops PP's dive in wide trees); 0 is off
    depth_decay: float = 0.0     # PP lowers every leaf's log-odds of TRUE by this much per ply below the
                                 # root, uniform or learned (ours: a line whose beliefs repeat ply after
                                 # ply looks worse as it gets longer); 0 is off
    empty_and_true: bool = True  # a defender with no move loses (G2); False follows the paper's text
    mark_block: bool = True      # patterns mark the whole goal block as "goal" (else the vertex only)
    counter_slack: int = 0       # local generator: the defender may attack adjacent attacker blocks with
                                 # up to libs(goal) + counter_slack liberties (0: as many as the goal)
    defender_reach: int = 1      # local generator: 1 = goal liberties and second-order liberties for the
                                 # defender; 2 = every empty point within distance 2 of the goal block
    ko_results: bool = True      # attack/defend give GnuGo's ko codes 2 and 3 (solve_ko), else only 1 and 0
    defender_pass: bool = True   # the defender may pass (play elsewhere): a block in seki is not captured

    def __post_init__(self) -> None:
        _require(self.method in TACTICS_METHODS, self, "method", f"must be one of {', '.join(TACTICS_METHODS)}")
        _require(self.move_gen in TACTICS_GENERATORS, self, "move_gen",
                 f"must be one of {', '.join(TACTICS_GENERATORS)}")
        for name in ("max_nodes", "max_store", "max_depth", "l_max"):
            _require(_is_int(getattr(self, name), least=1), self, name, "must be a positive integer")
        _require(self.max_depth < TACTICS_MAX_PLIES, self, "max_depth", f"must be below {TACTICS_MAX_PLIES}")
        for name in ("l_start", "counter_slack", "margin"):
            _require(_is_int(getattr(self, name), least=0), self, name, "must be an integer >= 0")
        _require(self.defender_reach in (1, 2), self, "defender_reach", "must be 1 or 2")
        _require(0.0 < self.prior_p < 1.0, self, "prior_p", "must be in (0, 1)")
        for name in ("branching_weight", "depth_decay"):
            value = getattr(self, name)
            _require(math.isfinite(value) and value >= 0.0, self, name, "must be finite and >= 0")


READING_MAX_NODES = 10_000_000   # a GTP reading query's node budget at most (increase_depths stops here)


@dataclass(frozen=True)
class ReadingParams(TacticsParams):
    """The tactical solver behind GnuGo's reading commands (attack, defend, bps_*): every TacticsParams
    field, with the defaults below for play, and the leaf prior."""
    # Full-board positions need the local move generator, widened for the defender (counter-attacks on
    # blocks with one liberty more than its own) so that fewer captures are "proved" by leaving out the
    # defence. PNS passes more of GnuGo's reading.tst than PP and answers faster (B3: 163 of 235 against
    # 156 for PP with a leaf prior of 0.1, which does better there than the paper's 0.5), so it
    # is the default; PP becomes the default again only when it passes more. The budget keeps a query
    # near a second.
    method: str = "pns"
    max_nodes: int = 20_000
    max_depth: int = 60
    move_gen: str = "local"
    l_max: int = 5
    prior_p: float = 0.1
    counter_slack: int = 1
    prior: str = "uniform"       # PP's leaf prior: uniform (prior_p), beta, hier, or a trained model file (.npz)

    def __post_init__(self) -> None:
        super().__post_init__()
        _require(self.max_nodes <= READING_MAX_NODES, self, "max_nodes", f"must be <= {READING_MAX_NODES}")


def _is_int(value, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _require(ok: bool, params, name: str, rule: str) -> None:
    """A ValueError `NAME: RULE, got VALUE` unless ok; engine.config prefixes the section (`reading.NAME`)."""
    if not ok:
        raise ValueError(f"{name}: {rule}, got {getattr(params, name)!r}")


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
