"""The read pipeline: one module per stage, each a small function over candidates."""
