"""The one error the fabric raises for bad input: a ValueError naming the field and its range."""


class FabricError(ValueError):
    """A topology, mapping or race parameter is wrong; the message names the field."""
