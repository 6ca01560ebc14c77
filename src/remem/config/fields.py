"""The shapes a setting of the configuration takes, declared once: a share in [0, 1], pydantic's
own counts and durations (``NonNegativeInt``, ``PositiveInt``, ``NonNegativeFloat``,
``PositiveFloat``), and ``setting(default, description)`` for a key's default and the line the
generated reference prints. A bound of its own (``le=100``, ``ge=1``) stays a ``Field`` at its
key."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt

__all__ = [
    "NonNegativeFloat",
    "NonNegativeInt",
    "PositiveFloat",
    "PositiveInt",
    "Share",
    "setting",
]

# a fraction of something (a weight, a share of a score, a probability): 0 to 1, both included
Share = Annotated[float, Field(ge=0, le=1)]


def setting(default: Any, description: str) -> Any:
    """A key's default and its description (the generated configuration reference's line)."""
    return Field(default=default, description=description)
