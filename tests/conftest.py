from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _default_limits():
    """The bounds in force are process-wide (limits.use, set by every in-process CLI run): each test starts
    and ends with the defaults, so that a test's --limit never reaches a later test that calls the library."""
    from stickler_cli import limits

    limits.use(limits.DEFAULT)
    yield
    limits.use(limits.DEFAULT)


def pytest_collection_modifyitems(config, items) -> None:
    """Mark ``slow`` the tests tests/support/slow_tests.py lists: `make check` leaves them out."""
    from tests.support.slow_tests import SLOW

    slow = pytest.mark.slow
    for item in items:
        path, _, name = item.nodeid.split("[")[0].partition("::")
        if name in SLOW.get(path.removeprefix("tests/"), ()):
            item.add_marker(slow)
