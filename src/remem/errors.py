"""The exceptions remem raises.

Every error a user can cause carries one sentence that names the problem and how to fix it,
so the CLI can print it as a single line and an API can return it as a 4xx body.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every unprintable character (controls, line breaks, lone surrogates,
    zero-width and direction marks) escaped, so a name taken from input keeps an error message
    on one honest line."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class RememError(Exception):
    """Base class: a problem the user can act on. ``str(err)`` is the one-line message."""


class ValidationError(RememError, ValueError):
    """Bad input at an edge: names the field, the bad value and the fix."""

    def __init__(self, field: str, value: object, fix: str) -> None:
        self.field = field
        self.value = value
        self.fix = fix
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"invalid {printable(field)}: {shown}; {fix}")


class ConflictError(ValidationError):
    """The id is taken by a different record (the same record sent again is not a conflict:
    writes with an id are idempotent)."""


class ConfigError(RememError):
    """The configuration file, environment or arguments hold a value remem cannot use."""


class StorePathError(RememError):
    """The database path cannot be used (unwritable, a directory, a broken symlink ...)."""


class StoreError(RememError):
    """The database cannot be opened or is in a state remem cannot work with."""


class StoreBusyError(StoreError):
    """Another process held the store's lock for longer than the busy timeout."""


class NotFoundError(RememError, KeyError):
    """No record with that id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not found"


class EmbeddingError(RememError):
    """The embedding provider failed or answered with something unusable."""


class ModelIntegrityError(EmbeddingError):
    """A bundled model's weight file does not match its recorded checksum."""


class ProviderUnavailableError(EmbeddingError):
    """The embedding provider failed repeatedly; calls are refused for a cool-down (circuit
    breaker open) instead of each paying the full retry budget."""


class ModelNotFoundError(ConfigError, EmbeddingError):
    """The provider answered that the configured model does not exist: a configuration error
    (fix embed.model), not an outage."""
