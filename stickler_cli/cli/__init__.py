"""The ``stickler`` console script (pyproject.toml, ``[project.scripts]``).

``stickler --version`` is answered here, before typer, rich and the engine are imported: the whole
command then costs about what starting Python costs. ``stickler eval … --format json`` (or ``markdown``) runs
without typer and Rich (cli/light.py), when cli/light.py reads the whole command line. Everything else goes to
``cli.app.main``, which imports what each command uses when it runs (docs/performance.md, "Start-up").
"""

from __future__ import annotations

import os
import sys

from ..version import __version__


def run() -> None:
    args = sys.argv[1:]
    if args == ["--version"] and sys.stdout is None:  # standard output closed (`>&-`): nothing to say it to
        sys.exit(0)
    if args == ["--version"]:  # exactly what the app's eager --version does with nothing after it
        try:
            sys.stdout.write(f"stickler {__version__}\n")
            sys.stdout.flush()
        except BrokenPipeError:  # the reader closed the pipe: nothing went wrong (Python's last flush: /dev/null)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except OSError:
            pass  # a full disk: cli.app.main reports it as it reports any output it cannot write
        else:
            sys.exit(0)
    if args[:1] == ["eval"]:
        from .light import main as light

        code = light(args)
        if code is not None:
            sys.exit(code)
    from .app import main

    sys.exit(main(args))


if __name__ == "__main__":
    run()
