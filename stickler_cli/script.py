"""The ``stickler`` console script (pyproject.toml, ``[project.scripts]``).

``stickler --version`` is answered here, before typer, rich and the engine are imported: the whole
command then costs about what starting Python costs. Everything else goes to ``cli.main``, which
imports what each command uses when it runs (docs/performance.md, "Start-up").
"""

from __future__ import annotations

import os
import sys

from .version import __version__

# OpenBLAS (numpy's and scipy's) starts a thread per core when it loads. stickler's arrays are small: those
# threads only cost start-up (15 ms in a median `eval` on two cores, more with more cores), spin after the
# report's one BLAS call, and would crowd the cores `--workers` uses. Set for this process and its workers,
# before numpy loads; a value the user set is kept.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def run() -> None:
    os.environ.setdefault(*BLAS_THREADS)
    args = sys.argv[1:]
    if args == ["--version"]:  # exactly what the app's eager --version does with nothing after it
        try:
            sys.stdout.write(f"stickler {__version__}\n")
            sys.stdout.flush()
        except OSError:
            pass  # a closed pipe, a full disk: cli.main reports it as it reports any output it cannot write
        else:
            sys.exit(0)
    from .cli import main

    sys.exit(main(args))


if __name__ == "__main__":
    run()
