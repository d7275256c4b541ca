"""Tests of stickler_cli/run/."""
