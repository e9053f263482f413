"""Engine-only invariant over every op test case: a kernel returns new arrays, never its input
or a view of it, unless the op is declared `view` (the executor relies on this to plan buffers
and run ops in place; eager callers rely on it for MXNet's copy semantics)."""

import numpy as np
import pytest

import test_ops_box
import test_ops_contrib
import test_ops_conv
import test_ops_indexing
import test_ops_linalg
import test_ops_loss
import test_ops_misc
import test_ops_norm
import test_ops_reduce
import test_ops_resize
import test_ops_sampler
import test_ops_transform
from ops_diff import case_id

from hybridlint.engine import registry

CASES = [
    c
    for mod in (
        test_ops_box,
        test_ops_contrib,
        test_ops_conv,
        test_ops_indexing,
        test_ops_linalg,
        test_ops_loss,
        test_ops_misc,
        test_ops_norm,
        test_ops_reduce,
        test_ops_resize,
        test_ops_sampler,
        test_ops_transform,
    )
    for name in ("CASES", "CONV_CASES", "DECONV_CASES", "POOL_CASES", "ALL", "CASES2", "CASES3")
    for c in getattr(mod, name, [])
]


def test_cases_were_collected():
    assert len(CASES) > 600


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_kernel_output_is_fresh(case):
    name, arrays, kw = case[:3]
    op = registry.get_op(name)
    arrays = [a.copy() for a in arrays]
    res = op.kernel(op.parse(dict(kw)), *arrays)
    outs = res if isinstance(res, (tuple, list)) else [res]
    for out in outs:
        assert isinstance(out, np.ndarray) and out.ndim >= 1
        if not op.view:
            assert not any(np.shares_memory(out, a) for a in arrays)
