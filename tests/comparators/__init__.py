"""Tests of stickler_cli/comparators/."""
