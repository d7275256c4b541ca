#!/usr/bin/env python3
"""Comparator oracle server: scores value pairs with stickler-eval's comparators.

Run with the oracle venv's python. Reads one JSON request per line on stdin:
    {"comparator": "DateComparator", "config": {...}, "pairs": [[gt, pred], ...]}
and writes one JSON line per request:
    {"scores": [float | {"error": "ExcType: message"}, ...]}
or {"error": "..."} when the comparator cannot be built. Values arrive as JSON;
a pair item written as {"__tuple__": [...]} is passed to the oracle as a tuple.
"""

import json
import sys
import warnings

import stickler.comparators as oracle_comparators


def _decode(value):
    if isinstance(value, dict):
        if set(value) == {"__tuple__"}:
            return tuple(_decode(v) for v in value["__tuple__"])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _score(comparator, gt, pred):
    try:
        value = comparator.compare(gt, pred)
    except Exception as exc:  # the oracle raising is a behaviour to record
        return {"error": f"{type(exc).__name__}: {exc}"}
    return float(value)


def main():
    warnings.simplefilter("ignore")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            cls = getattr(oracle_comparators, request["comparator"])
            comparator = cls(**_decode(request.get("config") or {}))
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        else:
            reply = {"scores": [_score(comparator, _decode(g), _decode(p)) for g, p in request["pairs"]]}
        sys.stdout.write(json.dumps(reply, allow_nan=True) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
