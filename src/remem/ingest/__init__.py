"""The chat-bot write side: ingestion, indexing (queue, backfill, model switch) and the
cross-session modes that decide which sessions a turn may recall from."""
