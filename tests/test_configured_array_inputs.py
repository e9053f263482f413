"""An input every configured example passes as one array is an array (blind round 17).

SphereFace's AngleLoss unpacks its input, `cos_theta, phi_theta = input`, and its real callers
pass one array stacked on axis 0. Eagerly that unpacks the array's rows; hybridized, a
one-output Symbol (ValueError: not enough values to unpack). Nothing in the code says the
input is one array rather than a list of two, but the configured examples do: HL014 reports
the unpacking only when every example passes one array, and `--fix --unsafe-fixes --verify`
proves its `F.split` rewrite. A list of arrays unpacks the same way in both modes.
"""

import textwrap

import pytest

from hybridlint.config import input_kind
from hybridlint.linter import lint_source
from hybridlint.project import FileProject
from tests.cli_support import invoke

SOURCE = textwrap.dedent(
    """\
    from mxnet import gluon


    class AngleLoss(gluon.HybridBlock):
        def hybrid_forward(self, F, x, target):
            cos_theta, phi_theta = x
            out = cos_theta * 0.5 + phi_theta * 0.5
            return F.pick(out, target, axis=-1)
    """
)
ARRAY, ARRAYS = ("array", ""), ("arrays", "")


def _codes(*examples):
    project = FileProject(example_inputs=tuple(("AngleLoss", given) for given in examples))
    return sorted((f.code, f.line) for f in lint_source(SOURCE, "net.py", project=project))


def test_input_kind_tells_one_array_from_a_list_of_arrays():
    assert input_kind([2, 4, 10])[0] == "array"
    assert input_kind({"shape": [4], "dtype": "int32"})[0] == "array"
    assert input_kind({"list": [[4, 10], [4, 10]]})[0] == "arrays"
    assert input_kind([[4, 10], [4, 10]])[0] == "arrays"
    assert input_kind({"list": [[4, 10], {"int": 3}]})[0] == "int in a list"


def test_unpacking_an_input_every_example_passes_as_one_array_is_hl014():
    assert _codes((ARRAY, ARRAY)) == [("HL014", 6)]
    assert _codes((ARRAY, ARRAY), (ARRAY, ARRAY)) == [("HL014", 6)]


@pytest.mark.parametrize(
    "examples",
    [
        (),  # nothing says what the input is
        ((ARRAYS, ARRAY),),  # a list of two arrays: unpacked alike eagerly and hybridized
        ((ARRAY, ARRAY), (ARRAYS, ARRAY)),  # examples that disagree decide nothing
    ],
)
def test_unpacking_an_input_not_always_one_array_is_not_reported(examples):
    assert _codes(*examples) == []


def test_a_block_with_its_own_forward_is_not_read_from_its_examples():
    source = SOURCE.replace(
        "    def hybrid_forward",
        "    def forward(self, x, target):\n        return x\n\n    def hybrid_forward",
    )
    project = FileProject(example_inputs=(("AngleLoss", (ARRAY, ARRAY)),))
    assert [f.code for f in lint_source(source, "net.py", project=project)] == []


def test_fix_verify_proves_the_split_rewrite_of_the_unpacked_array(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "net.py").write_text(SOURCE)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n"
        '"net.py::AngleLoss" = { inputs = [[2, 4, 10], '
        '{ shape = [4], high = 10, dtype = "int32" }] }\n'
    )
    result = invoke("--no-cache", "--fix", "--unsafe-fixes", "--verify", "net.py")
    assert result.exit_code == 0, result.output
    assert "HL014 fix proven by example AngleLoss" in result.stderr
    fixed = (tmp_path / "net.py").read_text()
    assert "cos_theta, phi_theta = F.split(x, num_outputs=2, axis=0, squeeze_axis=True)" in fixed


CONTRASTIVE = textwrap.dedent(
    """\
    from mxnet.gluon.loss import Loss


    class ContrastiveLoss(Loss):
        def hybrid_forward(self, F, image1, image2, label):
            d2 = F.sum(F.square(image1 - image2), 1, keepdims=True)
            return (1 - label) * d2
    """
)


@pytest.mark.parametrize("label, safety", [(ARRAY, "safe"), (("none", "None"), "unsafe")])
def test_a_configured_array_makes_the_broadcast_of_an_input_only_arithmetic_uses_safe(
    label, safety
):
    """Blind round 18 (a contrastive loss): `(1 - label) * d2` is HL007 either way; its
    broadcast fix was unsafe ("`label` ... may be a number") even where every configured
    example passes label as an array."""
    project = FileProject(example_inputs=(("ContrastiveLoss", (ARRAY, ARRAY, label)),))
    [found] = lint_source(CONTRASTIVE, "net.py", project=project)
    assert (found.code, str(found.fix)) == ("HL007", safety)
