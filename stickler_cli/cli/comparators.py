"""`stickler comparators`: every comparator, built-in and plugin, with its options."""

from __future__ import annotations

import sys
from typing import Optional

from .option_values import TABLE_OR_JSON, check_format, load_plugins
from .options import DEBUG_OPTION, PLUGIN_OPTION, TABLE_OR_JSON_OPTION
from .output import stdout_console


def comparators_command(
    output_format: str = TABLE_OR_JSON_OPTION,
    plugin: Optional[list[str]] = PLUGIN_OPTION,
    debug: bool = DEBUG_OPTION,
) -> None:
    """List every comparator (built-in and plugin) with its options and defaults."""
    import orjson

    from .. import comparators
    from ..reporters import terminal

    check_format(output_format, TABLE_OR_JSON)
    load_plugins(plugin)
    catalogue = comparators.catalogue()
    if output_format == "json":
        sys.stdout.buffer.write(orjson.dumps(catalogue, option=orjson.OPT_INDENT_2, default=repr) + b"\n")
        return
    terminal.render_comparators(catalogue, stdout_console())
