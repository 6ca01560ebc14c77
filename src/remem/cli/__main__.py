"""`python -m remem.cli`, the same as the ``remem`` console script."""

from remem.cli import run

run()
