"""A broken GTP engine on cue, standing in for a faulty engine in the match harness tests.

    python tests/bench/fake_engine.py [--fail crash|hang|illegal|garbage|error|slow] [--at N]
                                      [--game G --this-game K] [--moves M] [--score RESULT]
                                      [--pidfile PATH] [--hangfile PATH] [--sleep S] [--log PATH]

It plays the first point it believes empty (scanning from A1; it does not track captures, so it
never picks an occupied point by mistake), and on its N-th genmove it fails as asked: exits
(crash), stops answering (hang), plays an occupied point (illegal), replies with something that is
not a vertex (garbage), answers `? ...` (error), or takes three seconds and plays on (slow). With
--game G it fails only when --this-game (the harness's {game}) equals G, so the run can show the
next game going normally. After M moves
it only passes, so that a game it does not break ends with two passes. With --score it answers
`final_score` with that fixed result (and no dead stones), to play a referee that disagrees.
With --pidfile it writes its process id there, so a test can check that it was stopped; with
--hangfile it writes it there when it starts to hang, so a test can wait until a game is stuck.
With --sleep every genmove first sleeps S seconds (a slow engine on the clock); with --log every
command line it reads is appended there. It takes the time commands (time_settings,
kgs-time_settings, time_left) and ignores them.
"""
import argparse
import os
import sys
import time

LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail", default="none")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--game", type=int, nargs="+", default=None)
    parser.add_argument("--this-game", type=int, default=None)
    parser.add_argument("--moves", type=int, default=10**6)
    parser.add_argument("--score", default=None)
    parser.add_argument("--pidfile", default=None)
    parser.add_argument("--hangfile", default=None)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    append_pid(args.pidfile)
    armed = args.game is None or args.this_game in args.game
    size = 19
    occupied: list[str] = []
    n_genmove = 0
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        ident = ""
        if parts[0].isdigit():
            ident, parts = parts[0], parts[1:]
        command, args_ = parts[0], parts[1:]
        if args.log:
            with open(args.log, "a") as f:
                f.write(" ".join(parts) + "\n")
        reply, ok = "", True
        if command == "quit":
            respond(ident, "")
            return
        if command == "name":
            reply = "Fake"
        elif command == "version":
            reply = "1"
        elif command == "protocol_version":
            reply = "2"
        elif command == "list_commands":
            reply = "\n".join(["boardsize", "clear_board", "komi", "play", "genmove", "name", "version",
                               "protocol_version", "list_commands", "quit", "time_settings",
                               "kgs-time_settings", "time_left"]
                              + (["final_score", "final_status_list"] if args.score else []))
        elif command == "boardsize":
            size = int(args_[0])
        elif command == "clear_board":
            occupied = []
        elif command in ("komi", "time_settings", "kgs-time_settings", "time_left"):
            pass
        elif command == "play":
            if args_[1].lower() != "pass":
                occupied.append(args_[1].upper())
        elif command == "genmove":
            n_genmove += 1
            time.sleep(args.sleep)
            fail = args.fail if armed and n_genmove == args.at else "none"
            if fail == "crash":
                sys.exit(3)
            if fail == "hang":
                append_pid(args.hangfile)
                time.sleep(3600)        # the fault itself: a genmove that never answers
            if fail == "slow":
                time.sleep(3)
            if fail == "error":
                reply, ok = "cannot think", False
            elif fail == "garbage":
                reply = "Z99"
            elif fail == "illegal" and occupied:
                reply = occupied[-1]
            elif n_genmove > args.moves:
                reply = "pass"
            else:
                reply = first_empty(size, occupied)
                if reply != "pass":
                    occupied.append(reply)
        elif command == "final_score" and args.score:
            reply = args.score
        elif command == "final_status_list" and args.score:
            reply = ""
        else:
            reply, ok = "unknown command", False
        respond(ident, reply, ok)


def append_pid(path: str | None) -> None:
    if path:
        with open(path, "a") as f:
            f.write(f"{os.getpid()}\n")


def first_empty(size: int, occupied: list[str]) -> str:
    for row in range(1, size + 1):
        for col in LETTERS[:size]:
            if f"{col}{row}" not in occupied:
                return f"{col}{row}"
    return "pass"


def respond(ident: str, text: str, ok: bool = True) -> None:
    sys.stdout.write(f"{'=' if ok else '?'}{ident} {text}\n\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
