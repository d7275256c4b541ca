"""Benchmark workload for `make bench`: an invoice schema, a data generator, the reference timing."""
