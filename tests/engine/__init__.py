"""Tests of stickler_cli/engine/."""
