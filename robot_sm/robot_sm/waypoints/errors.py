"""Errors the data store raises instead of changing anything."""


class StoreError(Exception):
    """A request the store did not carry out; the store is unchanged."""


class RequestError(StoreError):
    """A request field holds a value the store cannot accept."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f'{field}: {reason}')
        self.field = field
        self.reason = reason


class SaveError(StoreError):
    """The change could not be written to the waypoints file, so it was not made."""
