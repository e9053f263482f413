"""HL002 ndarray-only-method: `.asnumpy() .asscalar() .wait_to_read() .copyto()`, `float/int/bool(x)`."""
from __future__ import annotations

import libcst as cst

from .base import Invalid, Rule, Valid

METHODS = {
    "asnumpy": "Function asnumpy is not implemented for Symbol and only available in NDArray",
    "asscalar": "Function asscalar is not implemented for Symbol and only available in NDArray",
    "wait_to_read": "Function wait_to_read is not implemented for Symbol and only available in NDArray",
    "copyto": "AttributeError: 'Symbol' object has no attribute 'copyto'",
}
CONVERSIONS = {
    "float": "TypeError: float() argument must be ... not 'Symbol'",
    "int": "TypeError: int() argument must be ... not 'Symbol'",
    "bool": "Function __bool__ is not implemented for Symbol",
}

_HEAD = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"


def _net(body: str) -> str:
    return _HEAD + "".join("        " + line + "\n" for line in body.splitlines())


class NDArrayOnlyMethod(Rule):
    code = "HL002"
    name = "ndarray-only-method"
    message = "NDArray-only call on a tensor; a Symbol has no values to read"
    explanation = """\
## What it does
Finds `x.asnumpy()`, `x.asscalar()`, `x.wait_to_read()`, `x.copyto(...)` and `float(x)`,
`int(x)`, `bool(x)` on tensors inside `hybrid_forward` and the helpers it calls.

## Why it breaks under hybridize
A Symbol is a graph node without values. MXNet 1.9.1 raises
`NotImplementedForSymbol: Function asnumpy is not implemented for Symbol and only available in
NDArray.` (likewise `asscalar`, `wait_to_read`, and `__bool__` for `bool(x)`),
`AttributeError: 'Symbol' object has no attribute 'copyto'`, and
`TypeError: float() argument must be a string or a real number, not 'Symbol'` (`int` likewise).

## Example
```python
def hybrid_forward(self, F, x):
    scale = float(x.max().asscalar())
    return x / scale
```

## Fix
Keep the value in the graph: `return F.broadcast_div(x, x.max())`. Data-dependent Python
decisions need `F.where`, `F.contrib.cond`, or moving the logic out of `hybrid_forward` (into
`forward` of a plain Block, or into the data pipeline). Debug reads belong in an eager-only
branch: `if isinstance(x, mx.nd.NDArray): print(x.asnumpy())`.

## Fix safety
No automatic fix: reading values out of the graph has no general graph equivalent.
"""

    VALID = [
        Valid(_net("if isinstance(x, mx.nd.NDArray):\n    print(x.asnumpy())\nreturn x")),
        Valid(_net("n = float(self.scale)\nreturn x * n")),
        Valid(_net("k = int(3.5)\nreturn x * k")),
        Valid("class Net(HybridBlock):\n    def hybrid_forward(self, F, x, mask=None):\n"
              "        return x if mask is None else x * float(mask)\n"),
        Valid(_net("return x.asnumpy()  # noqa: HL002")),
        Valid("def debug(y):\n    return y.asnumpy()\n"),
    ]
    INVALID = [
        Invalid(_net("return x.asnumpy()"), line=3),
        Invalid(_net("s = x.sum().asscalar()\nreturn x / s"), line=3),
        Invalid(_net("x.wait_to_read()\nreturn x"), line=3),
        Invalid(_net("y = F.relu(x)\nreturn y.copyto(mx.cpu())"), line=4),
        Invalid(_net("return x * float(x.max())"), line=3),
        Invalid(_net("n = int(F.sum(x))\nreturn x * n"), line=3),
        Invalid(_net("if bool(x.sum()):\n    return x\nreturn -x"), line=3),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in METHODS and self.is_tensor(func.value):
            self.report(node, f"`.{func.attr.value}()` on a tensor fails under hybridize "
                              f"({METHODS[func.attr.value]}); keep the value in the graph (F ops) or "
                              "read it in an eager-only branch")
        elif isinstance(func, cst.Name) and func.value in CONVERSIONS and func.value not in self.env \
                and len(node.args) == 1 and not node.args[0].star and self.is_tensor(node.args[0].value):
            self.report(node, f"`{func.value}(x)` on a tensor fails under hybridize "
                              f"({CONVERSIONS[func.value]}); keep the value in the graph "
                              "(F.where, F.contrib.cond) instead of converting it to Python")
