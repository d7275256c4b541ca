"""Tests of stickler_cli/reporters/."""
