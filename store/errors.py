"""Store outcomes that a user may see, and the faults that stop the store working; and how
a name a user typed goes into such a message (`shown`, `in_code`: the bot uses them too)."""

import re
import sqlite3

from rules.errors import PaddockError

# Discord's markdown, escaped as discord.utils.escape_markdown(text) escapes it (discord.py
# 2.x, MIT): links left alone, every other markdown character or line start escaped. Here so
# that the store, whose messages name what users typed, needs no Discord library.
_URL = r"(?P<url><[^: >]+:\/[^ >]+>|(?:https?|steam):\/\/[^\s<]+[^<.,:;\"\'\]\s])"
_MARKDOWN = r"(?P<markdown>[_\\~|\*`]|^>(?:>>)?\s|\[.+\]\(.+\)|^#{1,3}|^\s*-)"
_ESCAPE = re.compile(f"(?:{_URL}|{_MARKDOWN})", re.MULTILINE)


def escape_markdown(text: str) -> str:
    return _ESCAPE.sub(lambda m: m["url"] or "\\" + m["markdown"], text)


def shown(text: str) -> str:
    """A name a user typed (a league, round, driver or display name, a race title), as it
    goes into message or embed text: no mention in it works (`<@id>` of any length, roles,
    channels, `@everyone`, `@here`: a zero-width space after each `<` and `@`) and its
    markdown shows as typed. Pings are also ruled out by each message's allowed_mentions;
    this keeps the text from looking like one, or like the bot's own formatting."""
    return escape_markdown(re.sub(r"([<@])", "\\1\u200b", text))


def in_code(text: str) -> str:
    """A name a user typed, inside a code span or block (nothing in one is a mention or
    markdown): only a backtick could end it early, so backticks become a look-alike."""
    return text.replace("`", "ˋ")


class NotFound(PaddockError):
    """The league, member, round or game asked for does not exist."""


class LeagueError(PaddockError):
    """A league change that the league's state does not allow (nothing was changed)."""


class StaleState(PaddockError):
    """Someone else acted first: the game moved on. Carries the state that won."""

    def __init__(self, game_id: int, seq: int, state_json: str) -> None:
        super().__init__("The game moved on before your action arrived; here is the new state.")
        self.game_id = game_id
        self.seq = seq
        self.state_json = state_json


class NothingToUndo(PaddockError):
    """An undo with nothing to take back: the last entry of the log is not one action
    appended alone (a mark, or a chain with the robots' moves), store.undo."""


class Repeated(PaddockError):
    """A command made its game a moment ago (models.Once): nothing was made this time."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"That command made game #{game_id} a moment ago.")
        self.game_id = game_id


class RoundOpened(PaddockError):
    """A league round's race was opened already (`game_id`: its race, if one is on), or
    the round can open none now (a result in, its season closed): nothing was made."""

    def __init__(self, game_id: int | None) -> None:
        super().__init__("That round's race is open already.")
        self.game_id = game_id


class MigrationError(Exception):
    """A migration failed; the database was left as it was before it."""


class StoreUnavailable(Exception):
    """The database cannot do what was asked: it is not a database, it is locked beyond the
    busy timeout, the disk is full, the file is read-only or unreadable. Nothing was changed.

    `str()` is one line naming the file: "<path>: <problem>".
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = " ".join(problem.split())  # one line, whatever SQLite said
        super().__init__(f"{path}: {self.problem}")


# What went wrong outside the SQL itself (the file, the disk, another process), by SQLite's
# primary result code; anything else (a constraint, a syntax error) is not a store fault.
_FAULTS = {
    sqlite3.SQLITE_BUSY: "the database is locked by another process",
    sqlite3.SQLITE_LOCKED: "the database is locked by another process",
    sqlite3.SQLITE_FULL: "the disk is full (or the database reached its size limit)",
    sqlite3.SQLITE_READONLY: "the database is read-only",
    sqlite3.SQLITE_IOERR: "disk I/O error",
    sqlite3.SQLITE_CANTOPEN: "cannot open the database file",
    sqlite3.SQLITE_NOTADB: "not a SQLite database",
    sqlite3.SQLITE_CORRUPT: "the database file is corrupt",
    sqlite3.SQLITE_PERM: "permission denied",
}


def fault_problem(exc: BaseException, *, busy_timeout: float | None = None) -> str | None:
    """A short description of a SQLite error caused by the file, the disk or another
    process, or None when the error is about the SQL (a constraint, a bad statement)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.Error) or code is None:
        return None
    problem = _FAULTS.get(code & 0xFF)
    if problem is None:
        return None
    if code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and busy_timeout is not None:
        problem += f" (gave up after {busy_timeout:g} s)"
    elif code & 0xFF == sqlite3.SQLITE_IOERR:
        problem += f" ({getattr(exc, 'sqlite_errorname', exc)})"
    return problem
