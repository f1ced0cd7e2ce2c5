"""How a name a user typed is shown in Discord (store.errors.shown): its markdown escaped as
discord.py's own `escape_markdown` escapes it, with no mention left working, though the store
does not import Discord's library."""

from __future__ import annotations

import discord.utils
import pytest

from store.errors import escape_markdown, shown

NAMES = [
    "plain",
    "*bold* and __under__",
    "~~gone~~ ||spoiler|| `code`",
    "back\\slash",
    "> quoted\n>>> block",
    "# Big\n## smaller\n### small\n#### not a heading",
    "- a list\n  - nested",
    "[a link](https://example.com/a_b)",
    "see https://example.com/x_y_z, and <https://a.b/c_d>",
    "steam://run/1_2 *x*",
    "snake_case_name",
    "",
]


@pytest.mark.parametrize("name", NAMES)
def test_markdown_is_escaped_as_discord_escapes_it(name: str) -> None:
    assert escape_markdown(name) == discord.utils.escape_markdown(name)


def test_no_mention_works_and_the_markdown_shows_as_typed() -> None:
    assert shown("<@123> *Cup* @everyone") == "<\u200b@\u200b123> \\*Cup\\* @\u200beveryone"
