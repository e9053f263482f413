"""Blocks built from a one-line hybrid_forward body and run eagerly and hybridized: what the
engine's block-level differential tests compare with real MXNet 1.9.1."""

import warnings
from typing import Any, Callable, List, Sequence


def eager_and_hybridized(
    mx: Any, body: str, params: str, inputs: Sequence[Any], describe: Callable[[Any], Any]
) -> List[Any]:
    """[eager, hybridized] outcomes of `def hybrid_forward(self, F, <params>): return <body>`
    called on `inputs` in library `mx` (MXNet or the engine), each a fresh block: `describe`
    of the output, or the name of the error's type (the kind of failure is what is compared)."""
    namespace: dict = {}
    exec(f"def hybrid_forward(self, F, {params}):\n    return {body}\n", namespace)  # noqa: S102
    block_class = type("Block", (mx.gluon.HybridBlock,), namespace)
    found = []
    for hybridized in (False, True):
        block = block_class()
        if hybridized:
            block.hybridize()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found.append(describe(block(*inputs)))
        except Exception as err:  # noqa: BLE001 - compared by type
            found.append(type(err).__name__)
    return found
