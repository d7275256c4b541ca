"""Tests of stickler_cli/confidence/."""
