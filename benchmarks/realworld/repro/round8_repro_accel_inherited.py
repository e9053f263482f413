# ruff: noqa: E501  (a one-off reproduction script, kept as run)
"""accel-brain-base 1.1.0 under MXNet 1.9.1: the overrides of an inherited hybrid_forward.

Why: labels/accel-brain-base-1.1.0.tsv says ``how = mxnet`` for RepellingCAE's indexing
(repelling_cae.py:62-71) and EncoderDecoder's ``[0]`` (encoder_decoder.py:205), found once
the linter followed a hybrid_forward inherited from another module. The real classes need a
whole training setup to build, so each statement runs in a stand-in block with the same code
(copied from the package), on the shapes the package feeds it: eagerly, hybridized, and after
``hybridlint --fix`` (safe fixes only), which rewrites a copy of this file's blocks.

    /tmp/mxv/bin/python benchmarks/realworld/repro/round8_repro_accel_inherited.py

Recorded output (2026-12-02): the original RepellingCAE loop raises AttributeError ('Symbol'
object has no attribute 'T') hybridized; the original EncoderDecoder step is (2, 1, 3) eagerly
and (5, 1, 2, 3) hybridized; both fixed blocks equal eager hybridized.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

import mxnet as mx
import numpy as np

BLOCKS = '''from mxnet import gluon


class Repelling(gluon.HybridBlock):
    """repelling_cae.py:55-73, with self.batch_size rows."""

    def __init__(self, batch_size=3, **kwargs):
        super().__init__(**kwargs)
        self.batch_size = batch_size

    def hybrid_forward(self, F, x):
        penalty_arr = F.flatten(x)
        repelling = 0.0
        for i in range(self.batch_size):
            for j in range(self.batch_size):
                if i == j:
                    continue
                repelling = repelling + F.dot(
                    penalty_arr[i].T,
                    penalty_arr[j]
                ) / (F.sqrt(
                    F.dot(
                        penalty_arr[i],
                        penalty_arr[i]
                    )) * F.sqrt(
                        F.dot(
                            penalty_arr[j],
                            penalty_arr[j]
                        )
                    )
                )
        return repelling


class Generating(gluon.HybridBlock):
    """encoder_decoder.py:203-213 (generating_flag=True, the default)."""

    def hybrid_forward(self, F, encoded_arr):
        arr = F.expand_dims(
            F.flip(
                F.transpose(
                    encoded_arr,
                    (1, 0, 2)
                ),
                axis=0
            )[0],
            axis=1
        )
        return arr
'''


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    with tempfile.TemporaryDirectory() as tmp:
        original, fixed = os.path.join(tmp, "original.py"), os.path.join(tmp, "fixed.py")
        for path in (original, fixed):
            with open(path, "w") as handle:
                handle.write(BLOCKS)
        subprocess.run(
            [sys.executable, "-m", "hybridlint", "--no-cache", "--fix", fixed], check=False
        )
        for name, path in (("original", original), ("fixed", fixed)):
            module = load(path, name)
            for cls, shape in ((module.Repelling, (3, 2, 4)), (module.Generating, (2, 5, 3))):
                x = mx.nd.array(np.random.RandomState(0).rand(*shape))
                net = cls()
                net.initialize()
                eager = net(x).asnumpy()
                net.hybridize()
                try:
                    hybrid = net(x).asnumpy()
                except Exception as error:  # noqa: BLE001 - the failure is the record
                    print(
                        f"{name} {cls.__name__}: hybridized raises {type(error).__name__}: {error}"
                    )
                    continue
                same = hybrid.shape == eager.shape and np.allclose(hybrid, eager)
                print(
                    f"{name} {cls.__name__}: eager {eager.shape}, hybridized {hybrid.shape}, equal {same}"
                )


if __name__ == "__main__":
    main()
