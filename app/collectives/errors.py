"""The one exception the engine raises for bad parameters."""


class CollectiveError(ValueError):
    """A parameter of `simulate` is out of range; the message names it and what is allowed."""
