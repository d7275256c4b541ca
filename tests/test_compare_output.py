"""`stickler compare` at 80 columns, piped: paths whole (wrapped after a dot), values folded, never cut
(issue 16, item 10)."""

import json
import os
import subprocess
import sys


def test_long_paths_and_values_are_shown_whole_at_80_columns(tmp_path):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"provider": {"type": "object", "properties": {
        "address": {"type": "object", "properties": {"postal_code_of_the_billing_office": {"type": "string"}}}}}}}))
    value = "a value much longer than forty characters, ending here: END"
    gt = json.dumps({"provider": {"address": {"postal_code_of_the_billing_office": value}}})
    pred = json.dumps({"provider": {"address": {"postal_code_of_the_billing_office": value + "!"}}})
    done = subprocess.run([sys.executable, "-m", "stickler_cli", "compare", str(schema), gt, pred],
                          capture_output=True, env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "…" not in done.stdout.decode()
    field_column = "".join(line[1:19].strip() for line in lines[4:])
    assert "provider.address.postal_code_of_the_billing_office" in field_column
    assert "END!" in done.stdout.decode().replace("\n", "").replace(" ", "")
