"""What a match run reports, from its records and its engines as probed: summary.txt and summary.json
(the table, the unfinished games by id, each variant's test or pair counts, the figures), a
gogui-twogtp `.dat` file per variant, winrate.png, and the progress line shown as the games come in.
The pieces are bench.report's."""
from __future__ import annotations

from bench import report
from bench.matchrun import Run
from bench.records import write_summary


def title(run: Run) -> str:
    cfg = run.cfg
    games = f"SPRT, at most {cfg.games}" if cfg.sprt else f"{cfg.games}"
    pairs = f" in pairs on {cfg.openings_file}" if cfg.paired else ""
    return f"{setting(run)}, {games} games per variant{pairs}"


def setting(run: Run) -> str:
    """Who plays whom, on what board, komi, handicap and clock."""
    cfg = run.cfg
    first = run.info[f"player:{cfg.variants[0].name}"]
    player = first.label if len(cfg.variants) == 1 else (cfg.player.label or first.name)
    handicap = f", handicap {cfg.handicap}" if cfg.handicap else ""
    timed = f", {cfg.time.describe()}" if cfg.time else ""
    return (f"{player} vs {run.info['opponent'].label}: {cfg.board_size}x"
            f"{cfg.board_size}, komi {cfg.komi:g}{handicap}{timed}")


def progress_line(run: Run) -> str:
    """Each variant's W-L(-D), and with an SPRT its LLR and bounds (or decision)."""
    tests = {t.variant: t for t in run.sequentials()}
    parts = []
    for s in run.summaries():
        text = f"{s.wins}-{s.losses}" + (f"-{s.draws}" if s.draws else "")
        text = f"{s.variant} {text}" + (f" ({s.faults}F)" if s.faults else "")
        t = tests.get(s.variant)
        if t is not None and t.test is not None:
            text += f" LLR {t.llr:.2f} [{t.test.lower:.2f}, {t.test.upper:.2f}]"
            text += f" {report.DECISIONS[t.result]}" if t.result in ("H0", "H1") else ""
        parts.append(text)
    return " | ".join(parts)


def summary_text(run: Run) -> str:
    """summary.txt: the table, then each variant's test or pair counts."""
    tests = run.sequentials()
    table = report.format_table(run.summaries(), title(run))
    return "\n\n".join([table] + [report.format_sequential(t, run.cfg.openings_file) for t in tests])


def write_reports(run: Run, with_plot: bool = True) -> str:
    summaries = run.summaries()
    tests = run.sequentials()
    text = summary_text(run)
    figures = [report.figure_dict(s, setting(run)) for s in summaries]
    for t in tests:
        figures += report.sequential_figures(t, setting(run))
    summary = {"title": title(run), "variants": [report.summary_dict(s) for s in summaries],
               "figures": figures}
    if tests:
        summary["sequential"] = [report.sequential_dict(t) for t in tests]
    write_summary(run.dir, summary, text)
    for v in run.cfg.variants:
        report.write_dat(run.dir / f"{v.name}.dat", run.variant_records(v.name), _dat_header(run, v.name))
    if with_plot:
        report.plot(run.dir / "winrate.png", summaries, title(run))
    return text


def _dat_header(run: Run, variant: str) -> dict:
    black, white = run.info[f"player:{variant}"], run.info["opponent"]
    referee = run.info.get("referee")
    return {"Date": run.started, "Black": black.name, "BlackCommand": black.command,
            "BlackLabel": black.label, "BlackVersion": black.version, "White": white.name, "WhiteCommand": white.command,
            "WhiteLabel": white.label, "WhiteVersion": white.version,
            "Komi": f"{run.cfg.komi:g}", "Size": run.cfg.board_size,
            "Referee": referee.name if referee else "-"}
