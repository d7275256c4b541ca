"""Tests of stickler_cli/cli/."""
