"""The ``scorekeeper`` command: ``serve`` and ``replay FILE``.

``replay`` imports only the standard library and :mod:`scorekeeper.rules` (no web framework, no
database): it starts in a few tens of milliseconds. ``serve`` imports the app when it runs.
"""

from __future__ import annotations

import json
import sys


REPLAY_EXIT_CODES = """exit codes:
  0  the record is valid (finished or not); the verdict is on standard output
  2  the record is refused: "entry N: ..." (an entry breaks a rule or has a wrong shape)
     or "record: ..." (format, game, players, options, bad JSON, a file that cannot be
     read), one line on standard error; also for a wrong command line
"""


def render(result: dict) -> str:
    """The verdict as JSON text: one top-level key per line and each round on a line of its own.

    Readable, and written by the C encoder (``json.dumps`` with ``indent`` falls back to the pure
    Python one, slower than the whole replay on a 1,000-round record)."""
    dumps = json.JSONEncoder(ensure_ascii=False).encode  # one encoder for the 1,000 rounds

    lines = []
    for key, value in result.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ",\n".join("  " + dumps(v) for v in value)
            lines.append(f" {dumps(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {dumps(key)}: {dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def replay_file(path: str) -> int:
    """Print the verdict on a record (docs/game-record.md §Replay); return the exit status:
    0 valid, 2 refused or unreadable (one line on standard error, docs/game-record.md §Refusals)."""
    from .rules import record as records

    try:
        if path == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                text = f.read()
    except OSError as err:
        print(f"record: cannot read {path}: {err.strerror or err}", file=sys.stderr)
        return 2
    if text[:4] == b"PK\x03\x04":  # a zip's first bytes: the export's zip, most likely
        print("record: this is a zip file (the app's \"Export all\"?), not a game record: unzip it and replay "
              "one of its .json records", file=sys.stderr)
        return 2
    if text.removeprefix(b"\xef\xbb\xbf").startswith(b"game_id,"):  # the export's CSV (a BOM first)
        print("record: this is the app's CSV of rounds (games.csv or a game's .csv), not a game record: replay "
              "a game's record (.json)", file=sys.stderr)
        return 2
    try:
        record = records.loads(text)
        if isinstance(record, list):  # the export's games.json, or "Export all (JSON)"
            print(f"record: a game record is a JSON object, not a list (this one holds {len(record)}: the app's "
                  "\"Export all (JSON)\"?): replay one record at a time", file=sys.stderr)
            return 2
        result = records.replay(record)
    except records.ReplayError as err:
        print(str(err), file=sys.stderr)
        return 2
    try:
        sys.stdout.write(render(result))
        sys.stdout.flush()
    except BrokenPipeError:  # `scorekeeper replay x.json | head`
        sys.stderr.close()
    return 0


def _whole(low: int, high: int, what: str):
    """An argparse ``type``: a whole number from ``low`` to ``high``, else argparse's error naming
    the option, what was given and what is valid (``--workers 0`` would start a server that
    never answers; a bad value is refused before "serving on" is printed)."""
    import argparse

    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what} from {low} to {high}")
        return value

    return check


def serve(host: str, port: int, workers: int) -> int:
    """Run the app under gunicorn on the embedded default database, with the settings of
    :mod:`scorekeeper.gunicorn_conf` (``workers`` and the address as given)."""
    from gunicorn.app.base import BaseApplication

    from . import create_app, gunicorn_conf

    app = create_app()  # migrates once, before the workers start

    class Server(BaseApplication):
        def load_config(self):
            # as gunicorn reads a config module (-c python:scorekeeper.gunicorn_conf)
            for key, value in vars(gunicorn_conf).items():
                if key in self.cfg.settings:
                    self.cfg.set(key, value)
            self.cfg.set("bind", f"{host}:{port}")
            self.cfg.set("workers", workers)
            self.cfg.set("accesslog", "-")

        def load(self):
            return app

    shown = "localhost" if host in ("0.0.0.0", "127.0.0.1", "::") else host
    print(f"scorekeeper is serving on http://{shown}:{port}/  (Ctrl+C stops it)", flush=True)
    Server().run()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "replay" and (args[1] == "-" or not args[1].startswith("-")):
        # `replay FILE` needs no parser: argparse, with the shutil and locale its help
        # formatter imports, was a fifth of the start-up. Every other command line (options,
        # --help, mistakes) is argparse's.
        return replay_file(args[1])
    import argparse

    parser = argparse.ArgumentParser(prog="scorekeeper", description="Score keeper for dice games.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="run the app (production server)")
    p_serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p_serve.add_argument("--port", type=_whole(1, 65535, "a port"), default=8000, help="port (default 8000)")
    p_serve.add_argument("--workers", type=_whole(1, 64, "a number of worker processes"), default=2,
                         help="worker processes, 1 to 64 (default 2)")
    p_replay = sub.add_parser(
        "replay", help="replay a game record and print the verdict as JSON",
        description="Replay a game record (docs/game-record.md) through the rules and print the "
                    "verdict as one JSON object: scores, winners, rounds, what comes next.",
        epilog=REPLAY_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p_replay.add_argument("file", help="a game record (.json), or - for standard input")
    args = parser.parse_args(args)
    if args.command == "replay":
        return replay_file(args.file)
    return serve(args.host, args.port, args.workers)


if __name__ == "__main__":
    sys.exit(main())
