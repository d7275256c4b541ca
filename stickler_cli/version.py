"""The package version, read from the installed distribution metadata."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("stickler-cli")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+source"
