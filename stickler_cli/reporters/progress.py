"""A progress bar on stderr for long runs: shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator


@contextmanager
def progress_bar(total_bytes: int, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a ``(documents, bytes read) -> None`` callback, or None when no bar is shown.

    The bar's length is the ground-truth files' size on disk; the text shows
    documents scored and documents per second. It is transient: the report,
    not the bar, is what stays on the screen.
    """
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("scoring"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[docs]} docs · {task.fields[rate]} docs/s"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("scoring", total=total_bytes or None, docs="0", rate="–")
        started = time.perf_counter()

        def update(documents: int, bytes_read: int) -> None:
            elapsed = time.perf_counter() - started
            rate = f"{documents / elapsed:,.0f}" if elapsed > 0.5 else "–"
            bar.update(task, completed=bytes_read, docs=f"{documents:,}", rate=rate)

        yield update
