"""Tests of the project as a whole: the package's layout, start-up, fuzzing, the fixtures and seed examples, the benchmark."""
