"""The JSON report: the report dict as indented JSON (``json_text.dumps``: what orjson cannot write,
Python's json writes).

Files are written by run/atomic.py (checked before any work, written whole or not at all); its
names are re-exported here for the commands that still reach them through this module.
"""

from __future__ import annotations

from ..json_text import dumps
from ..run.atomic import (LineWriter, check_targets, check_writable, identity, planted, planted_link,
                          refuse_planted_links, remove_temporaries, replacing, with_step_summary, write)

__all__ = ["dumps", "LineWriter", "check_targets", "check_writable", "identity", "planted", "planted_link",
           "refuse_planted_links", "remove_temporaries", "replacing", "with_step_summary", "write"]
