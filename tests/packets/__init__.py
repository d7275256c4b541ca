"""Tests of stickler_cli/packets/."""
