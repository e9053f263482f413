"""`--verify` on a file without examples infers one for each block it can build without
arguments (hybridlint/checker/inferred.py), so unsafe fixes there are proven by running the
block, not left out."""

import textwrap

import pytest
from click.testing import CliRunner

from hybridlint.checker import CheckerSession, verify_fixes
from hybridlint.checker.inferred import candidates, infer_examples
from hybridlint.checker.report import EquivalenceReport
from hybridlint.cli import cli
from tests.checker_support import backend_params

# gluonts' LipSwish: a (1,)-shaped parameter times the input does not broadcast on a Symbol;
# with a second, optional input x may be a Python number (`net(2.0, mask)` works eagerly), so
# HL007's F.broadcast_mul is an unsafe fix, which --verify applies only when a run proves it
SCALE = textwrap.dedent(
    """\
    from mxnet import gluon


    class Scale(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.beta = self.params.get("beta", shape=(1,), init="ones")

        def hybrid_forward(self, F, x, beta, mask=None):
            return x * F.sigmoid(beta * x)
    """
)
FIXED = "F.sigmoid(F.broadcast_mul(beta, x))"


def _shapes(source: str, lines=()):
    return {
        name: [tuple(spec.shape for spec in example.inputs) for example in examples]
        for name, examples in candidates(textwrap.dedent(source), lines).items()
    }


def test_inputs_are_the_required_arguments_that_are_not_parameters():
    found = _shapes(SCALE)
    assert list(found) == ["Scale"]
    assert found["Scale"][0] == ((4, 6),)  # one input: beta is the parameter
    assert all(len(shapes) == 1 for shapes in found["Scale"])
    loss = """
        class Loss(HybridBlock):
            def hybrid_forward(self, F, pred, label, sample_weight=None, *args):
                return F.square(pred - label)
    """
    assert _shapes(loss)["Loss"][0] == ((4, 6), (4, 6))  # the optional input left out


def test_the_rank_comes_from_what_the_code_reads_of_the_shape():
    unpacked = """
        class Down(HybridBlock):
            def __init__(self, scale=2, **kwargs):
                super().__init__(**kwargs)
                self.scale = scale

            def hybrid_forward(self, F, x):
                n, c, h, w = x.shape
                return x.reshape(n, c * self.scale, h // self.scale, w)
    """
    assert _shapes(unpacked)["Down"][0] == ((2, 3, 8, 8),)
    sliced = """
        class Resize(HybridBlock):
            def hybrid_forward(self, F, x):
                return F.contrib.BilinearResize2D(x, height=x.shape[2] * 2, width=x.shape[3] * 2)
    """
    assert all(len(shapes[0]) >= 4 for shapes in _shapes(sliced)["Resize"])


def test_a_block_with_required_arguments_of_no_stated_type_gets_no_example():
    source = """
        class Head(HybridBlock):
            def __init__(self, layout, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    assert _shapes(source) == {}


@pytest.mark.parametrize("name", ["channels", "in_channels", "out_channels", "units", "in_units"])
def test_an_untyped_count_named_as_gluon_names_channels_is_guessed_an_int(name):
    source = f"""
        class Head(HybridBlock):
            def __init__(self, {name}, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    # the channels: those of the trial inputs, then of the same with 16 channels
    assert [kwargs[name] for kwargs in _built(source)["Head"]] == [6, 3, 4, 16, 16, 16]


def _built(source):
    return {
        name: [dict(example.kwargs) for example in examples]
        for name, examples in candidates(textwrap.dedent(source)).items()
    }


def test_required_arguments_of_stated_types_are_guessed():
    """gluoncv2's docstrings (numpy style), Google style and annotations: an int is the
    trial input's channel count, a float 0.1, a bool False, an optional type None."""
    source = """
        class Head(HybridBlock):
            \"\"\"
            Parameters:
            ----------
            in_channels : int
                Number of input channels.
            eps : float, default 1e-5
            in_size : tuple of 2 int or None
            \"\"\"
            def __init__(self, in_channels, eps, in_size, flag: bool, units: Optional[int], **kwargs):
                \"\"\"Args:
                    eps (int): documented twice: the class docstring's entry wins
                \"\"\"
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    built = _built(source)["Head"]
    shapes = _shapes(source)["Head"]
    channels = [kwargs["in_channels"] for kwargs in built]
    assert channels == [s[0][1] for s in shapes] == [6, 3, 4, 16, 16, 16]
    assert all(
        {k: v for k, v in kwargs.items() if k != "in_channels"}
        == {"eps": 0.1, "in_size": None, "flag": False, "units": None}
        for kwargs in built
    )


def test_an_int_not_named_as_a_width_is_guessed_1():
    """`stride` guessed as the input's channels (16) shrank gluoncv's BasicBlockV1 to 1x1, and
    `residual + x` then broadcast eagerly only: a hazard of the guess, not of the block."""
    source = """
        class Block(HybridBlock):
            \"\"\"
            channels : int
            stride : int
            \"\"\"
            def __init__(self, channels, stride, groups: int, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    built = _built(source)["Block"]
    assert all(kwargs["stride"] == 1 and kwargs["groups"] == 1 for kwargs in built)
    assert [kwargs["channels"] for kwargs in built][:2] == [6, 3]


def test_an_int_named_as_a_resampling_factor_is_guessed_2():
    """gluoncv2's IRevDownscale (`scale : int`) asserts `h % scale == 0`: the channel count
    (3, then 16) divides no trial height, so it got no example and its HL001 fix no proof.
    Untyped, only a resampling factor's name: an untyped `scale` stays a float."""
    source = """
        class Down(HybridBlock):
            \"\"\"
            scale : int
            \"\"\"
            def __init__(self, scale, upscale_factor: int, reduction: int, upsample_factor, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x

        class Coef(HybridBlock):
            def __init__(self, scale, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x * self.scale
    """
    built = _built(source)
    assert built["Down"] and all(
        kwargs == {"scale": 2, "upscale_factor": 2, "reduction": 2, "upsample_factor": 2}
        for kwargs in built["Down"]
    )
    assert built["Coef"] and all(kwargs == {"scale": 0.1} for kwargs in built["Coef"])


IREV = textwrap.dedent(
    """\
    from mxnet.gluon import HybridBlock


    class IRevDownscale(HybridBlock):
        \"\"\"
        scale : int
            Scale (downscale) value.
        \"\"\"
        def __init__(self, scale, **kwargs):
            super().__init__(**kwargs)
            self.scale = scale

        def hybrid_forward(self, F, x):
            batch, x_channels, x_height, x_width = x.shape
            y_channels = x_channels * self.scale * self.scale
            assert (x_height % self.scale == 0)
            y_height = x_height // self.scale

            y = x.transpose(axes=(0, 2, 3, 1))
            d2_split_seq = y.split(axis=2, num_outputs=(y.shape[2] // self.scale))
            d2_split_seq = [t.reshape(batch, y_height, y_channels) for t in d2_split_seq]
            y = F.stack(*d2_split_seq, axis=1)
            y = y.transpose(axes=(0, 3, 2, 1))
            return y
    """
)


def test_a_guessed_factor_proves_the_space_to_depth_rewrite():
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(IREV, "net.py", [], session=session)
    assert outcome.labels == ["IRevDownscale#inferred"]
    assert [r.status for r in outcome.reports] == ["equal"], outcome.reports
    assert ".shape" not in outcome.source and "-4, -1, self.scale" in outcome.source
    (proof,) = [p for p in outcome.proofs if p.finding.code == "HL001"]
    assert proof.verdict == "proven", proof


def test_a_width_of_any_name_is_the_channel_count_and_working_code_stays(tmp_path):
    """`d_model` guessed 1 made `x + self.proj(x)` broadcast eagerly only, and --verify then
    'proved' an HL007 rewrite of working code (a review's reproduction)."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "ffn.py"
    source = textwrap.dedent(
        """\
        from mxnet.gluon import HybridBlock, nn


        class FFN(HybridBlock):
            \"\"\"
            d_model : int
            \"\"\"
            def __init__(self, d_model, **kwargs):
                super().__init__(**kwargs)
                self.proj = nn.Dense(d_model, flatten=False)

            def hybrid_forward(self, F, x):
                return x + self.proj(x)
        """
    )
    path.write_text(source)
    assert _built(source)["FFN"][0] == {"d_model": 6}
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", str(path)])
    assert path.read_text() == source, result.output


@pytest.mark.parametrize("stated", ["list of int", "str", "", "callable"])
def test_a_required_argument_of_another_type_leaves_the_block_without_example(stated):
    source = f"""
        class Head(HybridBlock):
            \"\"\"
            channels : int
            layout : {stated}
            \"\"\"
            def __init__(self, channels, layout, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    assert _shapes(source) == {}


def test_a_literal_call_in_the_file_is_preferred_to_guesses():
    source = """
        class Up(HybridBlock):
            \"\"\"scale_factor : int\"\"\"
            def __init__(self, scale_factor, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x

        up = Up(scale_factor=8)
    """
    assert {tuple(k.items()) for k in _built(source)["Up"]} == {(("scale_factor", 8),)}


def test_a_block_with_required_arguments_is_built_as_a_literal_call_in_the_file_builds_it():
    source = """
        class Up(HybridBlock):
            def __init__(self, scale_factor, mode="bilinear", **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x

        class Net(HybridBlock):
            def __init__(self, s=4, **kwargs):
                super().__init__(**kwargs)
                self.a = Up(scale_factor=8)
                self.b = Up(2, "nearest")
                self.c = Up(scale_factor=s)
                self.d = Up(scale_factor=8)
    """
    built = [dict(example.kwargs) for example in candidates(textwrap.dedent(source))["Up"]]
    assert built[0] == {"scale_factor": 8}
    assert {"scale_factor": 2, "mode": "nearest"} in built
    assert all(
        kwargs in ({"scale_factor": 8}, {"scale_factor": 2, "mode": "nearest"}) for kwargs in built
    )


def test_blocks_holding_the_given_lines_are_tried_first():
    source = SCALE + textwrap.dedent(
        """

        class Other(gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return x.shape
        """
    )
    other_line = source.splitlines().index("class Other(gluon.HybridBlock):") + 3
    assert list(_shapes(source, [other_line])) == ["Other", "Scale"]
    assert list(_shapes(source)) == ["Scale", "Other"]
    # a fix in a module-level helper runs in the blocks that call it
    helper = "def _weighted(F, loss):\n    return loss.reshape(())\n\n\n"
    calling = source.replace("return x.shape", "return _weighted(F, x)")
    assert list(_shapes(helper + calling, [2])) == ["Other", "Scale"]


def test_the_first_candidate_the_original_runs_eagerly_is_kept():
    source = textwrap.dedent(
        """
        class Any(HybridBlock):
            def hybrid_forward(self, F, x):
                return x
        """
    )
    calls = []

    def run(batch):
        calls.append([tuple(s.shape for s in ex.inputs) for ex in batch])
        ranks = [len(ex.inputs[0].shape) for ex in batch]
        return [EquivalenceReport("eager_error" if r == 2 else "equal") for r in ranks]

    (found,) = infer_examples(source, [], run)
    assert calls == [[((4, 6),)], [((2, 3, 8, 8),)]]  # rank 2 failed eagerly: rank 4 next
    assert found.example.inferred and found.described == "Any() with input (2, 3, 8, 8)"


def test_a_block_whose_build_fails_gets_no_example():
    # HL010: MXNet refuses a non-hybrid child when the block is built, before any eager run;
    # the HL010-fixed reference then met the made-up input, and every fix of the file was
    # rejected with its eager failure
    source = textwrap.dedent(
        """
        class Any(HybridBlock):
            def hybrid_forward(self, F, x):
                return x
        """
    )

    def run(batch):
        return [EquivalenceReport("hybrid_error", stage="build") for _ in batch]

    assert infer_examples(source, [], run) == []


@pytest.mark.parametrize("backend", backend_params())
def test_an_unsafe_fix_is_proven_on_the_inferred_example(backend):
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(SCALE, "net.py", [], backend=backend, session=session)
        plain = verify_fixes(SCALE, "net.py", [], backend=backend, session=session, infer=False)
    assert FIXED in outcome.source
    assert outcome.labels == ["Scale#inferred"]
    assert [r.status for r in outcome.reports] == ["equal"], outcome.reports
    (proof,) = [p for p in outcome.proofs if p.finding.code == "HL007"]
    assert proof.verdict == "proven" and "Scale#inferred" in proof.detail
    # without inference the same unsafe fix has nothing to prove it
    assert FIXED not in plain.source


# bisenet's AttentionRefinementBlock: the pooled weights pass through a child, so no rule
# knows their shape and nothing is reported; hybridized, `x * w` does not broadcast
ATTENTION = textwrap.dedent(
    """\
    from mxnet import gluon


    class Gate(gluon.HybridBlock):
        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            self.conv = gluon.nn.Conv2D(channels, 1, in_channels=channels)

        def hybrid_forward(self, F, x):
            return F.sigmoid(self.conv(x))


    class Attention(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.gate = Gate(3)

        def hybrid_forward(self, F, x):
            w = self.gate(F.contrib.AdaptiveAvgPooling2D(x, output_size=1))
            return x * w
    """
)


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_with_no_finding_is_run_and_what_fails_is_fixed(backend):
    from hybridlint.linter import lint_source

    assert lint_source(ATTENTION) == []
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(ATTENTION, "net.py", [], backend=backend, session=session)
    assert "return F.broadcast_mul(x, w)" in outcome.source
    assert outcome.labels == ["Attention#inferred", "Gate#inferred"]  # the root first
    assert [r.status for r in outcome.reports] == ["equal", "equal"], outcome.reports


def _project(tmp_path, source: str, config: str = "") -> None:
    (tmp_path / "net.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n" + config)


# the same block, whose constructor takes the width of its parameter: only the docstring says
# what the argument is
SCALE_GUESSED = SCALE.replace(
    "    def __init__(self, **kwargs):",
    '    """channels : int"""\n\n    def __init__(self, channels, **kwargs):',
).replace("shape=(1,)", "shape=(channels,)")


@pytest.mark.parametrize(
    "source, said",
    [
        (
            SCALE,
            "net.py::Scale#inferred: no example is configured; inferred Scale() with input (4, 6)",
        ),
        (
            SCALE_GUESSED,
            "inferred Scale(channels=6) with input (4, 6) (constructor arguments guessed from "
            "their stated types, names or uses)",
        ),
    ],
    ids=["bare", "guessed"],
)
def test_the_cli_proves_the_unsafe_fix_and_says_which_example_it_inferred(
    tmp_path, monkeypatch, source, said
):
    _project(tmp_path, source)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "net.py"])
    assert FIXED in (tmp_path / "net.py").read_text(), result.output
    assert said in " ".join(result.output.split()), result.output


def test_infer_examples_false_turns_it_off(tmp_path, monkeypatch):
    _project(tmp_path, SCALE, "infer-examples = false\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "net.py"])
    assert FIXED not in (tmp_path / "net.py").read_text()
    assert "#inferred" not in result.output
    assert "no block is run (infer-examples = false)" in result.output


def test_a_bad_infer_examples_value_is_a_config_error(tmp_path, monkeypatch):
    _project(tmp_path, SCALE, "infer-examples = 1\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "net.py"])
    assert result.exit_code == 2, result.output
    assert "infer-examples must be true or false" in result.output


def test_ndarray_only_code_failing_on_an_inferred_example_is_hl903(tmp_path, monkeypatch):
    # no input avoids `.asnumpy()` on a Symbol: the block fails however its callers call it
    source = SCALE.replace(
        "return x * F.sigmoid(beta * x)",
        "scale = float(x.asnumpy().std())\n        return x * F.sigmoid(beta * x) * scale",
    )
    _project(tmp_path, source)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "net.py"])
    assert result.exit_code == 1
    assert "net.py:10:" in result.output and "HL903" in result.output, result.output
    assert "Scale#inferred still fails with the example --verify inferred" in result.output


def test_other_failures_on_an_inferred_example_are_a_note(tmp_path, monkeypatch):
    # the input was made up, and so is what the block returns for it (here a None that gluon
    # refuses hybridized): no caller may call it so, so the failure is said, not a finding
    source = SCALE.replace("return x * F.sigmoid(beta * x)", "return x * F.sigmoid(beta * x), None")
    _project(tmp_path, source)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "net.py"])
    assert "net.py::Scale#inferred: still fails on the inferred example" in result.output
    assert "HL903" not in result.output


@pytest.mark.parametrize("backend", backend_params())
def test_a_safe_fix_refused_on_an_inferred_example_is_judged_as_without_it(backend):
    # An inferred input may break the block's contract (one level per weight), and a safe
    # fix --fix applies would be refused on it: --verify would do worse than --fix. So such
    # an example is left out (said in a note) and the file is verified again without it.
    from tests.checker_support import data
    from tests.test_checker_verify import wrong_fixer

    with open(data("two_slices.py")) as handle:
        source = handle.read()
    fixer = wrong_fixer("begin=1, end=2", "begin=0, end=1")  # the safe HL003 fix made wrong
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(source, "two.py", [], backend=backend, session=session, fixer=fixer)
    assert outcome.labels == [] and outcome.inferred == []
    (dropped,) = outcome.dropped
    assert dropped.startswith("TwoSlices() with input (4, 6) was left out: on it the safe fix")
    assert "HL003 at line 14 was refused" in dropped
    # judged as in a file without examples: the expression-level check refuses it too
    assert any(r.finding.line == 14 for r in outcome.rejected)
    assert "a = h[:, 1]" in outcome.source


def test_a_guessed_channel_count_is_also_tried_at_16():
    """gluoncv's _PyramidPooling builds its branches with `int(in_channels / 4)` channels:
    3 channels, the RGB trial's, build layers of none, and the original fails eagerly."""
    from hybridlint.checker.checks import check_source

    source = textwrap.dedent(
        """\
        from mxnet.gluon import HybridBlock, nn


        class Quarter(HybridBlock):
            def __init__(self, in_channels, **kwargs):
                super().__init__(**kwargs)
                self.conv = nn.Conv2D(int(in_channels / 4), 1, in_channels=in_channels)

            def hybrid_forward(self, F, x):
                return self.conv(x)
        """
    )
    (found,) = infer_examples(source, [], lambda batch: check_source(source, "net.py", batch))
    assert found.example.kwargs == {"in_channels": 16}
    assert found.example.inputs[0].shape == (2, 16, 8, 8)


def _one_argument(name: str, init_body: str = "pass") -> str:
    return f"""
        class Head(HybridBlock):
            def __init__(self, {name}, **kwargs):
                super().__init__(**kwargs)
                {init_body}

            def hybrid_forward(self, F, x):
                return x
    """


@pytest.mark.parametrize(
    "name, first_three",
    [
        # the trial inputs are (4, 6), (2, 3, 8, 8), (2, 4, 6): sizes are read off the first
        ("batch_size", [4, 2, 2]),
        ("height", [6, 8, 4]),
        ("width", [6, 8, 6]),
        ("num_classes", [6, 3, 4]),
        ("feature_dim", [6, 3, 4]),
        ("eos_id", [1, 1, 1]),
        ("kernel_size", [1, 1, 1]),
        ("use_bias", [False, False, False]),
        ("margin", [0.1, 0.1, 0.1]),
        ("batch_size: int", [4, 2, 2]),  # a stated int named as a size is that size
        ('height: "int"', [6, 8, 4]),  # a string annotation
    ],
)
def test_an_untyped_argument_is_guessed_from_its_name(name, first_three):
    key = name.split(":")[0]
    assert [kwargs[key] for kwargs in _built(_one_argument(name))["Head"]][:3] == first_three


def test_per_channel_statistics_are_a_list_of_one_number_per_channel():
    """gluoncv's DeNormalize(mean, std): by name, or by use (`mx.nd.array(mu)`)."""
    by_name = _built(_one_argument("mean"))["Head"]
    assert [kwargs["mean"] for kwargs in by_name][:2] == [
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        [0.1, 0.2, 0.3],
    ]
    by_use = _built(_one_argument("mu", "self.mu = mx.nd.array(mu)"))["Head"]
    assert by_use[1]["mu"] == [0.1, 0.2, 0.3]
    assert "Head" not in _built(_one_argument("mu", "self.mu = mu"))  # no use says


def test_a_stated_type_wins_over_the_name():
    source = """
        class Head(HybridBlock):
            \"\"\"
            mean : float
            \"\"\"
            def __init__(self, mean, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    assert all(kwargs["mean"] == 0.1 for kwargs in _built(source)["Head"])


DENORMALIZE = textwrap.dedent(
    """\
    import mxnet as mx
    from mxnet.gluon import HybridBlock


    class DeNormalize(HybridBlock):
        \"\"\"Denormalize the image\"\"\"
        def __init__(self, mean, std):
            super(DeNormalize, self).__init__()
            self.mean = mx.nd.array(mean, ctx=mx.cpu(0))
            self.std = mx.nd.array(std, ctx=mx.cpu(0))

        def hybrid_forward(self, F, x):
            return x * self.std.reshape(shape=(3, 1, 1)) + self.mean.reshape(shape=(3, 1, 1))
    """
)


def test_the_cli_proves_fixes_on_a_block_built_from_guessed_names(tmp_path):
    """gluoncv's DeNormalize (utils/viz/segmentation.py): its constructor states no types, and
    its arrays made in __init__ (HL005) could not be proven without an example."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "viz.py"
    path.write_text(DENORMALIZE)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", str(path)])
    assert result.exit_code == 0, result.output
    assert "DeNormalize(mean=[0.1, 0.2, 0.3], std=[0.1, 0.2, 0.3]) with input (2, 3, 8, 8)" in (
        result.output
    )
    assert "HL005 fix proven by example DeNormalize#inferred" in result.output
    assert "self.params.get_constant" in path.read_text()


def test_a_block_sized_by_batch_height_and_width_runs_on_a_trial_of_that_size(tmp_path):
    """gluoncv's monodepth2 BackprojectDepth(batch_size, height, width) builds a grid of the
    input's size: the guesses are read off the trial input, so the block runs."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "grid.py"
    path.write_text(
        textwrap.dedent(
            """\
            import mxnet as mx
            import numpy as np
            from mxnet.gluon import HybridBlock


            class AddGrid(HybridBlock):
                def __init__(self, batch_size, height, width):
                    super().__init__()
                    self.grid = mx.nd.array(np.arange(batch_size * height * width).reshape(
                        (batch_size, 1, height, width)))

                def hybrid_forward(self, F, x):
                    return x + self.grid
            """
        )
    )
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", str(path)])
    assert result.exit_code == 0, result.output
    assert "AddGrid(batch_size=2, height=8, width=8) with input (2, 3, 8, 8)" in result.output
    assert "F.broadcast_add(x, grid)" in path.read_text()


@pytest.mark.parametrize(
    "stated, guessed",
    [
        ("tuple of float", [0.1, 0.2, 0.3]),  # a list of numbers named as statistics
        ("tuple of 2 int", None),  # the name (`*_size`: a count) contradicts the type
    ],
)
def test_a_stated_sequence_type_takes_only_a_list_guess_from_the_name(stated, guessed):
    """gluoncv2's PyramidPoolingZeroBranch states `in_size : tuple of 2 int`: guessed as a
    count by its name, it built a block no caller builds (and crowded out others)."""
    name = "mean" if guessed else "in_size"
    source = f"""
        class Head(HybridBlock):
            \"\"\"
            {name} : {stated}
            \"\"\"
            def __init__(self, {name}, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    built = _built(source)
    if guessed is None:
        assert "Head" not in built
    else:
        assert built["Head"][1][name] == guessed


def _guessed_blocks(count: int) -> str:
    """`count` blocks unused by any other, each built from a guessed `channels`."""
    return "".join(
        f"""
        class Guessed{i}(HybridBlock):
            def __init__(self, channels, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
        """
        for i in range(count)
    )


def test_blocks_built_from_guesses_come_after_those_built_as_the_code_builds_them():
    """A file holds at most MAX_BLOCKS inferred blocks: guessed ones must not crowd out one
    the code builds itself (`Plain()`), whatever their order in the file."""
    guessed = _guessed_blocks(8)
    plain = """
        class Plain(HybridBlock):
            def hybrid_forward(self, F, x):
                return x
    """
    names = list(_built(guessed + plain))
    assert names[0] == "Plain" and len(names) == 8


def test_an_untyped_depth_is_no_guess_and_working_code_stays(tmp_path):
    """A review's case: `depth` guessed 1 like a count of layers made `x + self.conv(x)`
    broadcast eagerly only, and --verify then 'proved' an HL007 rewrite of working code."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    path = tmp_path / "res.py"
    source = textwrap.dedent(
        """\
        from mxnet.gluon import HybridBlock, nn


        class Res(HybridBlock):
            def __init__(self, depth, **kwargs):
                super().__init__(**kwargs)
                self.conv = nn.Conv2D(depth, 1)

            def hybrid_forward(self, F, x):
                return x + self.conv(x)
        """
    )
    path.write_text(source)
    assert "Res" not in _built(source)
    CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", str(path)])
    assert path.read_text() == source


def test_a_docstring_entry_that_names_no_type_leaves_the_name_to_guess():
    """`mean: the mean of each channel` (Google style without a type) states no type."""
    source = """
        class Head(HybridBlock):
            \"\"\"Args:
                mean: the mean of each channel
            \"\"\"
            def __init__(self, mean, **kwargs):
                super().__init__(**kwargs)

            def hybrid_forward(self, F, x):
                return x
    """
    assert _built(source)["Head"][1]["mean"] == [0.1, 0.2, 0.3]


def test_a_used_block_built_without_guesses_comes_before_unused_guessed_ones():
    guessed = _guessed_blocks(8)
    used = """
        class Plain(HybridBlock):
            def hybrid_forward(self, F, x):
                return x


        class Holder(HybridBlock):
            def __init__(self, channels, **kwargs):
                super().__init__(**kwargs)
                self.plain = Plain()

            def hybrid_forward(self, F, x):
                return self.plain(x)
    """
    names = list(_built(guessed + used))
    assert names[0] == "Plain" and len(names) == 8
