"""Tests of stickler_cli/analyses/."""
