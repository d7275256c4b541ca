"""Benchmark workload for `make bench`: an invoice schema, a data generator, the reference timing."""

from __future__ import annotations

from pathlib import Path


def case_arguments(ap, argv: list[str]) -> tuple[object, Path]:
    """A case run alone (``python -m bench.workers``, ``bench.long_line``): ``ap`` with --markdown and --data added,
    parsed, and the folder its generated files go to (--data, else a new temporary one)."""
    import tempfile

    ap.add_argument("--markdown", help="also write the table here")
    ap.add_argument("--data", help="keep generated files in this folder (default: a temporary one)")
    args = ap.parse_args(argv)
    base = Path(args.data) if args.data else Path(tempfile.mkdtemp(prefix="stickler-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    return args, base


def show(lines: list[str], markdown: str | None) -> int:
    """Print a case's table, and write it to ``markdown`` when given: a case run alone ends here (exit 0)."""
    print("\n".join(lines))
    if markdown:
        Path(markdown).write_text("\n".join(lines) + "\n")
    return 0
