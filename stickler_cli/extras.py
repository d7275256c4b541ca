"""How to install an optional extra, said in a way that works: stickler-cli is installed from a
clone, not from PyPI, so ``pip install 'stickler-cli[dask]'`` would fail; the extra's own packages
(read from the installed distribution's metadata) install anywhere."""

from __future__ import annotations

import re

DISTRIBUTION = "stickler-cli"
CPU_TORCH = "pip install torch --index-url https://download.pytorch.org/whl/cpu"  # PyPI's Linux torch is the CUDA build


def extra_packages(extra: str) -> list[str]:
    """The requirements an extra adds, as the installed metadata lists them (empty when unknown)."""
    from importlib import metadata

    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    marker = re.compile(r"""\s*;\s*extra\s*==\s*["']%s["']\s*$""" % re.escape(extra))
    return [marker.sub("", r) for r in requires if marker.search(r)]


def install_hint(extra: str) -> str:
    """The command that installs ``extra``: its packages, or ``.[extra]`` from the stickler clone."""
    packages = [p for p in extra_packages(extra) if not p.startswith("torch")]
    hint = (
        f"pip install {' '.join(repr(p) for p in packages)} (or, in the stickler clone, pip install '.[{extra}]')"
        if packages
        else f"in the stickler clone, pip install '.[{extra}]'"
    )
    if extra == "semantic":
        hint = f"{CPU_TORCH}, then {hint}"
    return hint
