"""Store outcomes that a user may see."""

from rules.errors import PaddockError


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


class MigrationError(Exception):
    """A migration failed; the database was left as it was before it."""
