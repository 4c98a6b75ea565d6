"""kgsGtp's extension commands: `kgs-genmove_cleanup`, `kgs-time_settings`, `kgs-game_over`, `kgs-rules`.

kgsGtp probes for them with `known_command` and falls back to the standard commands without them.
Scoring stays area scoring under every rule set; `kgs-rules aga` gives White a point per handicap
stone less one, as AGA rules do, every other rule set a point per stone (engine.game).

What kgsGtp sends and where it is answered: `kgs-genmove_cleanup` (after a dead-stone dispute: never
passes while the ownership says dead opponent stones remain, it plays on their liberties instead),
`kgs-time_settings none | absolute M | byoyomi M P N | canadian M P S` (engine.timecontrol; with
byoyomi `time_left c secs n` gives the periods left as n), `final_status_list dead` and the rest of
the standard commands (gtp.commands), `kgs-game_over` (stops pondering) and `kgs-rules`. `kgs-chat`
is deliberately absent: it crashes kgsGtp 3.5.20 and later.
"""
from __future__ import annotations

from typing import Sequence

from gtp.commands import expect_args, move_job, parse_color, parse_float, parse_int
from gtp.protocol import CommandGroup, GtpError, Job

RULES = ("chinese", "aga", "new_zealand", "japanese")
# system -> number of arguments after it: main time, then byo-yomi time and periods or stones
TIME_SYSTEMS = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}


class KgsCommands(CommandGroup):
    """The `kgs-` commands, through the same Player as the standard group."""

    prefix = "kgs-"

    def __init__(self, player, live_gfx=None):
        self.player = player
        self.rules = "chinese"
        self.live_gfx = live_gfx   # gogui.LiveGfx or None

    def cmd_genmove_cleanup(self, args: Sequence[str]) -> Job:
        expect_args(args, 1)
        color = parse_color(args[0])
        return move_job(self.player, color, self.player.genmove_cleanup, self.live_gfx)

    def cmd_time_settings(self, args: Sequence[str]) -> str:
        if not args or args[0].lower() not in TIME_SYSTEMS:
            raise GtpError("syntax error")
        system = args[0].lower()
        expect_args(args[1:], TIME_SYSTEMS[system])
        numbers: list[float] = [parse_float(a, least=0) for a in args[1:]]
        if system in ("byoyomi", "canadian"):   # periods or stones are counts
            numbers[2] = parse_int(args[3], least=0)
        try:
            self.player.time.set_kgs(system, *numbers)
        except ValueError as e:   # e.g. Canadian periods of 0 stones; the clock is left as it was
            raise GtpError(str(e)) from None
        return ""

    def cmd_game_over(self, args: Sequence[str]) -> str:
        self.player.stop_pondering()   # the game is over: nothing to think about any more
        return ""

    def cmd_rules(self, args: Sequence[str]) -> str:
        expect_args(args, 1)
        rules = args[0].lower()
        if rules not in RULES:
            raise GtpError("unknown rules")
        self.rules = rules
        self.player.game.bonus_rule = "n-1" if rules == "aga" else "n"
        return ""
