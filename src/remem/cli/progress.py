"""Progress bars for long commands: count, rate and time left, on stderr, only on a terminal.

Piped or with ``--json`` a command prints no bar at all (its output stays machine-readable);
rich is imported here, when a command first shows a bar, so ``remem --help`` does not pay
for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second: rich's moving average, or the overall rate when the work came in
    one batch (blank until something is done)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None and task.completed and task.elapsed:
            speed = task.completed / task.elapsed
        if not speed:
            return Text("", style="progress.data.speed")
        shown = f"{speed:,.0f}" if speed >= 10 else f"{speed:.1f}"
        return Text(f"{shown}/s", style="progress.data.speed")


def progress_bar(label: str, *, console: Console, quiet: bool) -> Progress:
    """A bar with count, rate and time left on ``console``, disabled with ``quiet`` or when
    the console is not a terminal. ``label`` may name the task as ``{task.description}``."""
    return Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=quiet or not console.is_terminal,
    )


@contextmanager
def counting(
    label: str, total: int | None, *, console: Console, quiet: bool
) -> Iterator[Callable[[int], None]]:
    """A bar for ``total`` items (None: not known yet); yields the ``progress(n)`` callback
    the library's batch operations call with each finished batch's size."""
    with progress_bar("{task.description}", console=console, quiet=quiet) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)
