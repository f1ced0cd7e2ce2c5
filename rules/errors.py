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
