"""`paddock` command line: run, web, demo, migrate, simulate, verify, copy-db, bench."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path

from pydantic import SecretStr

from bot.settings import MissingSetting, Settings, load_settings, require_token
from rules.errors import PaddockError

_TRACEBACKS = logging.Formatter()


class RedactSecrets(logging.Filter):
    """Keep the token out of every log line, whatever logs it: the message, a traceback
    (the text of an exception) and a stack."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secret:
            return True
        if self.secret in record.getMessage():
            record.msg = record.getMessage().replace(self.secret, "[token]")
            record.args = ()
        if record.exc_info and not record.exc_text:
            # A formatter renders the traceback into exc_text only when that is empty:
            # render it here, so that the text every handler prints is the redacted one.
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = record.exc_text.replace(self.secret, "[token]")
        if record.stack_info:
            record.stack_info = record.stack_info.replace(self.secret, "[token]")
        return True


def _not_voice_notice(record: logging.LogRecord) -> bool:
    # Paddock never uses voice; discord.py's start-up notice about it is noise.
    return "voice will NOT be supported" not in record.getMessage()


def setup_logging(level: str, secret: str = "") -> None:
    handler = logging.StreamHandler()
    handler.addFilter(_not_voice_notice)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    if secret:
        handler.addFilter(RedactSecrets(secret))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _db(args: argparse.Namespace, settings: Settings) -> str | Path:
    """The database a command uses: --db-url, --db (a SQLite file), else the settings
    (PADDOCK_DATABASE_URL when set, else PADDOCK_DB_PATH)."""
    if getattr(args, "db_url", None):
        return str(args.db_url)
    if args.db:
        return Path(args.db)
    url = settings.database_url.get_secret_value().strip() if settings.database_url else ""
    return url or settings.db_path


def _name(source: str | Path) -> str:
    """The database as messages name it: a file, or a URL without its password."""
    from store.postgres_connection import redacted

    return redacted(source) if isinstance(source, str) and "://" in source else str(source)


def _store_failed(path: str | Path, exc: Exception) -> int:
    """One line on stderr naming the database and what is wrong with it; exit code 2."""
    from store.errors import StoreUnavailable

    text = str(exc) if isinstance(exc, StoreUnavailable) else f"{_name(path)}: {exc}"
    print("paddock: " + " ".join(text.split()), file=sys.stderr)
    return 2


def _store_errors() -> tuple[type[Exception], ...]:
    from store.errors import MigrationError, StoreUnavailable

    return (StoreUnavailable, MigrationError)


async def _open_and_close(path: str | Path) -> list[str]:
    """Open the store (applying migrations) and close it again: the checks `run` makes
    before it connects to Discord, so a bad database is one line, not a traceback."""
    from store import open_store

    store = open_store(path)
    try:
        return await store.open()
    finally:
        await store.close()


def cmd_run(args: argparse.Namespace) -> int:
    import discord

    from bot.client import create_bot
    from bot.ops import OpsUnavailable

    try:
        settings = load_settings()
        token = require_token(settings)
    except MissingSetting as exc:
        print(exc.code, file=sys.stderr)
        return 2
    if args.db:  # a file named on the command line wins over PADDOCK_DATABASE_URL
        settings.db_path, settings.database_url = Path(args.db), None
    if args.db_url:
        settings.database_url = SecretStr(args.db_url)
    source = _db(args, settings)
    setup_logging(settings.log_level, token)
    try:
        applied = asyncio.run(_open_and_close(source))
    except _store_errors() as exc:
        return _store_failed(source, exc)
    if applied:
        logging.getLogger("paddock").info("applied migrations: %s", ", ".join(applied))
    shards = settings.shards
    if shards is not None:
        logging.getLogger("paddock").info(
            "running shards %s of %d", ",".join(map(str, shards.ids)), shards.count
        )
    bot = create_bot(settings)
    try:
        bot.run(token, log_handler=None)
    except _store_errors() as exc:
        return _store_failed(source, exc)
    except OpsUnavailable as exc:
        print(f"paddock: {exc}", file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print(
            "paddock: Discord refused PADDOCK_TOKEN; reset the token in the Developer "
            "Portal and put the new one in .env.",
            file=sys.stderr,
        )
        return 2
    except discord.PrivilegedIntentsRequired:
        print(
            "paddock: PADDOCK_MESSAGE_CONTENT=true needs the Message Content intent enabled "
            "for the bot in the Developer Portal.",
            file=sys.stderr,
        )
        return 2
    return 0


def cmd_web(args: argparse.Namespace) -> int:
    """The league site alone, reading the bot's database (read-only) until stopped. With
    `--parent PID` (`paddock run`'s child, bot/site_child.py): it ends with that process, and
    prints host:port on stdout once it listens."""
    from web.server import die_with_parent, serve

    if args.parent is not None:
        die_with_parent(args.parent)
    if args.nice is not None:
        if not 0 <= args.nice <= 19:
            print("web: --nice takes 0 to 19", file=sys.stderr)
            return 2
        os.nice(args.nice)  # the pages wait for the CPU before a driver's answer does

    try:
        settings = load_settings()
    except MissingSetting as exc:
        print(exc.code, file=sys.stderr)
        return 2
    source = _db(args, settings)
    port = args.port if args.port is not None else settings.web_port or DEFAULT_WEB_PORT
    host = args.host or settings.web_host
    if not 0 <= port <= 65535:
        print("web: --port takes 0 to 65535", file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    try:
        asyncio.run(
            serve(
                source,
                host=host,
                port=port,
                base_url=settings.web_base_url,
                trusted_proxies=settings.trusted_proxies,
                parent=args.parent,
                listening=_listening if args.parent is not None else None,
            )
        )
    except _store_errors() as exc:
        return _store_failed(source, exc)
    except OSError as exc:
        print(f"paddock: the league site cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


def _listening(address: str) -> None:
    print(address, flush=True)  # what the bot's supervisor waits for (bot/site_child.py)


def cmd_migrate(args: argparse.Namespace) -> int:
    path = _db(args, load_settings())
    try:
        applied = asyncio.run(_open_and_close(path))
    except _store_errors() as exc:
        return _store_failed(path, exc)
    print(f"{_name(path)}: " + (f"applied {', '.join(applied)}" if applied else "up to date"))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from store import open_store
    from store.verify import VerifyReport, verify_store

    path = _db(args, load_settings())
    if isinstance(path, Path) and not path.exists():
        print(f"verify: no database at {path}", file=sys.stderr)
        return 2

    async def go() -> VerifyReport:
        store = open_store(path)
        try:
            await store.open(run_migrations=False)
            return await verify_store(store)
        finally:
            await store.close()

    try:
        report = asyncio.run(go())
    except _store_errors() as exc:
        return _store_failed(path, exc)
    print(report.text())
    return 0 if report.ok else 1


def cmd_copy_db(args: argparse.Namespace) -> int:
    from store import PostgresStore, SqliteStore, open_store
    from store.postgres_copy import CopyRefused, CopyReport, copy_sqlite_to_postgres

    source, target = open_store(args.source), open_store(args.target)
    if not isinstance(source, SqliteStore) or not isinstance(target, PostgresStore):
        print(
            "copy-db: copies a SQLite file (--from sqlite:///path) to PostgreSQL "
            "(--to postgresql://...)",
            file=sys.stderr,
        )
        return 2
    if not Path(source.path).exists():
        print(f"copy-db: no database at {source.path}", file=sys.stderr)
        return 2

    async def go() -> CopyReport:
        try:
            await source.open(run_migrations=False)
            await target.open()
            return await copy_sqlite_to_postgres(source, target)
        finally:
            await source.close()
            await target.close()

    try:
        report = asyncio.run(go())
    except CopyRefused as exc:
        print(f"copy-db: {exc}", file=sys.stderr)
        return 2
    except _store_errors() as exc:
        return _store_failed(args.target, exc)
    print(report.text())
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from rules.base import games

    known = games()
    if args.game not in known:
        names = ", ".join(sorted(known)) or "none yet"
        print(f"simulate: unknown game {args.game!r} (known: {names})", file=sys.stderr)
        return 2
    game = known[args.game]
    own = {_dest(o.flag) for o in game.spec.simulate}
    given = {
        dest: getattr(args, dest)
        for dest in _simulate_dests()
        if getattr(args, dest, None) is not None
    }
    if others := sorted(set(given) - own):
        print(
            f"simulate: {', '.join('--' + o for o in others)} is not an option of {args.game}",
            file=sys.stderr,
        )
        return 2
    options = {"players": args.players, **given} if args.players is not None else given
    if args.races is not None:
        return _simulate_races(args, known[args.game], options)
    try:
        result = known[args.game].simulate(args.seed, **options)
    except PaddockError as exc:
        print(f"simulate: {exc.message}", file=sys.stderr)
        return 2
    except (NotImplementedError, ValueError, TypeError) as exc:
        print(f"simulate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print(f"{result['game']} seed {result['seed']}: {result['actions']} actions")
        for entry in result["classification"]:
            print(f"  {entry.get('place')}. seat {entry.get('seat')} ({entry.get('status')})")
    return 0


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _simulate_dests() -> list[str]:
    """The game options `paddock simulate` takes: those the registered games' specs name."""
    from rules.base import specs

    return sorted({_dest(o.flag) for spec in specs().values() for o in spec.simulate})


def _simulate_races(args: argparse.Namespace, game: object, options: dict) -> int:
    """`simulate GAME --races N`: N races from seed --seed on, reported by car type."""
    from importlib import import_module

    try:
        runner = import_module(f"rules.{args.game}.simulate").simulate_races
    except (ImportError, AttributeError):
        print(f"simulate: --races is not available for {args.game}", file=sys.stderr)
        return 2
    try:
        report = runner(game, args.races, args.seed, **options)
    except PaddockError as exc:
        print(f"simulate: {exc.message}", file=sys.stderr)
        return 2
    except (NotImplementedError, ValueError, TypeError) as exc:
        print(f"simulate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, sort_keys=True))
        return 0
    last = report["first_seed"] + report["races"] - 1
    print(
        f"{report['game']} {report['track']}: {report['races']} races "
        f"(seeds {report['first_seed']}-{last}), {report['players']} player seat(s)"
    )
    print(
        f"{'car type':<10} {'cars':>4} {'wins':>5} {'win rate':>8} {'per car':>8} "
        f"{'sections/turn':>13} {'out':>6}"
    )
    for kind, cars in report["cars"].items():
        print(
            f"{kind:<10} {cars:>4} {report['wins'][kind]:>5} "
            f"{report['win_rate'][kind]:>8.1%} {report['win_rate_per_car'][kind]:>8.1%} "
            f"{report['sections_per_turn'][kind]:>13.2f} {report['out'][kind]:>6.1%}"
        )
    beats = report.get("seat_beats_superfast")
    if beats is not None:
        print(f"a player seat finished ahead of every SuperFast robot in {beats:.1%} of its races")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from paddock_tools.demo import run_demo

    setup_logging("WARNING")
    return asyncio.run(run_demo(Path(args.out), seed=args.seed, rounds=args.rounds))


def cmd_bench(args: argparse.Namespace) -> int:
    from paddock_tools.bench import PART_NAMES, SITE_MODES, run_bench

    if args.mixed_seconds is not None and not 5 <= args.mixed_seconds <= 3600:
        print("bench: --mixed-seconds takes 5 to 3600 seconds", file=sys.stderr)
        return 2
    if args.burst is not None and not 4 <= args.burst <= 1000:
        print("bench: --burst takes 4 to 1000 games", file=sys.stderr)
        return 2
    if args.db and not args.db.startswith(("postgresql://", "postgres://")):
        print("bench: --db takes a postgresql://... URL (SQLite is the default)", file=sys.stderr)
        return 2
    if args.site_pairs is not None and not 1 <= args.site_pairs <= 20:
        print("bench: --site-pairs takes 1 to 20 pairs", file=sys.stderr)
        return 2
    if args.site_turns is not None and not 2 <= args.site_turns <= 600:
        print("bench: --site-turns takes 2 to 600 seconds", file=sys.stderr)
        return 2
    if args.site_modes is not None and not set(args.site_modes.split(",")) <= set(SITE_MODES):
        print(f"bench: --site-modes takes {','.join(SITE_MODES)} or one of them", file=sys.stderr)
        return 2
    only = [name.strip() for name in (args.only or "").split(",") if name.strip()]
    if args.site:
        only += [name for name in ("site", "site_load") if name not in only]
    unknown = sorted(set(only) - set(PART_NAMES))
    if unknown:
        print(
            f"bench: unknown part {', '.join(unknown)} (parts: {', '.join(PART_NAMES)})",
            file=sys.stderr,
        )
        return 2
    setup_logging("WARNING")
    try:
        result = asyncio.run(
            run_bench(
                quick=args.quick,
                db=args.db,
                only=only or None,
                mixed_seconds=args.mixed_seconds,
                burst_games=args.burst,
                site_pairs=args.site_pairs,
                site_modes=args.site_modes.split(",") if args.site_modes else SITE_MODES,
                site_turns=args.site_turns,
            )
        )
    except _store_errors() as exc:
        return _store_failed(args.db, exc)
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


DEFAULT_WEB_PORT = 8080
DB_URL_HELP = "postgresql://user@host/db (default: PADDOCK_DATABASE_URL; --db wins over it)"


class _Defaults(argparse.HelpFormatter):
    """Each option's help ends with its default, when it has one worth saying."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "default" not in text:
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    from rules.base import games, specs
    from rules.spec import SimOption, resolve

    parser = argparse.ArgumentParser(
        prog="paddock", description="Racing board games and championships in Discord."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        # --help shows what the command does and every option's default
        return sub.add_parser(
            name,
            help=summary,
            description=description,
            formatter_class=_Defaults,
        )

    p = command(
        "run",
        "run the bot (needs PADDOCK_TOKEN)",
        "Run the Discord bot. Settings come from the environment or .env (see .env.example).",
    )
    p.add_argument("--db", help="SQLite file (default: PADDOCK_DB_PATH or paddock.db)")
    p.add_argument("--db-url", help=DB_URL_HELP)
    p.set_defaults(func=cmd_run)

    p = command(
        "demo",
        "play a small robot championship offline into ./demo-out",
        "Play a robot championship offline: standings, race images and a verified database "
        "in --out (a new or empty folder, or a previous demo's: nothing else is removed).",
    )
    p.add_argument("--out", default="demo-out", help="the output folder")
    p.add_argument("--seed", type=int, default=2026, help="the championship's seed")
    p.add_argument("--rounds", type=int, default=3, help="league rounds to race")
    p.set_defaults(func=cmd_demo)

    p = command(
        "web",
        "serve the league site alone (read-only)",
        "Serve the league site (leagues whose admins ran `/league-admin web state:on`) from "
        "the bot's database, opened read-only; links use PADDOCK_WEB_BASE_URL.",
    )
    p.add_argument("--db", help="SQLite file (default: PADDOCK_DB_PATH or paddock.db)")
    p.add_argument("--db-url", help=DB_URL_HELP)
    p.add_argument(
        "--host", help="the address to listen on (default: PADDOCK_WEB_HOST or 127.0.0.1)"
    )
    p.add_argument(
        "--port",
        type=int,
        help=f"the port (default: PADDOCK_WEB_PORT or {DEFAULT_WEB_PORT}; 0: any free port)",
    )
    p.add_argument(
        "--nice",
        type=int,
        metavar="N",
        help="lower the site's CPU priority by N (0-19), so that a bot on the same machine "
        "answers first when both want the CPU (`paddock run`'s own site: 10)",
    )
    # `paddock run`'s own child (bot/site_child.py): the bot's process id, not for people
    p.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_web)

    p = command(
        "migrate",
        "apply pending database migrations",
        "Apply the database migrations not applied yet (the bot also does at start-up).",
    )
    p.add_argument("--db", help="SQLite file (default: PADDOCK_DB_PATH or paddock.db)")
    p.add_argument("--db-url", help=DB_URL_HELP)
    p.set_defaults(func=cmd_migrate)

    known = ", ".join(sorted(games()))
    p = command(
        "simulate",
        "play a robot-only game and print the result",
        f"Play a robot-only game and print its result. Games: {known}.",
    )
    p.add_argument("game", help=f"one of: {known}")
    p.add_argument("--seed", type=int, default=1, help="the seed (with --races: the first)")
    p.add_argument(
        "--races",
        type=int,
        help="play this many races (seeds --seed on) and report win rates by car type (rf90)",
    )
    p.add_argument("--players", type=int, help="player seats (the game's default if unset)")
    flags: dict[str, SimOption] = {}
    for spec in specs().values():  # each game's own options, declared in its spec
        for option in spec.simulate:
            flags.setdefault(option.flag, option)
    for option in flags.values():
        values = f": {', '.join(map(str, resolve(option.values)))}" if option.values else ""
        p.add_argument(option.flag, type=option.type, help=option.help + values)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=cmd_simulate)

    p = command(
        "verify",
        "replay every game's log and compare with its snapshot",
        "Replay every game's action log from its seed and compare with the stored snapshot; "
        "exit code 1 if any differs.",
    )
    p.add_argument("--db", help="SQLite file (default: PADDOCK_DB_PATH or paddock.db)")
    p.add_argument("--db-url", help=DB_URL_HELP)
    p.set_defaults(func=cmd_verify)

    p = command(
        "copy-db",
        "copy a SQLite database into an empty PostgreSQL one",
        "Copy every league, game, action and timer from SQLite into an empty PostgreSQL "
        "database; then `paddock verify --db-url` checks the copy.",
    )
    p.add_argument("--from", dest="source", required=True, help="sqlite:///path (or a path)")
    p.add_argument("--to", dest="target", required=True, help="postgresql://user@host/db")
    p.set_defaults(func=cmd_copy_db)

    p = command(
        "bench",
        "measure speed and memory",
        "Measure speed and memory (the budgets: docs/architecture.md; past runs: "
        "docs/performance.md); progress on stderr, the result on stdout.",
    )
    p.add_argument("--quick", action="store_true", help="a shorter run (a minute or two)")
    p.add_argument(
        "--db",
        help="run on this PostgreSQL server (postgresql://user@host/db; a schema per part, "
        "dropped afterwards) instead of SQLite files",
    )
    p.add_argument(
        "--only",
        metavar="PARTS",
        help="run only these parts, comma-separated: league, waddington, pitformula, rf90, "
        "simulations, concurrency, mixed, burst, two_processes, memory, site, site_load",
    )
    p.add_argument(
        "--site",
        action="store_true",
        help="the league site's parts (as --only site,site_load): its pages' p50/p95/p99 on "
        "1,000 leagues and 10,000 finished races, and the mixed load with and without 20 "
        "page requests a second, in pairs",
    )
    p.add_argument(
        "--site-pairs",
        type=int,
        metavar="N",
        help="the site_load part's pairs of runs (default 3; 1 with --quick)",
    )
    p.add_argument(
        "--site-turns",
        type=float,
        metavar="S",
        help="instead of pairs of runs, one run a mode (300 s, or --mixed-seconds) with the "
        "site's visitors coming and going every S seconds, the bot's answers compared "
        "between the turns with and without them",
    )
    p.add_argument(
        "--site-modes",
        metavar="MODES",
        help="where the site_load part's site is served: own_process (`paddock web` beside "
        "the bot), in_bot (PADDOCK_WEB_PORT: the bot's child process), comma-separated "
        "(default both, pairs of each)",
    )
    p.add_argument(
        "--mixed-seconds",
        type=float,
        metavar="S",
        help="how long the mixed load's users act, and the burst's (default 60; 15 with "
        "--quick): a longer run shows whether the RSS stays flat",
    )
    p.add_argument(
        "--burst",
        type=int,
        metavar="N",
        help="how many games the burst opens at one instant (default 200; 20 with --quick)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object on one line")
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
