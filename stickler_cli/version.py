"""The package version: one literal, which pyproject.toml reads too (``[tool.setuptools.dynamic]``).

A literal rather than ``importlib.metadata.version(...)``: reading the installed metadata costs
importlib.metadata and a scan of sys.path, about 20 ms of every start, ``stickler --version``
included.
"""

__version__ = "0.1.0"
