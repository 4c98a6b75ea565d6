"""The GTP front end: protocol, command groups and the `tesuji` command line.

Parses and answers; holds no Go logic (vertex names are converted by `engine.coords`). Modules, in
dependency order:

- `protocol`   GTP v2 framing: preprocessing, ids, `=`/`?` replies, error handling, background jobs
               (streams, `# interrupt`)
- `commands`   standard GTP v2 commands and common extensions
- `kgs`        kgsGtp extensions
- `analysis`   lz-analyze / kata-analyze streams and *-genmove_analyze (Sabaki, Lizzie)
- `gogui`      GoGui analyze commands and views, interrupt, live graphics, parameters
- `tactics_commands` attack / defend in GnuGo's format (its regression files run unchanged), solver queries,
               `bps_config` (the `reading:` settings)
- `server`     the wiring: the player from the engine's builder, every command group around it, and
               serving on stdin/stdout
- `cli`        `tesuji gtp [--config FILE] [--set key=value ...]`: arguments and configuration, then `server`
"""
