"""The chat-bot path: rendering recalled records into a prompt block (more to come)."""

from remem.conversation.render import render_block

__all__ = ["render_block"]
