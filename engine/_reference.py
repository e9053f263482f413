"""The reference layer of hybridized execution: the graph run node by node.

No constant folding, no Convolution+relu+Pooling fusion, no aliases removed,
no in-place ops, no buffer pool, no generated code: each op node calls its registered kernel
(`OpDef.kernel`, what `mx.nd.<op>` calls) on its inputs' arrays, in topological order, under
the eager path's `np.errstate`. It is slow on purpose and simple enough to trust, so the fast
plan (`engine/executor.py`) can be compared against it (`engine/_fastpaths.py`).
"""

from typing import Callable, Dict, List, Tuple

import numpy as np

from .base import MXNetError
from .registry import Attrs, shape_known

__all__ = ["node_attrs", "ReferenceRun"]


def node_attrs(node, shapes) -> Attrs:
    """The node's parsed attributes with graph-inferred shapes filled in: MXNet completes
    `zeros(shape=(0, n))` and the like from graph inference (gluon.rnn's begin_state under
    hybridize relies on it). A semantic step both layers take, not an optimisation."""
    attrs = node.parsed
    if (
        not node.inputs
        and 0 in (attrs.get("shape") or (1,))
        and shape_known(shapes.get((id(node), 0)))
    ):
        attrs = Attrs(dict(attrs.__dict__, shape=shapes[(id(node), 0)]))
    return attrs


class ReferenceRun:
    """`run(*arrays)` of one input signature: outputs as fresh arrays the caller owns.

    `node_error(node, err, in_shapes)` builds the MXNetError naming the node, its input
    shapes and the user's source line (the executor's `_node_error`), so a kernel failing
    here reads as it does in the fast plan."""

    def __init__(self, sym, order, inputs, shapes, node_error: Callable):
        self.input_keys = [(id(n), 0) for n in inputs]
        self.steps: List[Tuple] = [
            (
                n,
                node_attrs(n, shapes),
                [(id(c), i) for c, i in n.inputs],
                [(id(n), i) for i in range(n.num_outputs())],
            )
            for n in order
            if n.op is not None
        ]
        self.output_keys = [(id(n), i) for n, i in sym._outputs]
        self.node_error = node_error

    def __call__(self, *arrays) -> List[np.ndarray]:
        env: Dict[Tuple[int, int], np.ndarray] = dict(zip(self.input_keys, arrays))
        with np.errstate(all="ignore"):  # as the eager path (OpDef._evaluate)
            for node, attrs, in_keys, out_keys in self.steps:
                ins = [env[k] for k in in_keys]
                try:
                    res = node.op.kernel(attrs, *ins)
                except NotImplementedError:
                    raise  # an engine gap passes unchanged
                except (ValueError, IndexError, MXNetError) as err:
                    if getattr(err, "source_line", None):
                        raise  # a nested graph's error, already precise
                    raise self.node_error(node, err, [a.shape for a in ins]) from err
                res = list(res) if isinstance(res, (tuple, list)) else [np.asarray(res)]
                if getattr(node.op, "dynamic_shape", False) and any(r.size == 0 for r in res):
                    # MXNet 1.9.1's graph fails on a dynamic output with no rows ("Operator
                    # _mul_scalar inferring shapes failed ... [-1,3]"): stricter, as for empty
                    # slices (executor.Plan)
                    raise self.node_error(
                        node,
                        MXNetError("the dynamic-shape output has no rows (a zero-size shape)"),
                        [a.shape for a in ins],
                    )
                env.update(zip(out_keys, res))
        outs, seen = [], set(map(id, arrays))
        for k in self.output_keys:
            a = env[k]
            # an input, a view, or an array already returned: the caller must own a copy
            outs.append(a.copy() if id(a) in seen or a.base is not None else a)
            seen.add(id(outs[-1]))
        return outs
