"""Errors that carry a message fit to show a player or league member."""


class PaddockError(Exception):
    """Base of every user-facing error: `message` is short and says what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IllegalAction(PaddockError):
    """An action the rules do not allow now; nothing was changed."""


class NotYourTurn(IllegalAction):
    """The seat that tried to act is not a seat to act."""

    def __init__(self, message: str = "It's not your turn.") -> None:
        super().__init__(message)


class BadConfig(PaddockError, ValueError):
    """A game configuration the rules refuse (`new_game`); nothing was started. `message`
    says why in a player's words. A ValueError too, as configuration errors always were."""


class PlayerCount(BadConfig):
    """The number of players does not fit: `mode` takes `least` to `most`, not `given`
    (a bot says what to do about it in its own terms: who joins, who leaves)."""

    def __init__(self, message: str, *, mode: str, least: int, most: int, given: int) -> None:
        super().__init__(message)
        self.mode, self.least, self.most, self.given = mode, least, most, given
