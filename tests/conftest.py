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
