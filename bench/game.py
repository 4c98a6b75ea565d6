"""One game between two GTP engines, watched by an optional referee: the unit of work of a match.

`play_game(task)` starts fresh engine processes, plays the game and returns its record as a plain
dict (JSON-ready); it runs in a worker process or on a Dask worker, so it takes and returns only
picklable values. Starting every game with fresh processes is what restarts an engine after a fault.
A task with an `opening` plays its moves first (sent with `play` to every engine, in no one's time).

How a game ends, and what it is recorded as (`end`):
- "passes"      two passes in a row: scored by area (Chinese: komi, and a point per handicap stone
                to White) on the harness's own board after removing the stones the referee calls
                dead; the referee's `final_score` is recorded beside it and
                any difference is flagged (`disagreement`), never resolved silently. With
                `disputes: play`, when the referee's count and an engine's own `final_score` name
                different winners, the game resumes as on KGS: each side moves with
                `kgs-genmove_cleanup` (where it has it) until two passes again, and then every
                stone left counts as alive (the referee's count is recorded beside it, and the
                dispute under `dispute`): a group the referee wrongly calls dead, a seki say,
                stays on the board; one truly dead is captured;
                When two passes leave regions open (empty points reaching both colours, the
                referee's dead stones removed and its seki left out: `open_points`), the game is
                scored as the referee and the engines all count it, if they agree; if not, it keeps
                the harness's count and is marked `unfinished` (bench.scorecheck counts it apart);
- "move_limit"  the move limit was reached: scored the same way (with every stone alive if it is
                reached while a dispute is played out);
- "resign"      the side that resigned loses (B+R / W+R);
- "time"        a timed game (`task.time`, bench.gameclock) whose side to move ran out of time,
                counting the wall time of its genmove replies: that side loses (B+T / W+T);
- "illegal"     a move the harness or the referee rejects (occupied, suicide, ko, superko, not a
                vertex): the mover loses by forfeit (B+F / W+F) and the reason is recorded;
- "fault"       an engine crashed, hung past its timeout, answered a command with an error or
                rejected a move the harness and the referee accept: recorded with the engine's role;
                the game has no result ("Void") unless `fault_result` is "loss".
"""
from __future__ import annotations

import socket
import time
from dataclasses import dataclass

from bench.gameclock import GameClock, TimeSettings
from bench.gtpclient import EngineFault, ErrorReply, GtpEngine
from bench.matchconfig import EngineSpec
from bench.position import Position, format_vertex, parse_vertex

ROLES = ("player", "opponent", "referee")


@dataclass(frozen=True)
class GameTask:
    run: str                      # run name
    variant: str
    index: int                    # game number within the variant, from 0
    seed: int                     # filled in for {seed} in commands
    board_size: int
    komi: float
    handicap: int
    move_limit: int
    swapped: bool                 # the player takes White
    player: EngineSpec
    opponent: EngineSpec
    referee: EngineSpec | None
    fault_result: str = "void"
    time: TimeSettings | None = None   # both sides' clock; None: untimed
    disputes: str = "referee"     # or "play": a disputed count is played out (see above)
    opening: tuple[str, ...] = ()  # moves played first, Black first, sent to every engine with `play`
    opening_index: int | None = None   # the opening's index in its suite
    opening_file: str | None = None    # the suite


TIME_GRACE = 5.0    # seconds a timed genmove may run past its clock before the engine counts as hung


class Fault(Exception):
    """An engine failed during the game: which one (`role`), how (`kind`) and the message."""

    def __init__(self, role: str, kind: str, message: str):
        super().__init__(message)
        self.role = role
        self.kind = kind


def other(colour: str) -> str:
    return "w" if colour == "b" else "b"


def format_result(score: float) -> str:
    """An area score (black minus white, komi included) as an SGF/GTP result."""
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def parse_result(result: str | None) -> tuple[str | None, float | None] | None:
    """("b"|"w"|None for a draw, margin or None for R/F/T); None when unknown or unreadable."""
    if not result:
        return None
    text = result.strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return None, 0.0
    if len(text) < 3 or text[0] not in "BW" or text[1] != "+":
        return None
    try:
        margin = float(text[2:])
    except ValueError:
        margin = None
    return text[0].lower(), margin


def signed_score(result: str | None) -> float | None:
    """A result as black - white ("B+3.5" 3.5, "W+2" -2, "0" 0); None when it has no margin or is unread."""
    parsed = parse_result(result)
    if parsed is None or (parsed[0] is not None and parsed[1] is None):
        return None
    return 0.0 if parsed[0] is None else (parsed[1] if parsed[0] == "b" else -parsed[1])


def _agreed_score(referee: str | None, claims: dict) -> float | None:
    """The score the referee and every engine that counts give alike (a number), else None."""
    counts = [r for r in claims.values() if r not in (None, "?")]
    if not counts or not all(same_result(r, referee) for r in counts):
        return None
    return signed_score(referee)


def same_result(a: str | None, b: str | None) -> bool:
    pa, pb = parse_result(a), parse_result(b)
    if pa is None or pb is None:
        return False
    if pa[0] != pb[0]:
        return False
    if pa[1] is None or pb[1] is None:
        return pa[1] is pb[1]
    return abs(pa[1] - pb[1]) < 1e-6


class GameRunner:
    def __init__(self, task: GameTask):
        self.task = task
        self.engines: dict[str, GtpEngine] = {}
        self.colour_of = {"player": "w" if task.swapped else "b",
                          "opponent": "b" if task.swapped else "w"}
        self.role_of = {c: r for r, c in self.colour_of.items()}
        self.position = Position(task.board_size)
        self.moves: list[str] = []
        self.times: list[float] = []
        self.handicap_stones: list[str] = []
        self.notes: list[str] = []
        self.cpu_start: dict[str, float | None] = {}
        self.clocks = {c: GameClock(task.time) for c in "bw"} if task.time else {}
        self.cleanup = False          # play resumed after a disputed count
        self.dispute: dict | None = None

    # -- the game ------------------------------------------------------------------------------

    def run(self) -> dict:
        start = time.time()
        record = self._base_record()
        try:
            for role in ROLES:
                spec = self._spec(role)
                if spec is not None:
                    self._start(role, spec)
            for role in self.engines:
                self._prepare(role)
            self._place_handicap()
            self._play_opening()
            self.cpu_start = {r: self._cpu(r) for r in ("player", "opponent")}
            record.update(self._play())
        except Fault as f:
            record.update(self._fault_outcome(f))
        finally:
            record.update(self._timing())
            for engine in self.engines.values():
                engine.close()
        record["moves"] = self.moves
        record["times"] = [round(t, 3) for t in self.times]
        record["handicap_stones"] = self.handicap_stones
        record["notes"] = self.notes
        if self.clocks:
            record["clock"] = {role: self.clocks[c].summary() for role, c in self.colour_of.items()}
        record["seconds"] = round(time.time() - start, 3)
        return record

    def _play_opening(self) -> None:
        """The opening's moves, on the harness's board and sent to every engine; they take no time.
        The suite's moves were checked when it was loaded; an engine that rejects one is at fault."""
        colour = "b"
        for vertex in self.task.opening:
            move = parse_vertex(vertex, self.task.board_size)
            self.position.play(move, colour)
            self.moves.append(format_vertex(move))
            self.times.append(0.0)
            for role in self.engines:
                try:
                    self._call(role, f"play {colour} {self.moves[-1]}")
                except ErrorReply as e:
                    raise Fault(role, "rejected", f"rejected the opening move {colour.upper()} "
                                                  f"{self.moves[-1]}: {e}") from None
            colour = other(colour)

    def _play(self) -> dict:
        colour = "w" if self.task.handicap else "bw"[len(self.task.opening) % 2]
        passes = 0
        while len(self.moves) < self.task.move_limit:
            role = self.role_of[colour]
            reply, took = self._genmove(role, colour)
            self.times.append(took)
            if self.clocks:
                self.clocks[colour].charge(took)
                if self.clocks[colour].lost:
                    self.times.pop()      # the move came too late: it is not played
                    return self._win(other(colour), "time", "T")
            vertex = reply.split()[0].lower() if reply.split() else ""
            if vertex == "resign":
                self.times.pop()      # times stay aligned with moves; a resignation is not a move
                return self._win(other(colour), "resign", "R")
            illegal = self._apply(colour, vertex, reply)
            if illegal:
                return {**self._win(other(colour), "illegal", "F"), "reason": illegal}
            passes = passes + 1 if vertex == "pass" else 0
            colour = other(colour)
            if passes == 2:
                counts = self._counts()
                if self.cleanup or not self._disputed(counts):
                    return self._score("cleanup" if self.cleanup else "passes", counts)
                self.cleanup, passes = True, 0
        return self._score("move_limit", self._counts())

    def _disputed(self, counts: tuple[str | None, dict]) -> bool:
        """With `disputes: play`: whether the referee's count and an engine's own (`_counts`) name
        different winners; if so they are kept in `dispute`."""
        referee, claims = counts
        if self.task.disputes != "play" or referee is None:
            return False
        winners = {parse_result(r)[0] for r in (referee, *claims.values()) if parse_result(r)}
        if len(winners) < 2:
            return False
        self.dispute = {"after_moves": len(self.moves), "result_referee": referee,
                        "engine_results": claims}
        return True

    def _genmove(self, role: str, colour: str) -> tuple[str, float]:
        """The reply to genmove and its wall time, after `time_left` in a timed game. An engine that
        runs past its clock by TIME_GRACE is stopped: its reply comes too late, whatever it is."""
        clock = self.clocks.get(colour)
        timeout = None
        if clock is not None:
            if self._supports(role, "time_left"):
                seconds, stones = clock.time_left_args()       # GTP: whole seconds, so rounded down
                self._send_checked(role, f"time_left {colour} {int(seconds)} {stones}")
            timeout = min(self._spec(role).timeout, clock.most() + TIME_GRACE)
        cleanup = self.cleanup and self._supports(role, "kgs-genmove_cleanup")
        command = "kgs-genmove_cleanup" if cleanup else "genmove"
        t0 = time.monotonic()
        try:
            reply = self.engines[role].send(f"{command} {colour}", timeout=timeout)
        except ErrorReply as e:
            raise Fault(role, "error", f"{command} {colour} failed: {e}") from None
        except EngineFault as e:
            if e.kind == "timeout" and timeout is not None and timeout < self._spec(role).timeout:
                return "", time.monotonic() - t0          # out of time: charged as such
            raise Fault(role, e.kind, str(e)) from None
        return reply, time.monotonic() - t0

    def _apply(self, colour: str, vertex: str, reply: str) -> str | None:
        """Play the move everywhere; the reason it is illegal, or None."""
        role = self.role_of[colour]
        try:
            move = parse_vertex(vertex, self.task.board_size)
        except ValueError as e:
            self.moves.append(reply[:20])
            return f"{role} ({colour.upper()}) answered genmove with {reply[:40]!r}: not a vertex ({e})"
        self.moves.append(format_vertex(move))
        reason = self.position.illegal_reason(move, colour)
        if reason:
            return f"{role} ({colour.upper()}) played {self.moves[-1]}: {reason}"
        if "referee" in self.engines:
            try:
                self._call("referee", f"play {colour} {self.moves[-1]}")
            except ErrorReply as e:
                return f"{role} ({colour.upper()}) played {self.moves[-1]}: referee rejected it ({e})"
        self.position.play(move, colour)
        receiver = self.role_of[other(colour)]
        try:
            self._call(receiver, f"play {colour} {self.moves[-1]}")
        except ErrorReply as e:
            raise Fault(receiver, "rejected", f"rejected the legal move {colour.upper()} {self.moves[-1]}: {e}")
        return None

    def _score(self, end: str, counts: tuple[str | None, dict]) -> dict:
        """The game scored by area on the harness's board, the referee's dead stones removed (none
        after a dispute played out), beside the counts of the referee and the engines (`_counts`)."""
        referee_result, claims = counts
        dead: list = []
        if "referee" in self.engines and not self.cleanup:
            try:
                dead = [parse_vertex(v, self.task.board_size)
                        for v in self._call("referee", "final_status_list dead").split()]
            except (ErrorReply, Fault, ValueError) as e:
                self.notes.append(f"referee could not list the dead stones: {e}")
        # Chinese rules: White is also compensated one point per handicap stone (as GnuGo counts).
        score = self.position.area_score(dead) - self.task.komi - self.task.handicap
        unsettled = self._open_points(dead) if end != "move_limit" else 0
        agreed = _agreed_score(referee_result, claims) if unsettled else None
        if agreed is not None:
            score = agreed
        result = format_result(score)
        winner = None if score == 0 else ("b" if score > 0 else "w")
        return {"end": end, "result": result, "winner": winner, "score": score,
                "result_referee": referee_result,
                "disagreement": referee_result is not None and not same_result(referee_result, result),
                "dead_stones": sorted(format_vertex(p) for p in dead),
                "engine_results": claims,
                **({"open_points": unsettled} if unsettled else {}),
                **({"unfinished": True} if unsettled and agreed is None else {}),
                **({"dispute": self.dispute} if self.dispute else {})}

    def _open_points(self, dead: list) -> int:
        """The empty points two passes left in regions reaching both colours (Position.open_points),
        the referee's seki left out (0 without a referee, or after a dispute played out)."""
        if "referee" not in self.engines or self.cleanup:
            return 0
        try:
            seki = [parse_vertex(v, self.task.board_size)
                    for v in self._call("referee", "final_status_list seki").split()]
        except (ErrorReply, Fault, ValueError) as e:
            self.notes.append(f"referee could not list the seki stones: {e}")
            return 0
        return self.position.open_points(dead, seki)

    def _counts(self) -> tuple[str | None, dict]:
        """The referee's `final_score` (None without one) and each engine's own (`_engine_results`)."""
        referee = None
        if "referee" in self.engines:
            try:
                referee = self._call("referee", "final_score").split()[0]
            except (ErrorReply, Fault, IndexError) as e:
                self.notes.append(f"referee could not score: {e}")
        return referee, self._engine_results()

    def _engine_results(self) -> dict:
        """Each engine's own `final_score`, as gogui-twogtp records it ("?" if it has none)."""
        results = {}
        for role in ("player", "opponent"):
            results[role] = "?"
            try:
                if self._supports(role, "final_score"):
                    results[role] = self._call(role, "final_score").split()[0]
            except (ErrorReply, Fault, IndexError) as e:
                self.notes.append(f"{role} final_score failed: {e}")
        return results

    def _win(self, winner: str, end: str, how: str) -> dict:
        return {"end": end, "winner": winner, "result": f"{winner.upper()}+{how}"}

    def _fault_outcome(self, fault: Fault) -> dict:
        outcome = {"end": "fault", "winner": None, "result": "Void",
                   "fault": {"role": fault.role, "kind": fault.kind, "message": str(fault)}}
        if self.task.fault_result == "loss" and fault.role in self.colour_of:
            outcome.update(self._win(other(self.colour_of[fault.role]), "fault", "F"))
        return outcome

    # -- engines -------------------------------------------------------------------------------

    def _spec(self, role: str) -> EngineSpec | None:
        return getattr(self.task, role)

    def _start(self, role: str, spec: EngineSpec) -> None:
        command = spec.command_for(self.task.seed, self.task.index)
        engine = GtpEngine(command, timeout=spec.timeout, label=role)
        self.engines[role] = engine
        try:
            engine.start()
        except EngineFault as e:
            raise Fault(role, e.kind, str(e)) from None

    def _prepare(self, role: str) -> None:
        spec = self._spec(role)
        commands = [f"boardsize {self.task.board_size}", "clear_board", f"komi {self.task.komi:g}"]
        commands += spec.setup_for(self.task.seed, self.task.index)
        settings = self.task.time
        if settings is not None and role != "referee":
            commands.append(settings.gtp_time_settings())
            if self._supports(role, "kgs-time_settings"):
                commands.append(settings.kgs_time_settings())
        for command in commands:
            self._send_checked(role, command)

    def _send_checked(self, role: str, command: str) -> str:
        """A command whose `? error` is the engine's fault."""
        try:
            return self._call(role, command)
        except ErrorReply as e:
            raise Fault(role, "error", f"{command!r} failed: {e}") from None

    def _place_handicap(self) -> None:
        if not self.task.handicap:
            return
        placements = {}
        for role in self.engines:
            command = f"fixed_handicap {self.task.handicap}"
            try:
                reply = self._call(role, command)
                placements[role] = sorted(parse_vertex(v, self.task.board_size) for v in reply.split())
            except (ErrorReply, ValueError) as e:
                raise Fault(role, "error", f"{command!r} failed: {e}") from None
        reference = placements["player"]
        for role, stones in placements.items():
            if stones != reference:
                raise Fault(role, "error", f"fixed_handicap placed {stones}, the player {reference}")
        self.position.place_handicap(reference)
        self.handicap_stones = [format_vertex(p) for p in reference]

    def _supports(self, role: str, command: str) -> bool:
        try:
            return self.engines[role].supports(command)
        except EngineFault as e:
            raise Fault(role, e.kind, str(e)) from None

    def _cpu(self, role: str) -> float | None:
        """CPU seconds the engine has used (None if unknown or it is gone); never a fault."""
        engine = self.engines.get(role)
        if engine is None or engine.proc is None:
            return None
        try:
            return engine.cpu_time()
        except EngineFault:
            return None

    def _call(self, role: str, command: str) -> str:
        try:
            return self.engines[role].send(command)
        except EngineFault as e:
            raise Fault(role, e.kind, str(e)) from None

    # -- the record ----------------------------------------------------------------------------

    def _base_record(self) -> dict:
        t = self.task
        return {"run": t.run, "variant": t.variant, "game": t.index, "seed": t.seed,
                "player_colour": self.colour_of["player"], "alternated": t.swapped,
                "board_size": t.board_size, "komi": t.komi, "handicap": t.handicap,
                "player_command": t.player.command_for(t.seed, t.index),
                "opponent_command": t.opponent.command_for(t.seed, t.index),
                "referee_command": t.referee.command_for(t.seed, t.index) if t.referee else None,
                "host": socket.gethostname(), "date": time.strftime("%Y-%m-%d %H:%M:%S"),
                "end": None, "result": None, "winner": None, "reason": None, "fault": None,
                "score": None, "result_referee": None, "disagreement": False, "dead_stones": [],
                "engine_results": {"player": "?", "opponent": "?"},
                "opening": t.opening_index, "opening_file": t.opening_file, "opening_moves": len(t.opening)}

    def _timing(self) -> dict:
        timing = {}
        opening = len(self.task.opening)        # moves that took no one's time
        first = "w" if self.task.handicap else "bw"[opening % 2]
        for role in ("player", "opponent"):
            offset = opening + (0 if self.colour_of[role] == first else 1)
            own = self.times[offset::2]
            timing[f"{role}_moves"] = len(own)
            timing[f"{role}_seconds"] = round(sum(own), 3)
            start = self.cpu_start.get(role)
            end = self._cpu(role) if start is not None else None
            timing[f"{role}_cpu"] = None if end is None else round(max(0.0, end - start), 3)
        return timing


def play_game(task: GameTask) -> dict:
    """Play one game and return its record (see the module docstring for the outcomes)."""
    return GameRunner(task).run()
