"""Tests of stickler_cli/schema/."""
