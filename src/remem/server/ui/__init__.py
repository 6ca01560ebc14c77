"""The web UI of `remem serve`, at /ui: see and fix what the bot remembers.

Pages: overview (counts, index status, backfill, queue drops, store size, a chart over time),
conversations (sessions by platform and group, message timelines), memories (filters, version
history with undo, edits as new versions, delete and bulk delete with a dry run), search with
explain (score after every stage, channel ranks, dropped candidates, the injected blocks) and
settings (effective configuration with the source of each value).
"""

from remem.server.ui.routes import mount_ui

__all__ = ["mount_ui"]
