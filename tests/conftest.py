"""Shared pytest configuration.

Tests marked `mxnet` compare against real MXNet 1.9.1 and are skipped when it is not
importable (CI installs it, so there they always run).
"""
import importlib.util

import pytest

HAVE_MXNET = importlib.util.find_spec("mxnet") is not None


def pytest_collection_modifyitems(config, items):
    if HAVE_MXNET:
        return
    skip = pytest.mark.skip(reason="real MXNet 1.9.1 is not installed (pip install -e '.[mxnet]')")
    for item in items:
        if "mxnet" in item.keywords:
            item.add_marker(skip)


# CI is a gate: the same inputs every run (derandomize) and no per-example deadline (a loaded
# machine must not turn a slow example into a failure). Locally hypothesis explores freely.
try:
    from hypothesis import settings as _hypothesis_settings

    _hypothesis_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    _hypothesis_settings.register_profile("dev", deadline=None)
    import os as _os

    _hypothesis_settings.load_profile("ci" if _os.environ.get("CI") else "dev")
except ImportError:  # hypothesis is a test extra; the plain tests still run without it
    pass
