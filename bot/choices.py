"""Long lists of legal actions asked as a few short questions (a pit stop as extra sections ->
tyres -> strategy; a card play as cards -> trajectory -> payment).

A game gives facets: each names one question and labels an action with its answer (None when
the question does not apply). The answers chosen so far are a short path of indices kept in
the button's custom_id, so a question is rebuilt from the engine's legal actions at each click
and nothing is remembered between clicks. Only legal actions are ever reachable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PAGE = 20  # answers per page: 4 rows of 5 buttons, a last row for More / Back
NONE = "none"  # the answer of the options a question does not apply to


@dataclass(frozen=True)
class Facet:
    title: str
    label: Callable[[Any], str | None]


@dataclass
class Question:
    """The next thing to ask: its title, the answers (all pages) and what was chosen so far."""

    title: str
    answers: list[str]
    chosen: list[tuple[str, str]]  # (question, answer) already given


@dataclass
class Narrowed:
    question: Question | None  # None when one action is left
    index: int | None  # that action's index in the legal actions
    path: list[int]


def narrow(options: list[Any], facets: list[Facet], path: list[int]) -> Narrowed:
    """Follow `path` (answer indices) through the facets that still tell options apart.

    A question with a single answer is not asked. After the facets, a last question labels
    each remaining option in full (the `describe` of the final facet, or its position).
    Raises ValueError for a path that does not fit these options (a stale button).
    """
    remaining = list(range(len(options)))
    chosen: list[tuple[str, str]] = []
    step = 0
    if not options:
        raise ValueError("nothing to choose")
    for facet in facets:
        labels = [facet.label(options[i]) or NONE for i in remaining]
        answers = list(dict.fromkeys(labels))
        if len(answers) < 2:
            continue  # nothing to tell apart: not asked
        if step == len(path):
            return Narrowed(Question(facet.title, answers, chosen), None, path)
        pick = path[step]
        if not 0 <= pick < len(answers):
            raise ValueError("stale path")
        chosen.append((facet.title, answers[pick]))
        remaining = [
            i for i, label in zip(remaining, labels, strict=True) if label == answers[pick]
        ]
        step += 1
    if len(remaining) > 1:
        if step == len(path):
            answers = [f"Option {n + 1}" for n in range(len(remaining))]
            return Narrowed(Question("Which one", answers, chosen), None, path)
        pick = path[step]
        if not 0 <= pick < len(remaining):
            raise ValueError("stale path")
        remaining = [remaining[pick]]
        step += 1
    if step != len(path):
        raise ValueError("stale path")
    return Narrowed(None, remaining[0], path)


def encode(token: str, path: list[int], page: int = 0) -> str:
    """The custom_id argument for a path: `token.i.j` (`.pN` for page N of the next answers)."""
    parts = [token, *map(str, path)] + ([f"p{page}"] if page else [])
    return ".".join(parts)


def decode(arg: str) -> tuple[str, list[int], int]:
    """(token, path, page); ValueError for anything else."""
    token, *rest = arg.split(".")
    page = 0
    if rest and rest[-1].startswith("p"):
        page = int(rest.pop()[1:])
    if not token.isalnum() or not all(r.isdigit() for r in rest):
        raise ValueError(f"bad path {arg!r}")
    return token, [int(r) for r in rest], page


def path_to(options: list[Any], facets: list[Facet], target: int) -> list[int]:
    """The answers that lead to options[target] (what a player clicks to choose it)."""
    path: list[int] = []
    while True:
        step = narrow(options, facets, path)
        if step.question is None:
            assert step.index == target
            return path
        remaining = [
            i
            for i in range(len(options))
            if all(_label(f, options[i]) == a for f, a in _given(facets, step.question.chosen))
        ]
        facet = next((f for f in facets if f.title == step.question.title), None)
        if facet is None:  # the last question: the position among those left
            path.append(remaining.index(target))
        else:
            path.append(step.question.answers.index(_label(facet, options[target])))


def _label(facet: Facet, option: Any) -> str:
    return facet.label(option) or NONE


def _given(facets: list[Facet], chosen: list[tuple[str, str]]) -> list[tuple[Facet, str]]:
    by_title = {f.title: f for f in facets}
    return [(by_title[title], answer) for title, answer in chosen if title in by_title]
