"""Imports a package that is not installed."""
import hybridlint_test_package_that_does_not_exist  # noqa: F401
from mxnet import gluon


class Unreachable(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x
