"""Code written for MXNet 1.9.1 runs on the engine with the numpy it was written for.

MXNet 1.9.1 needs numpy < 1.24, where `np.int`, `np.float`, ... were the builtins (removed in
numpy 1.24); the engine may run on a newer numpy. Inside `as_mxnet` the missing ones are the
builtins again, so such a block is checked instead of "cannot run", and nothing of it is left
in numpy afterwards (the tool's own code never sees them).
"""

import numpy as np

from hybridlint.checker import check_file
from hybridlint.engine import as_mxnet

_BLOCK = """\
import numpy as np
from mxnet.gluon import HybridBlock


class Scale(HybridBlock):
    def __init__(self, shape, **kwargs):
        super().__init__(**kwargs)
        self.size = np.array(shape).astype(np.int).prod()

    def hybrid_forward(self, F, x):
        return x * float(self.size)
"""


def test_the_removed_aliases_are_the_builtins_inside_and_taken_back_after():
    before = {name: name in vars(np) for name in ("int", "float", "complex", "object", "str")}
    with as_mxnet():
        assert (np.int, np.float, np.complex, np.object, np.str) == (
            int,
            float,
            complex,
            object,
            str,
        )
        with as_mxnet():  # nested: the inner exit leaves the outer's aliases
            pass
        assert np.int is int
    assert {name: name in vars(np) for name in before} == before


def test_a_block_reading_np_int_is_checked_on_the_engine(tmp_path):
    path = tmp_path / "scale.py"
    path.write_text(_BLOCK)
    [report] = check_file(str(path), {"Scale": {"inputs": [[2, 3]], "kwargs": {"shape": [2, 3]}}})
    assert report.status == "equal", report
