"""Which sessions a turn may recall: the cross-session mode, resolved in one place.

Per-session settings come in layers, narrowest first: session, group, platform type,
platform; the narrowest layer that has a setting decides, falling back to
``conversation.cross_session``. A broken value at any layer means the narrowest mode
(``isolated``) and never a fall-back to a wider layer. A caller's requested mode (the recall
tool's scope argument) can only narrow the effective mode.
"""

from __future__ import annotations

import logging

log = logging.getLogger("remem.ingest")

MODES = ("isolated", "platform", "user", "all")
_BREADTH = {"isolated": 0, "platform": 1, "user": 2, "all": 3}


def resolve_mode(
    layers: dict[str, str],
    default: str,
    *,
    session: str | None = None,
    group: str | None = None,
    platform_type: str | None = None,
    platform: str | None = None,
) -> tuple[str, str]:
    """(mode, where it came from). ``layers`` maps "session:<id>", "group:<id>",
    "platform_type:<t>", "platform:<p>" to a mode name."""
    for layer, value in (
        ("session", session),
        ("group", group),
        ("platform_type", platform_type),
        ("platform", platform),
    ):
        if value is None:
            continue
        key = f"{layer}:{value}"
        if key in layers:
            mode = layers[key]
            if mode not in MODES:
                log.warning(
                    "cross-session setting %s=%r is not one of %s: using 'isolated'",
                    key,
                    mode,
                    ", ".join(MODES),
                )
                return "isolated", f"{key} (invalid value {mode!r})"
            return mode, key
    if default not in MODES:
        return "isolated", f"default (invalid value {default!r})"
    return default, "default"


def narrow(effective: str, requested: str | None) -> str:
    """The requested mode if it is not wider than the effective one; else the effective one.
    An unknown request narrows to ``isolated``."""
    if requested is None:
        return effective
    if requested not in MODES:
        return "isolated"
    return requested if _BREADTH[requested] <= _BREADTH[effective] else effective
