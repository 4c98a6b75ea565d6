"""Typed parameters, one frozen dataclass per component: the table of knobs.

Each field is a `knob` that declares its default, bound and meaning once (engine.knobs); the loader
checks every value it reads against them, and TimeParams and TacticsParams (which benches build
directly) check themselves on construction as well. Tests may build the others outside the bounds
(a tiny node store). YAML keys, dataclass fields and constructor arguments share
one snake_case name: the section `search:` of a config fills `SearchParams`, and
`--set search.n_threads=2` overrides one field. `engine.config` loads YAML into these objects and
generates configs/default.yaml from them; constructors receive these objects, never raw dicts.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from engine.knobs import NON_EMPTY, NON_NEGATIVE, RATE, Bound, check, knob, like, section

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
    """The playout policy's rules, each a percentage of the moves (or checks) where it applies. The rules
    that are 0 stay off until a match shows they help (engine/playout.pyx says what each does)."""
    capture_rate: int = knob(90, "% of moves that capture the last move's group in atari", RATE)
    save_rate: int = knob(90, "% that save own groups in atari next to the last move, when they can escape", RATE)
    pattern_rate: int = knob(100, "% that play a 3x3 shape move around the last two moves", RATE)
    self_atari_rate: int = knob(90, "% of checks that refuse self-atari of a group of >= 2 stones", RATE)
    ko_rate: int = knob(0, "% of moves that retake a ko lost in the last 4 moves when it is legal", RATE)
    ko_threat_rate: int = knob(0, "% of moves right after losing a ko that threaten: an atari elsewhere",
                               RATE)
    ladder_rate: int = knob(0, "% of moves that read ladders: no escape into one, ataris that work", RATE)
    nakade_rate: int = knob(0, "% that take the vital point of a 3- to 6-point eye space by the last move",
                            RATE)
    useful_self_atari_rate: int = knob(0, "% of checks allowing a self-atari only as a nakade or throw-in",
                                       RATE)
    nakade_self_atari_rate: int = knob(0, "% of refused self-ataris of >= 2 stones allowed as a nakade",
                                       RATE)
    fill_board_rate: int = knob(0, "% that play a point with 8 empty neighbours before the random move",
                                RATE)
    reply_rate: int = knob(0, "% that play the search thread's last good reply to the last two moves "
                              "(LGRF-2)", RATE)
    max_moves: int = knob(0, "playout length cap; 0 means 3 * board points",
                          Bound(0, 1000))   # engine/playout.pxd MAX_PLAYOUT_MOVES


ADDITIVE_SHAPES = ("inv_sqrt", "inv")   # engine/selection.pxd SHAPE_INV_SQRT, SHAPE_INV


@dataclass(frozen=True)
class SearchParams:
    """The tree search, and how the prior's probabilities enter it."""
    playouts: int = knob(10000, "playouts per move; 0 means use the clock only", NON_NEGATIVE, runtime=True)
    n_threads: int = knob(0, "search threads, running without the GIL; 0 means one per core", Bound(0, 256))
    expand_visits: int = knob(8, "visits before a leaf grows children (Pachi)", Bound(1))
    ucb_c: float = knob(0.0, "UCB exploration constant; RAVE does the exploring (Fuego, Pachi)", NON_NEGATIVE)
    rave_equiv: float = knob(0.0, "K in beta = n~/(n~ + n + n*n~/K); 0 picks 3000 below 15x15, 4000 above",
                             NON_NEGATIVE)
    rave_distance_weight: bool = knob(True, "Fuego's AMAF weight, 2 near the node falling to 0 at the end of "
                                            "the playout")
    even_visits: int = knob(0, "virtual visits at 0.5 given to each new child; 0 picks 14 / 20 by board (Pachi)",
                            NON_NEGATIVE)
    virtual_loss: int = knob(1, "losses added per thread descending through a node", NON_NEGATIVE)
    score_weight: float = knob(0.0, "share of a simulation's value set by its margin (Fuego's score "
                                    "modification, Pachi's val_scale): a win is worth 1 - w + w * m, a loss "
                                    "w * (1 + m), m = margin / score_span in [-1, 1]; 0 counts wins and losses "
                                    "only", Bound(0, 0.5))
    score_span: float = knob(0.0, "margin in points at which that share is full; 0 picks board points / 9",
                             NON_NEGATIVE)
    handicap_komi: float = knob(0.0, "points per handicap stone the search lets White receive at the start of a "
                                     "handicap game, falling linearly to 0 (Pachi's linear dynkomi, 7); 0 is off",
                                Bound(0, 20))
    handicap_komi_moves: int = knob(0, "moves over which it falls to 0; 0 picks board points * 200 / 361",
                                    NON_NEGATIVE)
    handicap_margin_step: float = knob(1.0, "handicap games: points per move by which the margin the search "
                                            "asks of its own side grows while its win rate is above 0.75, "
                                            "dropped below 0.5 (the green zone of Pachi's adaptive dynkomi); "
                                            "0 is off", Bound(0, 20))
    max_nodes: int = knob(1_000_000, "node store capacity; the tree stops growing when full", Bound(1000))
    reuse_tree: bool = knob(True, "keep the subtree of the played moves between genmoves")
    resign_threshold: float = knob(0.1, "resign when the root win rate is below this (0 never resigns); never in "
                                        "the first quarter of the game, lower as White giving handicap stones",
                                   Bound(0, 1), runtime=True)
    resign_min_visits: int = knob(2000, "... and the best move has at least this many visits", NON_NEGATIVE)
    pass_when_won: bool = knob(True, "pass when the opponent passed and the area score wins")
    ponder: bool = knob(False, "think on the opponent's time after genmove, until the next command", runtime=True)
    seed: int = knob(1, "RNG seed; fixed playouts and one thread give a repeatable move", Bound(0, 2 ** 64 - 1))
    # How the prior enters the search (ignored without one):
    temperature: float = knob(1.0, "prior shaping: p ~ p ** (1 / temperature)", Bound(0, low_open=True),
                              moved_from="prior.temperature")
    floor: float = knob(1e-4, "prior shaping: minimum probability of a legal point before renormalising",
                        Bound(0, 1), moved_from="prior.floor")
    additive: bool = knob(True, "Rosin/Fuego's additive term -sqrt(d / (N + d)) * K_a in the selection value",
                          moved_from="prior.additive")
    additive_shape: str = knob("inv_sqrt", "K_a = s * sqrt(sum p / p_a) (inv_sqrt), or Rosin's 1/p shape (inv)",
                               Bound(choices=ADDITIVE_SHAPES), moved_from="prior.additive_shape")
    additive_scale: float = knob(0.03, "s in the shape above", NON_NEGATIVE, moved_from="prior.additive_scale")
    additive_decay: float = knob(5.0, "d in the additive term", NON_NEGATIVE, moved_from="prior.additive_decay")
    virtual_wins: float = knob(0.0, "each child starts with virtual_wins * sqrt(p) won simulations (Pachi's "
                                    "pattern prior); 0 picks 160 from 15x15 up and 40 below, each measured head "
                                    "to head on 19x19 and 9x9; negative: off", moved_from="prior.virtual_wins")
    pw: bool = knob(False, "progressive widening ordered by the prior", moved_from="prior.pw")
    pw_init: int = knob(1, "children open at expansion", Bound(1), moved_from="prior.pw_init")
    pw_a: float = knob(20.0, "widening schedule T_k+1 = T_k + a * b^(k-1) * (1 - c * r): a",
                       Bound(0, low_open=True), moved_from="prior.pw_a")
    pw_b: float = knob(1.4, "... b, the growth of the gaps", Bound(1), moved_from="prior.pw_b")
    pw_c: float = knob(0.67, "... c, how much faster to widen when losing", Bound(0, 1), moved_from="prior.pw_c")

    def rave_equiv_for(self, size: int) -> float:
        """K on a size x size board: rave_equiv, or 3000 / 4000 by board when 0."""
        return self.rave_equiv if self.rave_equiv > 0 else by_board(size, 3000.0, 4000.0)

    def even_visits_for(self, size: int) -> float:
        """The even prior's visits: even_visits, Pachi's 14 / 20 by board when 0, none when negative."""
        if self.even_visits:
            return float(max(self.even_visits, 0))
        return by_board(size, 14.0, 20.0)

    def virtual_wins_for(self, size: int) -> float:
        """The virtual wins: virtual_wins, or by board when 0: 160 (Pachi's weight) on large boards, 40 on
        small ones; none when negative."""
        if self.virtual_wins:
            return max(self.virtual_wins, 0.0)
        return by_board(size, 40.0, 160.0)

    def thread_count(self) -> int:
        """The threads the search runs: n_threads, or the cores this process may use when it is 0."""
        return self.n_threads or cores()


TIME_MANAGERS = ("adaptive", "fixed")   # engine.timecontrol: the clock-scaled plan, or the fixed margins of before


@dataclass(frozen=True)
class TimeParams:
    """Time control: the defaults when the controller sends none, and how a move's time is planned."""
    main_time: float = knob(0.0, "main time in seconds when the controller sends none (0 = untimed)", NON_NEGATIVE)
    byo_yomi_time: float = knob(0.0, "Canadian byo-yomi period in seconds", NON_NEGATIVE)
    byo_yomi_stones: int = knob(0, "stones to play in each byo-yomi period", NON_NEGATIVE)
    max_time_per_move: float = knob(0.0, "cap on one move's thinking time in seconds; 0 means no cap", NON_NEGATIVE)
    manager: str = knob("adaptive", "adaptive (the keys below) or fixed (safety_margin per assumed move left)",
                        Bound(choices=TIME_MANAGERS))
    latency: float = knob(0.05, "adaptive: seconds a move costs beyond its search (GTP, pipes, process)",
                          Bound(0, 10, says="in [0, 10] seconds"))
    reserve: float = knob(0.1, "adaptive: share of the time left (main time or period) never planned",
                          Bound(0, 1, high_open=True, says="in [0, 1)"))
    moves_left_floor: int = knob(5, "adaptive: own moves assumed still to play, at least",
                                 Bound(1, says="an integer >= 1"))
    extension: float = knob(2.0, "adaptive: an unsure move may think this many times its share (1: never)",
                            Bound(1, 10, says="in [1, 10]"))
    safety_margin: float = knob(0.5, "fixed: seconds kept back per move for GTP and process latency", NON_NEGATIVE)
    moves_left_min: int = knob(30, "fixed: assume at least this many own moves remain in main time", Bound(1))

    def __post_init__(self) -> None:
        check(self)


NO_PRIOR = "none"   # the name of "no prior", for the search (prior.name) and the solver (reading.prior) alike


@dataclass(frozen=True)
class PriorParams:
    """Which prior the search asks for move probabilities, and where its model is (the search's use of
    them is set under search:)."""
    name: str = knob("fbt", "registry name: none, mm, fbt, dtree, spt, pbn (configs/none.yaml: no prior)",
                     NON_EMPTY)
    model: str = knob("priors/models/fbt.npz", "path of the model file (.npz); empty for none")


@dataclass(frozen=True)
class GtpParams:
    """The GTP front end's analysis output and GoGui's live graphics and views."""
    analyze_interval: int = knob(50, "centiseconds between lz-/kata-analyze updates when the command gives none",
                                 Bound(1, 6000), runtime=True)   # 10 ms .. 1 min
    live_gfx: bool = knob(False, "GoGui live graphics: gogui-gfx lines on stderr while genmove searches",
                          runtime=True)
    live_gfx_interval: float = knob(0.5, "seconds between two live graphics updates", Bound(0.05, 60), runtime=True)
    view_playouts: int = knob(0, "playouts a GoGui view adds before drawing; 0 means search.playouts (5 s if 0)",
                              NON_NEGATIVE, runtime=True)


POSITIVE = Bound(1, says="a positive integer")
COUNT = Bound(0, says="an integer >= 0")
WEIGHT = Bound(0, says="finite and >= 0")


@dataclass(frozen=True)
class TacticsParams:
    """The tactical solver (engine.tactics): PP or PNS over one capture goal."""
    method: str = knob("pp", "pns (proof-number search) or pp (Bayesian proof search)",
                       Bound(choices=TACTICS_METHODS))
    max_nodes: int = knob(100_000, "nodes developed per query, summed over the liberty loop", POSITIVE)
    max_store: int = knob(20_000_000, "nodes the tree may hold (a memory bound; a full store ends as unknown)",
                          POSITIVE)
    max_depth: int = knob(100, "plies below the root; a leaf this deep has no moves (the attacker fails)",
                          Bound(1, TACTICS_MAX_PLIES, high_open=True, low_says="a positive integer",
                                high_says=f"below {TACTICS_MAX_PLIES}"))
    move_gen: str = knob("region", "local (around the goal string) or region (the problem's bounding box)",
                         Bound(choices=TACTICS_GENERATORS))
    margin: int = knob(1, "region generator: points added around the stones' bounding box", COUNT)
    l_start: int = knob(0, "first L of the goal \"safe at >= L liberties\"; 0 means the string's liberties + 1",
                        COUNT)
    l_max: int = knob(8, "last L tried: safe at l_max is the final answer", POSITIVE)
    prior_p: float = knob(0.5, "PP's uniform leaf prior (when no learned prior is given)",
                          Bound(0, 1, low_open=True, high_open=True, says="in (0, 1)"))
    branching_weight: float = knob(0.0, "PP: w * branching_logodds(moves below the leaf) added to every leaf's "
                                        "log-odds, uniform or learned (ours: it stops PP's dive in wide trees); "
                                        "0 is off", WEIGHT)
    depth_decay: float = knob(0.0, "PP lowers every leaf's log-odds of a capture by this much per ply below the "
                                   "root, uniform or learned (ours: a line whose beliefs repeat ply after ply "
                                   "looks worse as it gets longer); 0 is off", WEIGHT)
    empty_and_true: bool = knob(True, "a defender with no move loses (G2); false follows the paper's text")
    mark_block: bool = knob(True, "patterns mark the whole goal string as \"goal\" (false: its vertex only)")
    counter_slack: int = knob(0, "local generator: the defender may attack adjacent attacker strings with up to "
                                 "the goal's liberties + counter_slack liberties", COUNT)
    defender_reach: int = knob(1, "local generator: 1 = the goal's liberties and second-order liberties for the "
                                  "defender; 2 = every empty point within distance 2 of the goal string",
                               Bound(1, 2, says="1 or 2"))
    ko_results: bool = knob(True, "attack/defend give GnuGo's ko codes 2 and 3 (solve_ko), else only 1 and 0")
    defender_pass: bool = knob(True, "the defender may pass (play elsewhere): a string in seki is not captured")

    def __post_init__(self) -> None:
        check(self)


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
    method: str = like(TacticsParams, "method", "pns")
    max_nodes: int = like(TacticsParams, "max_nodes", 20_000,
                          Bound(1, READING_MAX_NODES, low_says="a positive integer"))
    max_depth: int = like(TacticsParams, "max_depth", 60)
    move_gen: str = like(TacticsParams, "move_gen", "local")
    l_max: int = like(TacticsParams, "l_max", 5)
    prior_p: float = like(TacticsParams, "prior_p", 0.1)
    counter_slack: int = like(TacticsParams, "counter_slack", 1)
    prior: str = knob(NO_PRIOR, "PP's leaf prior: none (prior_p), beta, hier, or a trained model file (.npz)",
                      NON_EMPTY)


@dataclass(frozen=True)
class EngineParams:
    search: SearchParams = section(SearchParams)
    playout: PlayoutParams = section(PlayoutParams)
    time: TimeParams = section(TimeParams)
    prior: PriorParams = section(PriorParams)
    gtp: GtpParams = section(GtpParams)
    reading: ReadingParams = section(ReadingParams, "the tactical solver behind GnuGo's reading commands "
                                                    "(attack, defend, bps_*); the same names in "
                                                    "`--set reading.KEY=VALUE` and `bps_config KEY=VALUE`")
    data_dir: str = knob("../shared/data", "where the expert game archives (.tar.xz of SGF) are read from")
    name: str = knob("Tesuji", "the GTP `name` reply", NON_EMPTY)
