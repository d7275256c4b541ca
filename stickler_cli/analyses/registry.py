"""The analyses a run accumulates: each one part of the state (analyses/part.py), in the order their
state-file checks run (after the counts') and their report blocks are made.

Adding an analysis touches its own module (a store and ``PART = Part(...)``: add_batch, state,
merge, check, report block) and one line here, its PART in ``PARTS`` (with the module named in
the import above it)::

    PARTS = (..., cosmetic.PART, my_analysis.PART)

The accumulator (run/accumulate.py) then keeps it, saves it, merges it and state files check it;
report/build.py places its report block. A new state key also raises ``STATE_VERSION``.
"""

from __future__ import annotations

from . import alternatives, cosmetic, failures, judge, list_errors, localisation, policy, rollup, slicing, thresholds
from .part import Part

PARTS: tuple[Part, ...] = (
    rollup.PART,
    thresholds.PART,
    localisation.PART,
    failures.WORST,
    failures.SAMPLES,
    slicing.PART,
    list_errors.PART,
    cosmetic.PART,
    judge.PART,
    policy.PART,
    alternatives.PART,
)
