"""Case 9 of `make bench`: what a judged field costs in requests to the model (issue 40).

    python -m bench.judged [--documents 20] [--markdown FILE] [--data DIR]

20 documents whose 5 line items each carry an `LLMComparator` field (`description`); each prediction's items
shuffled and 30% of the texts changed slightly (one character), all from a fixed seed. Whole `stickler eval` runs
against a chat-completions server on 127.0.0.1 that counts the requests it gets, each run with a new, empty answer
cache: `--judge-pairing full` (the default) and `--judge-pairing proxy`. The reference library (stickler-eval 1.0.0)
asks the whole similarity matrix of every list, identical texts included; its figure is computed from the data
(the sum over documents of ground-truth items × predicted items), not run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = 20
ITEMS = 5
CHANGED = 0.3  # the share of predicted texts changed slightly
SEED = 40

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "line_items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "description": {
                        "type": "string",
                        "x-aws-stickler-comparator": "LLMComparator",
                        "x-aws-stickler-comparator-config": {"model": "bench-judge"},
                    },
                    "quantity": {"type": "integer"},
                },
            },
        },
    },
}

_WORDS = (
    "steel bolt washer bracket hinge cable panel valve filter pump gasket spring sensor relay switch "
    "fuse clamp pipe hose nozzle bearing shaft gear belt chain lever knob handle frame plate"
).split()
_SIZES = ("small", "medium", "large", "M4", "M6", "M8", "10 mm", "20 mm", "1/2 in", "3/4 in")


def generate(documents: int = DOCUMENTS, items: int = ITEMS, seed: int = SEED) -> tuple[list[dict], list[dict]]:
    """(ground truths, predictions): ``items`` line items a document, texts distinct across the whole set;
    the predicted items shuffled and round(CHANGED × all items) of their texts changed in one character."""
    rng = random.Random(seed)
    seen: set[str] = set()
    gts = []
    for d in range(documents):
        lines = []
        while len(lines) < items:
            text = f"{rng.choice(_SIZES)} {rng.choice(_WORDS)} {rng.choice(_WORDS)} #{rng.randrange(100, 1000)}"
            if text not in seen:
                seen.add(text)
                lines.append({"description": text, "quantity": rng.randrange(1, 50)})
        gts.append({"id": f"doc-{d}", "line_items": lines})
    preds = [{"id": gt["id"], "line_items": [dict(item) for item in gt["line_items"]]} for gt in gts]
    every = [item for pred in preds for item in pred["line_items"]]
    for item in rng.sample(every, round(CHANGED * len(every))):
        text = item["description"]
        at = rng.randrange(len(text))
        item["description"] = text[:at] + ("x" if text[at] != "x" else "y") + text[at + 1 :]  # one character
    for pred in preds:
        rng.shuffle(pred["line_items"])
    return gts, preds


def matrix_size(gts: list[dict], preds: list[dict]) -> int:
    """Comparisons the reference library asks: every ground-truth item against every predicted one, per document."""
    return sum(len(g["line_items"]) * len(p["line_items"]) for g, p in zip(gts, preds))


class CountingServer:
    """Chat completions on 127.0.0.1 (a free port); counts requests; says two texts are equivalent when their
    letters and digits match, ignoring case (so a changed character is "false")."""

    def __init__(self) -> None:
        self.count = 0
        lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    owner.count += 1
                prompt = body["messages"][-1]["content"]
                values = re.findall(r"^Value [12]: (.*)$", prompt, re.M)
                same = len(values) == 2 and len({re.sub(r"[^0-9a-z]", "", v.casefold()) for v in values}) == 1
                message = {"role": "assistant", "content": "true" if same else "false"}
                data = json.dumps(
                    {
                        "object": "chat.completion",
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _write(folder: Path, gts: list[dict], preds: list[dict]) -> tuple[Path, Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    schema, gt, pred = folder / "schema.json", folder / "gt.jsonl", folder / "pred.jsonl"
    schema.write_text(json.dumps(SCHEMA))
    gt.write_text("".join(json.dumps(d) + "\n" for d in gts))
    pred.write_text("".join(json.dumps(d) + "\n" for d in preds))
    return schema, gt, pred


def measure(base: Path, documents: int = DOCUMENTS) -> dict:
    """Each pairing's requests (counted by the server) and the run's own bill, with the reference's matrix size."""
    gts, preds = generate(documents)
    folder = base / "judged"
    schema, gt, pred = _write(folder, gts, preds)
    # No endpoint, key or cache from the machine: the server is given on the command line, the cache is new.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STICKLER_", "OPENAI_"))}
    server = CountingServer()
    result: dict = {"documents": documents, "items": ITEMS, "matrix": matrix_size(gts, preds)}
    try:
        for pairing in ("full", "proxy"):
            cache, report = folder / f"llm-{pairing}.sqlite", folder / f"report-{pairing}.json"
            cache.unlink(missing_ok=True)
            before = server.count
            cmd = [sys.executable, "-m", "stickler_cli", "eval", str(schema), str(gt), str(pred), "--id-field", "id"]
            cmd += ["--llm-base-url", server.url, "--llm-cache", str(cache), "--judge-pairing", pairing]
            cmd += ["--format", "json", "--output", str(report)]
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
            if done.returncode != 0:
                raise SystemExit(f"bench: stickler eval --judge-pairing {pairing} failed:\n{done.stderr[-2000:]}")
            bill = json.loads(report.read_text())["judge"]["line_items.description"]
            result[pairing] = {"requests": server.count - before, "bill": bill}
    finally:
        server.close()
    return result


def table(result: dict) -> list[str]:
    n = result["documents"]
    lines = [
        "| pairing | requests | per document | skipped as identical | deduplicated |",
        "|---|---:|---:|---:|---:|",
    ]
    for pairing in ("full", "proxy"):
        row, bill = result[pairing], result[pairing]["bill"]
        lines.append(
            f"| stickler `--judge-pairing {pairing}` | {row['requests']:,} | {row['requests'] / n:.1f} | "
            f"{bill['identical']:,} | {bill['deduplicated']:,} |"
        )
    lines.append(
        f"| stickler-eval 1.0.0 (the whole matrix, from the data) | {result['matrix']:,} | {result['matrix'] / n:.1f} | | |"
    )
    return lines


def main(argv: list[str]) -> int:
    from bench import case_arguments, show

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--documents", type=int, default=DOCUMENTS)
    args, base = case_arguments(ap, argv)
    return show(table(measure(base, args.documents)), args.markdown)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
