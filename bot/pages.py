"""Long texts cut into pages within Discord's limits (an embed field 1,024 characters, a
description 4,096, a message 2,000), turned with ◀ / ▶ buttons whose custom_ids name the
page (`pd:<area>:<ref>:page:<what>.<n>`, or `<what>-<a>-<b>.<n>` for a text made from
numbers, e.g. a log's last action and how many actions it tells), so a restart keeps them
working."""

from __future__ import annotations

import re

import discord

from bot import limits
from bot.components import button, view_of
from bot.limits import EMBED_DESCRIPTION, EMBED_FIELD

FIELD, DESCRIPTION, MESSAGE = EMBED_FIELD, EMBED_DESCRIPTION, limits.MESSAGE
PAGE_ARG = re.compile(r"(?P<what>[a-z]+)(?P<numbers>(?:-\d{1,19})*)\.(?P<page>\d{1,4})")


def pages(lines: list[str], limit: int) -> list[str]:
    """`lines` packed into as few pages as fit in `limit` characters each (a line longer
    than a page is cut); one empty page for no lines."""
    out: list[str] = []
    current = ""
    for line in lines:
        line = line if len(line) <= limit else line[: limit - 1] + "…"
        joined = f"{current}\n{line}" if current else line
        if len(joined) > limit:
            out.append(current)
            joined = line
        current = joined
    return [*out, current]


def page_view(area: str, ref: int, what: str, page: int, count: int) -> discord.ui.View | None:
    """◀ / ▶ for page `page` (0-based) of `count`; None when everything fits on one."""
    if count <= 1:
        return None
    return view_of(
        button("◀", area, ref, "page", f"{what}.{max(page - 1, 0)}", disabled=page <= 0),
        button(f"{page + 1} / {count}", area, ref, "at", f"{what}.{page}", disabled=True),
        button(
            "▶", area, ref, "page", f"{what}.{min(page + 1, count - 1)}", disabled=page >= count - 1
        ),  # fmt: skip
    )


def page_of(arg: str | None, kinds: tuple[str, ...]) -> tuple[str, int] | None:
    """(what, page) of a page button's argument, None if it is not one of `kinds`."""
    match = PAGE_ARG.fullmatch(arg or "")
    if match is None or match["what"] not in kinds or match["numbers"]:
        return None
    return match["what"], int(match["page"])


def numbered_page_of(arg: str | None, kind: str, count: int) -> tuple[list[int], int] | None:
    """(numbers, page) of a page button of `kind` named by `count` numbers (`what` given
    to `page_view` as `<kind>-<a>-<b>`), None for anything else."""
    match = PAGE_ARG.fullmatch(arg or "")
    if match is None or match["what"] != kind:
        return None
    numbers = [int(n) for n in match["numbers"].split("-")[1:]]
    return (numbers, int(match["page"])) if len(numbers) == count else None
