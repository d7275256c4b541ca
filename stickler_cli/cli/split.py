"""`stickler split`: how packets of pages were split into documents and classified."""

from __future__ import annotations

import sys
from typing import Any, Optional

import typer

from ..errors import UsageError
from ..version import __version__
from .help import GATES, LIMITS, OUTPUTS
from .option_values import check_format, use_limits
from .options import DEBUG_OPTION, FORMAT_OPTION, HTML_OPTION, LIMIT_OPTION, NO_DATA_PASSES_OPTION, OUTPUT_OPTION
from .output import Written, emit, fail_gates


def split_command(
    paths: list[str] = typer.Argument(
        ...,
        metavar="GT.jsonl PRED.jsonl | PAGES.csv",
        help="Packets of sections as JSON Lines (ground truth, predictions; paired by packet_id), or one "
        "page-table CSV (group_id, group_id_predicted, page_number, page_number_predicted[, class_label, "
        "class_label_predicted][, packet_id]).",
    ),
    output_format: str = FORMAT_OPTION,
    output: Optional[str] = OUTPUT_OPTION,
    junit_path: Optional[str] = typer.Option(
        None,
        "--junit",
        metavar="FILE",
        rich_help_panel=OUTPUTS,
        help="Also write JUnit XML here: a test case per gate and per figure.",
    ),
    html_path: Optional[str] = HTML_OPTION,
    fail_under: Optional[list[str]] = typer.Option(
        None,
        "--fail-under",
        metavar="METRIC=VALUE",
        rich_help_panel=GATES,
        help="Exit 1 when a figure is below VALUE: page_accuracy, split_accuracy_without_order, "
        "split_accuracy_with_order, v_measure, rand_index, clustering_score, ordering_score, "
        "packet_score. Repeatable.",
    ),
    no_data_passes: bool = NO_DATA_PASSES_OPTION,
    worst: int = typer.Option(
        5, "--worst", min=0, metavar="N", rich_help_panel=OUTPUTS, help="List the N worst packets (by packet score)."
    ),
    alpha: float = typer.Option(0.5, "--alpha", metavar="W", help="Weight of clustering in the packet score."),
    beta: float = typer.Option(0.5, "--beta", metavar="W", help="Weight of ordering in the packet score."),
    v_measure_weight: float = typer.Option(
        0.5, "--v-measure-weight", metavar="W", help="Weight of V-measure against Rand index in clustering, in [0, 1]."
    ),
    strict_clustering: bool = typer.Option(
        False, "--strict-clustering", help="A misclassified page gets no clustering credit."
    ),
    max_pages: Optional[int] = typer.Option(
        None,
        "--max-pages",
        min=1,
        metavar="N",
        rich_help_panel=LIMITS,
        help="Pages one packet may hold (default 10,000).",
    ),
    limit: Optional[list[str]] = LIMIT_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """Score how packets of pages were split into documents and classified (the DocSplit metrics)."""
    import math

    from ..run import packets as packet_reader
    from ..report import packets as packet_report
    from ..packets.metrics import Weights
    from ..run.reader import STDIN, check_readable
    from ..run import atomic
    from ..reporters import json_report
    from ..reporters.packets import render_markdown

    use_limits(limit)
    check_format(output_format)
    gates = [packet_report.parse_gate(text) for text in fail_under or []]
    weights = Weights(alpha, beta, v_measure_weight, strict_clustering)
    try:
        weights.check()
    except ValueError as exc:
        raise UsageError(f"--alpha/--beta/--v-measure-weight: {exc}") from None
    if not math.isclose(alpha + beta, 1.0):
        sys.stderr.write(
            f"stickler: warning: --alpha + --beta = {alpha + beta:g}, not 1: packet scores leave "
            "their range [-0.5, 1]\n"
        )
    is_table = len(paths) == 1 and paths[0].lower().endswith(".csv")
    if not is_table and len(paths) != 2:
        raise UsageError(f"split takes GT.jsonl PRED.jsonl, or one PAGES.csv; got {len(paths)} argument(s)")
    if paths.count(STDIN) > 1:
        raise UsageError("standard input ('-') can be one of the two files, once")
    check_readable(*paths)
    atomic.check_targets(
        atomic.with_step_summary({"--output": output, "--junit": junit_path, "--html": html_path}),
        [(what, p) for what, p in zip(("ground truth", "predictions"), paths)],
    )
    pages = max_pages or packet_reader.MAX_PAGES_PER_PACKET
    reading = packet_reader.Reading()
    if is_table:
        pairs = packet_reader.read_page_table(paths[0], reading, pages)
    else:
        pairs = packet_reader.read_pairs(paths[0], paths[1], reading, pages)
    report = {
        "tool": {"name": "stickler split", "version": __version__},
        "source": paths[0],
        "inputs": {"form": "page table" if is_table else "sections", "files": list(paths), "max_pages": pages},
    }
    report.update(packet_report.build(pairs, reading, weights, worst))
    report["gates"] = packet_report.check_gates(gates, report, no_data_passes)
    data = json_report.dumps(report)

    def junit() -> bytes:
        from ..reporters.junit import render_split_junit

        return render_split_junit(report)

    def html() -> bytes:
        from ..reporters.html import render_split_html

        return render_split_html(report).encode()

    def table(console: Any) -> None:
        from ..reporters.packets import render_terminal

        render_terminal(report, console, worst)

    files = [
        Written(output, "JSON report", lambda: data),
        Written(junit_path, "JUnit XML", junit),
        Written(html_path, "HTML report", html),
    ]
    emit(
        data,
        output_format,
        files,
        lambda: render_markdown(report, worst),
        table,
        verdict=lambda shown: fail_gates(report["gates"], not report["packet_count"], shown),
    )
