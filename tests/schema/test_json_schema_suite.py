"""The official JSON Schema Test Suite through stickler's schema loader and conformance checker.

The suite is fetched with pip from the package registry (jsonschema's source distribution) into
a cache directory the first time (``make test`` fetches it first: tests/support/json_schema_suite.py).
Without a registry the tests are skipped, except in CI (``CI=true``, or ``STICKLER_REQUIRE_TEST_SUITE=1``
as .ci/run sets), where a missing suite fails.
"""

from __future__ import annotations

import pytest

from tests.support import json_schema_suite as suite

NO_VALIDATION_VOCABULARY = (
    "its metaschema leaves the validation vocabulary out; stickler, like jsonschema, applies every keyword of the "
    "draft (of the vocabularies, only format-assertion is read)"
)
# Every required test whose verdict is not the suite's, with the reason; docs/schema.md lists the same ("Schema conformance").
NOT_AGREED = {
    f"{draft}/vocabulary: schema that uses custom metaschema with with no validation vocabulary / no validation: "
    "invalid number, but it still validates": NO_VALIDATION_VOCABULARY
    for draft in ("draft2019-09", "draft2020-12")
}


@pytest.fixture(scope="module")
def root():
    return suite.suite_or_skip()


def test_every_required_test_agrees_with_the_suite_where_jsonschema_does(root):
    """Drafts 6, 7, 2019-09, 2020-12: 4,224 of 4,226 tests agree, none is refused; the two that do not
    are the two jsonschema gets wrong too."""
    result = suite.measure(root)
    missed = {o.name for o in result.outcomes if o.stickler != o.valid}
    assert missed == set(NOT_AGREED), sorted(missed ^ set(NOT_AGREED))
    assert all(o.jsonschema == o.stickler for o in result.outcomes)
    counts = result.counts()
    assert (counts["tests"], counts["agree"], counts["refused"]) == (4226, 4224, 0)


def test_format_tests_agree_with_jsonschemas_format_checker(root):
    """optional/format, with --assert-formats: each verdict is jsonschema's FormatChecker's (which formats it
    checks depends on the optional packages installed)."""
    result = suite.measure(root, where="optional/format", assert_formats=True)
    differ = [o.name for o in result.outcomes if o.stickler != o.jsonschema]
    assert not differ and len(result.outcomes) == 1622, differ[:10]


def test_the_format_assertion_vocabulary_asserts_formats(root):
    """A metaschema declaring the 2020-12 format-assertion vocabulary (true or false) makes `format` assert,
    without --assert-formats (jsonschema does not read vocabularies: here stickler agrees with the suite)."""
    outcomes = [
        o
        for o in suite.measure(root, drafts=("draft2020-12",), where="optional").outcomes
        if o.file == "format-assertion"
    ]
    assert [(o.valid, o.stickler) for o in outcomes] == [(True, True), (False, False)] * 2
