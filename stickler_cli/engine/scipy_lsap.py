"""scipy's compiled assignment solver, loaded without importing the ``scipy.optimize`` package.

``scipy.optimize.linear_sum_assignment`` is a function of one compiled module,
``scipy/optimize/_lsap``, which needs nothing but numpy. Importing it the usual way first runs
``scipy/optimize/__init__.py``, which imports most of scipy (linalg, sparse, the array API
layer): about 0.3-0.4 s, more than a whole ``stickler eval`` of a small file takes otherwise.
Loaded from its file, the same module takes well under a millisecond, so the engine solves every
list with scipy's own code (per solve of a 5 x 5 matrix, about 2 µs against 17 µs for the port in
assignment.py) and no run pays the package's import.

The module is loaded from the installed scipy's directory (``importlib`` finds it; scipy's
``__init__`` is not run). Should a scipy release move or change it, the solver is imported the
usual way instead: slower to start, the same pairs.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from typing import Any, Callable

# The module's name inside scipy, under which it is loaded and registered (a later
# ``import scipy.optimize`` then reuses it instead of loading the file a second time).
MODULE = "scipy.optimize._lsap"

_solver: Callable[..., Any] | None = None


def solver() -> Callable[..., Any]:
    """``scipy.optimize.linear_sum_assignment``: (cost matrix, maximize=False) -> (rows, columns)."""
    global _solver
    if _solver is None:
        _solver = _loaded_alone() or _imported()
    return _solver


def _imported() -> Callable[..., Any]:
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment


def _loaded_alone() -> Callable[..., Any] | None:
    """The function from the compiled module's file, or None when that cannot be done here (the usual
    import then serves)."""
    found = sys.modules.get(MODULE) or sys.modules.get("scipy.optimize")
    if found is not None:
        return getattr(found, "linear_sum_assignment", None)
    try:
        package = importlib.util.find_spec("scipy")  # finds the package; does not run its __init__
        if package is None or not package.submodule_search_locations:
            return None
        for folder in package.submodule_search_locations:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "optimize", "_lsap" + suffix)
                if os.path.isfile(path):
                    loader = importlib.machinery.ExtensionFileLoader(MODULE, path)
                    spec = importlib.util.spec_from_file_location(MODULE, path, loader=loader)
                    if spec is None:
                        return None
                    module = importlib.util.module_from_spec(spec)
                    loader.exec_module(module)
                    sys.modules[MODULE] = module
                    function = getattr(module, "linear_sum_assignment", None)
                    return function if callable(function) else None
    except (ImportError, OSError):
        return None
    return None
