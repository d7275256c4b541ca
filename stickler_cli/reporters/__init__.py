"""Reporters: turn a report dict into bytes or terminal output. Nothing else."""
