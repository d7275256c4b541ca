"""The garbage collector held back while scoring (collector.py): frozen and restored, cycles still freed."""

from __future__ import annotations

import gc
import weakref

import pytest

from stickler_cli.run import scoring
from stickler_cli.run.collector import YOUNG, held_back


class _Node:
    def __init__(self) -> None:
        self.other: object = self


@pytest.fixture
def clean_collector():
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()
    gc.unfreeze()


def test_what_existed_is_frozen_and_everything_is_restored(clean_collector) -> None:
    gc.set_threshold(700, 10, 10)
    assert gc.get_freeze_count() == 0
    with held_back():
        assert gc.get_freeze_count() > 1000  # the imported modules, the test's objects
        assert gc.get_threshold() == (YOUNG, 10, 10)
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_when_the_block_raises(clean_collector) -> None:
    with pytest.raises(KeyError):
        with held_back():
            raise KeyError("x")
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] == 700


def test_cycles_made_while_scoring_are_still_collected(clean_collector) -> None:
    with held_back():
        node = _Node()
        gone = weakref.ref(node)
        del node
        gc.collect()
        assert gone() is None


def test_a_callers_policy_is_left_alone(clean_collector) -> None:
    gc.disable()
    with held_back():
        assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] == 700
    gc.enable()
    gc.freeze()
    frozen = gc.get_freeze_count()
    with held_back():
        assert gc.get_threshold()[0] == 700
    # Not unfrozen by us (that empties the permanent generation), nor frozen more. Not `== frozen`: a frozen
    # object that another thread frees leaves it (under pytest-xdist, execnet's receiver thread does so).
    assert 0 < gc.get_freeze_count() <= frozen


def test_scoring_runs_with_the_collector_held_back(clean_collector, monkeypatch, tmp_path) -> None:
    from stickler_cli import load_schema
    from stickler_cli import evaluate_files

    seen = []
    score_batch = scoring.Engine.score_batch

    def spy(self, *args, **kwargs):
        seen.append((gc.get_freeze_count() > 0, gc.get_threshold()[0]))
        return score_batch(self, *args, **kwargs)

    monkeypatch.setattr(scoring.Engine, "score_batch", spy)
    schema = tmp_path / "s.json"
    schema.write_text('{"type": "object", "properties": {"a": {"type": "string"}}}')
    (tmp_path / "g.jsonl").write_text('{"a": "x"}\n')
    (tmp_path / "p.jsonl").write_text('{"a": "y"}\n')
    acc = evaluate_files(load_schema(str(schema)), str(tmp_path / "g.jsonl"), str(tmp_path / "p.jsonl")).accumulator
    assert acc.document_count == 1
    assert seen == [(True, YOUNG)]
    assert gc.get_freeze_count() == 0
