"""Curated memories: capture after a turn, recall before one, updates without loss."""
