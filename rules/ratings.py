"""Players' ratings per game: OpenSkill's Plackett-Luce model (Weng and Lin's Bayesian
approximation, as the `openskill` package computes it) over finishing orders, one race after
the other. Pure and deterministic: the same races in the same order give the same ratings.

A race is the people who drove it with their places; robots are left out before (a robot
is not rated, and a person is rated by their order among people). A race with fewer than two
people rates nobody. A displayed rating is the ordinal, mu - 3 sigma: a new driver's is 0,
and it rises as the model grows surer that the driver is good.
"""

from __future__ import annotations

from collections.abc import Iterable

from openskill.models import PlackettLuce, PlackettLuceRating
from pydantic import BaseModel, ConfigDict

# (user id, place): a person's place in one race; None: not placed (last, level with the
# other unplaced).
RacePlaces = list[tuple[int, int | None]]


class Rating(BaseModel):
    model_config = ConfigDict(frozen=True)

    user: int
    mu: float
    sigma: float
    races: int  # races rated

    @property
    def ordinal(self) -> float:
        """The rating shown: mu - 3 sigma (0 for a driver with no race)."""
        return self.mu - 3 * self.sigma


def rate(races: Iterable[RacePlaces]) -> dict[int, Rating]:
    """Each person's rating after `races`, in the order given (oldest first)."""
    model = PlackettLuce()
    ratings: dict[int, Rating] = {}
    for race in races:
        best: dict[int, int | None] = {}
        for user, place in race:  # one seat a person (the best, if they drove two)
            if user not in best or _rank(place) < _rank(best[user]):
                best[user] = place
        if len(best) < 2:
            continue
        users = sorted(best, key=lambda u: (_rank(best[u]), u))
        last = max((p for p in best.values() if p is not None), default=0) + 1
        teams = [[_model_rating(model, ratings.get(u))] for u in users]
        ranks = [float(p) if (p := best[u]) is not None else float(last) for u in users]
        rated = model.rate(teams, ranks=ranks)
        for user, (new,) in zip(users, rated, strict=True):
            before = ratings.get(user)
            ratings[user] = Rating(
                user=user, mu=new.mu, sigma=new.sigma, races=(before.races if before else 0) + 1
            )
    return ratings


def _rank(place: int | None) -> float:
    return float("inf") if place is None else place


def _model_rating(model: PlackettLuce, rating: Rating | None) -> PlackettLuceRating:
    return model.rating() if rating is None else model.rating(mu=rating.mu, sigma=rating.sigma)
