"""A game record as an SGF file (sgfmill), with the true result and the time of every move.

Unlike gogui-twogtp's SGFs, `RE` is the result of the game as played (who won on the board), also
in the games where the player took White. A game without a result is `RE[Void]`; a forfeit for an
illegal move (or a fault counted as a loss) is `B+F`/`W+F`, a resignation `B+R`/`W+R`.
"""
from __future__ import annotations

from sgfmill import sgf

from bench.position import parse_vertex


def game_sgf(record: dict, black: str, white: str) -> bytes:
    """The SGF of one game record (see bench.game) between engines labelled black and white."""
    size = record["board_size"]
    game = sgf.Sgf_game(size)
    root = game.get_root()
    root.set("KM", record["komi"])
    root.set("PB", black)
    root.set("PW", white)
    root.set("RU", "Chinese")
    root.set("RE", record["result"] or "Void")
    root.set("DT", record["date"].split()[0])
    root.set("EV", record["run"])
    root.set("GN", f"{record['variant']}-{record['game']}")
    if record["handicap"]:
        root.set("HA", record["handicap"])
        root.set_setup_stones([parse_vertex(v, size) for v in record["handicap_stones"]], [])
    root.set("C", _root_comment(record, black, white))
    colour = "w" if record["handicap"] else "b"
    for i, (vertex, seconds) in enumerate(zip(record["moves"], record["times"])):
        try:
            move = parse_vertex(vertex, size)
        except ValueError:
            break          # not a vertex at all: the root comment gives the reply
        node = game.extend_main_sequence()
        node.set_move(colour, move)
        comment = f"{seconds:.2f} s"
        if record["end"] == "illegal" and i == len(record["moves"]) - 1:
            comment += f"\nillegal: {record['reason']}"
        node.set("C", comment)
        colour = "w" if colour == "b" else "b"
    return game.serialise()


def _root_comment(record: dict, black: str, white: str) -> str:
    player_is_black = record["player_colour"] == "b"
    lines = [
        f"Black: {black} ({'player' if player_is_black else 'opponent'})",
        f"White: {white} ({'opponent' if player_is_black else 'player'})",
        f"Player command: {record['player_command']}",
        f"Opponent command: {record['opponent_command']}",
        f"Variant: {record['variant']}, game {record['game']}, seed {record['seed']}",
        f"End: {record['end']}",
        f"Result: {record['result'] or 'Void'}",
    ]
    if record.get("referee_command"):
        lines.append(f"Referee: {record['referee_command']}")
        lines.append(f"Referee result: {record.get('result_referee') or '?'}")
        if record.get("disagreement"):
            lines.append("Area score and referee DISAGREE")
    if record.get("dead_stones"):
        lines.append("Dead stones (referee): " + " ".join(record["dead_stones"]))
    if record.get("dispute"):
        d = record["dispute"]
        claims = ", ".join(f"{role} {result}" for role, result in d["engine_results"].items())
        lines.append(f"Disputed after move {d['after_moves']}: referee {d['result_referee']}, {claims}; "
                     "played out with kgs-genmove_cleanup, every stone left alive")
    if record.get("reason"):
        lines.append(f"Illegal move: {record['reason']}")
    if record.get("fault"):
        fault = record["fault"]
        lines.append(f"Fault: {fault['role']} {fault['kind']}: {fault['message']}")
    for role in ("player", "opponent"):
        moves, seconds = record.get(f"{role}_moves", 0), record.get(f"{role}_seconds", 0.0)
        per_move = seconds / moves if moves else 0.0
        cpu = record.get(f"{role}_cpu")
        cpu_text = "?" if cpu is None else f"{cpu:.1f}"
        lines.append(f"Time {role}: {seconds:.1f} s wall for {moves} moves ({per_move:.2f} s/move), "
                     f"{cpu_text} s CPU")
    lines += record.get("notes", [])
    lines.append(f"Host: {record['host']}")
    lines.append(f"Date: {record['date']}")
    return "\n".join(lines)
