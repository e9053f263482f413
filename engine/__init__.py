"""The bundled hybrid engine: a small, faithful MXNet 1.x in numpy.

`import hybridlint.engine as mx` gives MXNet 1.9.1's public API for the parts implemented
(see docs/architecture.md). One import per line so that parallel developers can add theirs.
"""

__version__ = "1.9.1"

from . import base  # noqa: F401
from .base import MXNetError  # noqa: F401
from . import context  # noqa: F401
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: F401
from . import name  # noqa: F401
from . import registry  # noqa: F401
from . import ndarray  # noqa: F401
from . import ndarray as nd  # noqa: F401
from . import symbol  # noqa: F401
from . import symbol as sym  # noqa: F401
from . import ops  # noqa: F401  (registers every op into nd and sym)
from . import attribute  # noqa: F401
from .attribute import AttrScope  # noqa: F401
from . import _control_flow  # noqa: F401  (contrib.foreach in nd and sym)
from . import _branching  # noqa: F401  (contrib.while_loop and cond in nd and sym)
from . import random  # noqa: F401
from . import autograd  # noqa: F401
from . import executor  # noqa: F401
from . import initializer  # noqa: F401
from . import initializer as init  # noqa: F401
from . import gluon  # noqa: F401
from . import util  # noqa: F401
from . import test_utils  # noqa: F401
from . import operator  # noqa: F401
from . import contrib  # noqa: F401  (mxnet.contrib.ndarray and .symbol)
from .compat import as_mxnet  # noqa: F401
from ._fastpaths import fast_paths, fast_paths_enabled, set_fast_paths  # noqa: F401

import warnings as _warnings

# MXNet computes inf and NaN silently (log(0), sqrt(-1), x / 0); numpy warns for the same
# values ("divide by zero encountered in log"). Only the RuntimeWarnings raised from the
# engine's own modules are silenced (compiled plans run under engine.executor's name): numpy
# calls of the user's keep their warnings.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"hybridlint\.engine\b")
