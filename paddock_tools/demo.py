"""`paddock demo`: a small championship raced by robot drivers, offline, through the real
rules, store and renderer. Writes standings (text and PNG), race images and the database to
the output folder, printing progress as it goes."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any, cast

from bot.league_tables import standings_report
from renderer.boards import board_renderers
from rules.base import games
from rules.championship import car_colours, default_points_table
from store import Seat, Store, open_store, play
from store.verify import verify_store

GUILD_ID = 1
DRIVERS = ["Robot Ascari", "Robot Clark", "Robot Hill", "Robot Surtees"]
ROUND_NAMES = ["Silverstone", "Aintree", "Brands Hatch", "Oulton Park", "Goodwood", "Snetterton"]
LEAGUE_GAMES = ["waddington", "rf90", "pitformula"]  # the demo races the first that exists


def say(text: str) -> None:
    print(text, flush=True)


MARK = ".paddock-demo"  # in a folder the demo wrote: it may write there again
WRITTEN = ("races", "demo.db", "demo.db-wal", "demo.db-shm", "standings.txt", "standings.png")


def clear_output(out: Path) -> str | None:
    """Make `out` ready for a demo: a new or empty folder, or one a demo wrote before (only
    what the demo writes is removed there). Anything else is refused: `--out .` must never
    wipe a working folder. Returns the refusal, or None."""
    if out.exists() and not out.is_dir():
        return f"demo: {out} is a file, not a folder; pick another --out."
    if out.exists() and any(out.iterdir()):
        if not (out / MARK).exists():
            return (
                f"demo: {out} is not empty and not a previous demo's output; "
                "pick an empty or new folder for --out."
            )
        for name in WRITTEN:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    (out / "races").mkdir(parents=True, exist_ok=True)
    (out / MARK).write_text("written by paddock demo; it replaces what it wrote here\n")
    return None


async def run_demo(out: Path, *, seed: int = 2026, rounds: int = 3) -> int:
    started = time.perf_counter()
    refused = clear_output(out)
    if refused:
        say(refused)
        return 2
    available = games()
    kind = next((k for k in LEAGUE_GAMES if k in available), None)
    if kind is None:
        say("demo: no game is installed yet; nothing to race.")
        return 1
    game = available[kind]
    renderers = board_renderers()
    store = open_store(out / "demo.db")
    await store.open()
    try:
        table = default_points_table()
        league = await store.create_league(
            GUILD_ID, "Demo Championship", kind, table.name, table.points, None
        )
        colours = car_colours(kind)
        for i, name in enumerate(DRIVERS):
            await store.join_league(league, 9001 + i, name, colours[i] if colours else None)
        members = await store.members(league.id)
        say(
            f"League '{league.name}' ({game.title}), points {table.describe()}, "
            f"{len(members)} robot drivers"
        )
        for number in range(1, rounds + 1):
            rnd = await store.set_round(league, number, ROUND_NAMES[(number - 1) % 6], None)
            seats = [
                Seat(seat=i, user_id=m.user_id, name=m.display_name, robot=False, autopilot=True)
                for i, m in enumerate(members)
            ]
            config = game.simulation_config(players=len(seats))
            for entry, seat in zip(config.get("players") or [], seats, strict=False):
                if isinstance(entry, dict) and "name" in entry:
                    entry["name"] = seat.name  # the league's drivers, not "Robot N"
            say(f"Round {number}: {rnd.name}")
            state, actions = await _play_stored_game(
                store,
                out,
                f"round{number}",
                kind,
                seed + number,
                config,
                seats,
                renderers,
                league_id=league.id,
                round_id=rnd.id,
            )
            names = {s.seat: s.name for s in seats}
            result = ", ".join(
                f"{p.place}. {names[p.seat]}"
                + ("" if p.status in ("finished", "running") else f" ({p.status})")
                for p in game.classification(state)
            )
            say(f"  finished after {actions} actions: {result}")
            report = await standings_report(store, await store.league_by_id(league.id))
            say(
                "  standings: "
                + "; ".join(
                    f"{r.position}. {report.members[r.member].display_name} {r.points}"
                    for r in report.rows
                )
            )
        await _other_games(store, out, seed, renderers)
        report = await standings_report(store, await store.league_by_id(league.id))
        (out / "standings.txt").write_text(
            f"{report.title()}\n{report.subtitle()}\n\n{report.text()}\n", "utf-8"
        )
        (out / "standings.png").write_bytes(report.png())
        say("\nFinal standings\n" + report.text())
        check = await verify_store(store)
        say(check.text())
        say(
            f"Wrote {out}/standings.txt, {out}/standings.png, {out}/races/ and {out}/demo.db "
            f"in {time.perf_counter() - started:.1f} s"
        )
        return 0 if check.ok else 1
    finally:
        await store.close()


_HEADLINE_EVENTS = {"spin", "pit", "finish", "retire", "race_scored", "out_of_fuel"}


async def _play_stored_game(
    store: Store,
    out: Path,
    label: str,
    kind: str,
    seed: int,
    config: dict[str, Any],
    seats: list[Seat],
    renderers: dict[str, Any],
    **where: Any,
) -> tuple[Any, int]:
    """Robots play a game to the end, every action through the rules and the store."""
    game = games()[kind]
    record, state = await play.new_game(
        store, kind, seed, config, seats, guild_id=GUILD_ID, **where
    )
    say(f"  {game.title}: game #{record.id} starts")
    actions = 0
    shown = 0
    while not game.is_terminal(state):
        seat = game.to_act(state)[0]
        before, action = state, game.robot_action(state, seat)
        played = await play.act(store, record.id, action, actor=f"robot:{seat}", by_robot=True)
        state, actions = played.state, actions + 1
        for event in played.events:
            if event.text and event.kind in _HEADLINE_EVENTS:
                say(f"  {event.text}")
        if actions % 200 == 0:
            say(f"  ... {actions} actions")
        if kind == "rf90":
            shown = _rf90_activation_images(out, label, game, before, action, state, shown)
        elif actions == MID_RACE_ACTIONS:
            _write_race_image(out, label, kind, f"after{actions}", state, renderers)
    _write_race_image(out, label, kind, "final", state, renderers)
    if kind == "rf90":
        from renderer.rf90 import render_classification, render_dashboards
        from rules.rf90 import RF90State

        final = cast(RF90State, state)  # an rf90 game's state
        (out / "races" / f"{label}-dashboards-final.png").write_bytes(render_dashboards(final))
        (out / "races" / f"{label}-classification.png").write_bytes(render_classification(final))
    return state, actions


RF90_SHOWN_TURN = 5  # the game turn whose section activations the demo draws one by one


def _rf90_activation_images(
    out: Path, label: str, game: Any, before: Any, action: Any, after: Any, shown: int
) -> int:
    """During one chosen game turn: the track (the activated section lit) and the dashboards
    after every section activation, robots' included. The stored action is applied again,
    watching (the rules are deterministic), to get the state as each activation ended.
    Returns how many activations have been drawn."""
    from renderer.rf90 import render_dashboards, render_track

    if before.phase != "race" or not before.turn <= RF90_SHOWN_TURN <= after.turn:
        return shown
    _, _, activations = game.apply_watching(before, action)
    for section, state in activations:
        if state.turn != RF90_SHOWN_TURN:
            continue
        shown += 1
        stem = f"{label}-turn{RF90_SHOWN_TURN}-activation{shown:02d}-section{section}"
        track = render_track(state, active_section=section)
        (out / "races" / f"{stem}-track.png").write_bytes(track)
        (out / "races" / f"{stem}-dashboards.png").write_bytes(render_dashboards(state))
    return shown


async def _other_games(store: Store, out: Path, seed: int, renderers: dict[str, Any]) -> None:
    """One game of each other game that exists, outside the league."""
    available = games()
    extra: list[tuple[str, str, dict[str, Any]]] = []
    if "pitformula" in available:
        extra.append(("pitformula", "pitformula", {"players": 3}))
    if "rf90" in available:
        extra += [
            (f"rf90-{t}", "rf90", {"players": 2, "track": t}) for t in ("barcelona", "silverstone")
        ]
    for label, kind, options in extra:
        game = available[kind]
        players = options["players"]
        seats = [Seat(seat=i, user_id=None, name=DRIVERS[i], robot=True) for i in range(players)]
        say(f"\n{game.title} ({label})")
        state, actions = await _play_stored_game(
            store, out, label, kind, seed, game.simulation_config(**options), seats, renderers
        )
        names = {s.seat: s.name for s in seats}
        result = ", ".join(
            f"{p.place}. {names.get(p.seat, p.seat)}" for p in game.classification(state)
        )
        say(f"  finished after {actions} actions: {result}")


MID_RACE_ACTIONS = 120  # one board image in the middle of each race, one at the finish


def _write_race_image(
    out: Path, game_label: str, kind: str, label: str, state: Any, renderers: dict[str, Any]
) -> None:
    render = renderers.get(kind)
    if render is not None:
        (out / "races" / f"{game_label}-{kind}-{label}.png").write_bytes(render(state))
