"""Scaffolding for the rules' VALID / INVALID examples that need more than one block."""

from __future__ import annotations


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
