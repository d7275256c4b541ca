"""State -> figures and verdicts: the report dict, metrics, statistics, gates, diff, slices."""
