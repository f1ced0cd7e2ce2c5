"""The league tests' helpers, shared with the other bot tests that run league commands."""

from __future__ import annotations

from paddock_tools.fakediscord import ALICE, Calls, FakeUser, InProcessDriver


async def confirmed(d: InProcessDriver, *path: str, user: FakeUser = ALICE, **kw: object) -> Calls:
    """An admin command that asks first: run it, then press its Confirm as the same admin.
    Returns the calls of the click (the question's edit and the public answer)."""
    asked = await d.slash(*path, user=user, **kw)
    assert asked.ephemeral and asked.content.endswith(("cannot be undone.", "standings.")), asked
    confirm, cancel = asked.last.custom_ids
    assert ":cancel:" in cancel
    return await d.click(confirm, user=user)
