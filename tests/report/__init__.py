"""Tests of stickler_cli/report/."""
