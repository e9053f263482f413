"""--verify names the blocks it could not run and the example that would let it.

Without an example that runs a block, --verify leaves the block's unsafe fixes (and its
fixes no expression-level check covers) unapplied; the finding alone does not say why. A
note per such block gives the `[tool.hybridlint.examples]` entry to fill in."""

import textwrap

from hybridlint.checker.inferred import unrun_blocks
from tests.cli_support import invoke

SOURCE = textwrap.dedent(
    """
    import mxnet as mx
    from mxnet.gluon import HybridBlock


    class DeNormalize(HybridBlock):
        def __init__(self, stats):  # read from a dict: nothing says how to guess it
            super(DeNormalize, self).__init__()
            self.mean = mx.nd.array(stats["mean"], ctx=mx.cpu(0))
            self.std = mx.nd.array(stats["std"], ctx=mx.cpu(0))

        def hybrid_forward(self, F, x):
            return x * self.std.reshape(shape=(3, 1, 1)) + self.mean.reshape(shape=(3, 1, 1))


    class Shifted(DeNormalize):
        pass
    """
)
LINE = 13  # the hybrid_forward's return
STUB = "{ kwargs = { stats = <stats> }, inputs = [<x>] }"


def test_a_block_no_example_ran_gets_the_example_to_configure():
    assert unrun_blocks(SOURCE, [LINE], set()) == [("DeNormalize", STUB)]


def test_no_note_for_a_block_an_example_ran_or_its_base():
    assert unrun_blocks(SOURCE, [LINE], {"DeNormalize"}) == []
    assert unrun_blocks(SOURCE, [LINE], {"Shifted"}) == []  # its run runs the base's code


def test_no_note_for_lines_outside_blocks():
    assert unrun_blocks(SOURCE, [2], set()) == []


def test_verify_prints_the_note_with_the_key_the_examples_table_takes(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "models").mkdir()
    alone = SOURCE[: SOURCE.index("class Shifted")]  # HL005 fixes a block no subclass reuses
    (tmp_path / "models" / "net.py").write_text(alone)
    result = invoke("--fix", "--verify", str(tmp_path / "models" / "net.py"))  # absolute path
    assert result.exit_code == 1, result.output
    # relative to the project root, as [tool.hybridlint.examples] keys are
    assert f' "models/net.py::DeNormalize" = {STUB}' in result.stderr
