"""`mxnet.test_utils` (MXNet 1.9.1) for the engine: the device queries model code calls while
it is built (gluoncv 0.1's SyncBatchNorm counts GPUs with `test_utils.list_gpus()`).

The rest of MXNet's test helpers (random arrays, numeric gradient checks, `assert_almost_equal`)
is not here: using one is an engine gap ("cannot verify"), never a silent stand-in.
"""

from .context import Context, current_context
from .util import get_gpu_count

__all__ = ["default_context", "list_gpus"]


def list_gpus() -> range:
    """`range(number of GPUs)`, as MXNet: empty, the engine runs on the CPU only."""
    return range(get_gpu_count())


def default_context() -> Context:
    """The current context, as MXNet's."""
    return current_context()
