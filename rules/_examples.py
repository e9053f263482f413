"""Scaffolding for the rules' VALID / INVALID examples: one way to write a block's source
(`net`), and a child block with the parent that calls it (`with_parent`)."""

from __future__ import annotations


def net(body: str, signature: str = "F, x", head: str = "", init: str = "") -> str:
    """The source of a `Net` HybridBlock whose `hybrid_forward(self, <signature>)` runs
    `body`, written without indentation (it is indented here, so an example reads as the code
    it stands for): `head` (imports, helpers) comes first, `init` (class-body text, already
    indented, e.g. an `__init__`) before hybrid_forward."""
    lines = "".join("        " + line + "\n" for line in body.splitlines())
    return (
        f"{head}class Net(HybridBlock):\n{init}    def hybrid_forward(self, {signature}):\n{lines}"
    )


def net_xy(body: str) -> str:
    """:func:`net` with two inputs, `hybrid_forward(self, F, x, y)` (binary-operator rules)."""
    return net(body, "F, x, y")


def with_parent(child: str, klass: str, call: str, parent: str = "Net") -> str:
    """`child` (a block's source, ending in a newline) followed by a parent block that builds
    it (`self.child = <klass>()`) and calls it from `hybrid_forward(self, F, x)` as
    `return self.child(<call>)`: the call site is the evidence for the child's inputs
    (issue 11, `analysis._call_site_evidence`). A parent named `Net` is the block the
    ground-truth harnesses run."""
    return (
        f"{child}\n\nclass {parent}(HybridBlock):\n    def __init__(self):\n"
        f"        super({parent}, self).__init__()\n        self.child = {klass}()\n\n"
        f"    def hybrid_forward(self, F, x):\n        return self.child({call})\n"
    )
