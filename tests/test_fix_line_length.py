"""Issue 14: lines that fixes make longer than the project's line length are broken at a
natural point (inside a call's brackets), as black would; nothing else is re-wrapped."""

import ast
import textwrap

import pytest
from click.testing import CliRunner

from hybridlint.cli import cli
from hybridlint.config import ConfigError, load_config
from hybridlint.linter import fix_source
from hybridlint.wrap import wrap_fixed_lines

HEAD = textwrap.dedent("""\
    from mxnet.gluon import HybridBlock


    class Net(HybridBlock):
        def hybrid_forward(self, F, x, y):
""")
# 62 columns before the fix, 107 after (x[:, 1:3] -> F.slice(x, begin=..., end=...))
GROWS = (
    HEAD + "        projected = self.output_projection(x[:, 1:3])  # keep this comment\n"
    "        return projected\n"
)
USER_LONG = (
    "        unrelated_but_long = self.some_layer_with_a_long_name(x, y, y, y, y, y, y,"
    " y, y, y)  # the user's\n"
)


def widths(text):
    return [len(line) for line in text.splitlines()]


def lint_limit(text, limit):
    return [line for line in text.splitlines() if len(line) > limit]


def test_fix_over_88_columns_is_wrapped_parses_and_equals_the_unwrapped_fix():
    long_fix = fix_source(GROWS).source
    assert max(widths(long_fix)) > 88  # the premise: the plain fix makes the line too long
    wrapped = fix_source(GROWS, line_length=88)
    assert not lint_limit(wrapped.source, 88)
    assert ast.dump(ast.parse(wrapped.source)) == ast.dump(ast.parse(long_fix))
    assert "        projected = self.output_projection(\n" in wrapped.source
    assert "\n        )  # keep this comment\n" in wrapped.source  # the comment survives
    assert len(wrapped.applied) == 1 and wrapped.remaining == fix_source(GROWS).remaining


def test_line_within_the_limit_is_left_on_one_line():
    assert fix_source(GROWS, line_length=120).source == fix_source(GROWS).source


def test_short_fixed_line_is_untouched_and_user_long_line_is_never_rewrapped():
    source = HEAD + USER_LONG + "        return x[:, 0]\n"
    assert max(widths(source)) > 88
    fixed = fix_source(source, line_length=88)
    assert fixed.applied  # the short line was fixed ...
    assert fixed.source == fix_source(source).source  # ... and nothing was wrapped
    assert USER_LONG in fixed.source


def test_a_line_long_by_its_comment_before_the_fix_is_not_wrapped():
    """Blind round 11 (an improved-DCGAN discriminator): `.reshape(32, -1)  # <a long comment>`
    was over 88 columns by its comment before the fix; the two characters of the fix wrapped
    it into three lines with the comment after the closing bracket. Its code still fits: it
    stays one line. A comment that only the fix pushes past the limit still wraps (above)."""
    line = "        return x.reshape(32, -1)  # .view(-1) in PyTorch => we need to rearrange 1x1x1 to 1\n"
    source = HEAD.replace("hybrid_forward(self, F, x, y)", "hybrid_forward(self, F, x)") + line
    assert max(widths(source)) > 88
    fixed = fix_source(source, line_length=88).source
    assert "return x.reshape((32, -1))  # .view(-1) in PyTorch" in fixed, fixed


def test_line_without_brackets_to_break_stays_long():
    before = "    value = a_rather_long_name_for_a_value + another_rather_long_name_too\n"
    after = "    value = a_rather_long_name_for_a_value.plus_something_quite_long + other_name\n"
    assert wrap_fixed_lines(before, after, 60) == after


def test_many_arguments_are_exploded_one_per_line_with_a_trailing_comma():
    before = "    out = f(a)\n"
    after = "    out = F.slice(data_tensor, begin=(None, 1, 0), end=(None, 3, 4), step=(1, 1, 1))\n"
    wrapped = wrap_fixed_lines(before, after, 40)
    assert wrapped == (
        "    out = F.slice(\n"
        "        data_tensor,\n"
        "        begin=(None, 1, 0),\n"
        "        end=(None, 3, 4),\n"
        "        step=(1, 1, 1),\n"
        "    )\n"
    )
    assert ast.dump(ast.parse(textwrap.dedent(wrapped))) == ast.dump(
        ast.parse(textwrap.dedent(after))
    )


def test_returned_bare_tuple_gets_black_parentheses():
    before = "        return cls_prob[:, :, 1:], F.concat(xy - wh / 2, xy + wh / 2, dim=-1)\n"
    after = (
        "        return F.slice(cls_prob, begin=(None, None, 1), end=(None, None, None)),"
        " F.concat(xy - wh / 2, xy + wh / 2, dim=-1)\n"
    )
    wrapped = wrap_fixed_lines(before, after, 88)
    assert wrapped == (
        "        return (\n"
        "            F.slice(cls_prob, begin=(None, None, 1), end=(None, None, None)),\n"
        "            F.concat(xy - wh / 2, xy + wh / 2, dim=-1),\n"
        "        )\n"
    )
    assert ast.dump(ast.parse(textwrap.dedent(wrapped))) == ast.dump(
        ast.parse(textwrap.dedent(after))
    )


def test_conditional_expression_gets_black_parentheses_then_a_line_per_branch():
    before = "        return self.up(x, size)\n"
    after = (
        "        return self.up(x, size) if self.fixed else F.contrib.BilinearResize2D(x, like=s)\n"
    )
    assert len(after) - 1 == 88
    # fits inside the parentheses: one line
    assert wrap_fixed_lines(before, after, 86) == (
        "        return (\n"
        "            self.up(x, size) if self.fixed else F.contrib.BilinearResize2D(x, like=s)\n"
        "        )\n"
    )
    # does not: the condition and the else branch on lines of their own
    wrapped = wrap_fixed_lines(before, after, 60)
    assert wrapped == (
        "        return (\n"
        "            self.up(x, size)\n"
        "            if self.fixed\n"
        "            else F.contrib.BilinearResize2D(x, like=s)\n"
        "        )\n"
    )
    assert ast.dump(ast.parse(textwrap.dedent(wrapped))) == ast.dump(
        ast.parse(textwrap.dedent(after))
    )


def test_fixing_the_wrapped_result_again_changes_nothing():
    once = fix_source(GROWS, line_length=88).source
    again = fix_source(once, line_length=88)
    assert again.source == once and not again.applied


def test_crlf_and_form_feed_survive_wrapping():
    source = GROWS.replace("\n", "\r\n")
    wrapped = fix_source(source, line_length=88).source
    assert "\r\n" in wrapped and "\n" not in wrapped.replace("\r\n", "")
    assert wrapped.replace("\r\n", "\n") == fix_source(GROWS, line_length=88).source
    before = "\f    out = g(x)\n"
    after = "\f    out = self.output_projection(F.slice(x, begin=(None, 1), end=(None, 3)))\n"
    result = wrap_fixed_lines(before, after, 60)
    assert result.startswith("\f    out = self.output_projection(\n        F.slice(")


# -- configuration ---------------------------------------------------------------------------
def project(tmp_path, monkeypatch, pyproject):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(pyproject))
    (tmp_path / "net.py").write_text(GROWS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "pyproject, limit",
    [
        ("[tool.hybridlint]\n", 88),
        ("[tool.hybridlint]\nline-length = 120\n", 120),
        (
            "[tool.hybridlint]\n[tool.ruff]\nline-length = 100\n[tool.black]\nline-length = 60\n",
            100,
        ),
        ("[tool.black]\nline-length = 60\n[tool.hybridlint]\n", 60),
        ("[tool.hybridlint]\nline-length = 79\n[tool.ruff]\nline-length = 120\n", 79),
        ("[tool.black]\nline-length = 120\n", 120),  # no [tool.hybridlint]: nearest pyproject.toml
    ],
)
def test_configured_line_length(tmp_path, monkeypatch, pyproject, limit):
    root = project(tmp_path, monkeypatch, pyproject)
    assert load_config([str(root / "net.py")]).line_length == limit
    result = CliRunner().invoke(cli, ["--fix", "net.py"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    fixed = (root / "net.py").read_text()
    assert "F.slice(" in fixed and not lint_limit(fixed, limit)
    assert (fixed == fix_source(GROWS).source) == (limit >= 107)  # wrapped only when needed


@pytest.mark.parametrize(
    "pyproject, key",
    [
        ("[tool.hybridlint]\nline-length = 0\n", "line-length"),
        ('[tool.hybridlint]\nline-length = "88"\n', "line-length"),
        ("[tool.hybridlint]\nline-length = true\n", "line-length"),
        ("[tool.hybridlint]\n[tool.ruff]\nline-length = -1\n", "[tool.ruff] line-length"),
    ],
)
def test_invalid_line_length_names_file_and_key(tmp_path, monkeypatch, pyproject, key):
    root = project(tmp_path, monkeypatch, pyproject)
    with pytest.raises(ConfigError) as info:
        load_config([str(root / "net.py")])
    assert str(root / "pyproject.toml") in str(info.value) and key in str(info.value)


@pytest.mark.parametrize(
    "long, wrapped",
    [
        (  # HL003's rows one by one: the comprehension breaks inside the exploded call
            "        a = F.concat(*[F.slice_axis(x, axis=0, begin=i, end=(i + 1) or None)"
            " for i in self.index], dim=0)\n",
            "        a = F.concat(\n"
            "            *[\n"
            "                F.slice_axis(x, axis=0, begin=i, end=(i + 1) or None)\n"
            "                for i in self.index\n"
            "            ],\n"
            "            dim=0,\n"
            "        )\n",
        ),
        (  # a nested call still too long once the outer one is exploded
            "        return F.broadcast_add(F.broadcast_mul(self.some_long_attribute_name,"
            " another_long_name_here_and_more_and_more), x)\n",
            "        return F.broadcast_add(\n"
            "            F.broadcast_mul(\n"
            "                self.some_long_attribute_name, another_long_name_here_and_more_and_more\n"
            "            ),\n"
            "            x,\n"
            "        )\n",
        ),
        (  # two calls after a bracket: black's fluent form, a line before each such dot
            "        y = y.reshape((0, -4, -1, self.scale, -4, -1, self.scale, 0))"
            ".transpose(axes=(0, 3, 1, 2, 4, 5)).reshape((0, 0, 0, -1))\n",
            "        y = (\n"
            "            y.reshape((0, -4, -1, self.scale, -4, -1, self.scale, 0))\n"
            "            .transpose(axes=(0, 3, 1, 2, 4, 5))\n"
            "            .reshape((0, 0, 0, -1))\n"
            "        )\n",
        ),
        (  # the same for a return, after a subscript; a dot after a name is no break
            "        return self.layer.compute(x)[0].reshape((0, -4, -1, self.scale, -4, -1, 0))"
            ".transpose(axes=(0, 3, 1, 2))\n",
            "        return (\n"
            "            self.layer.compute(x)[0]\n"
            "            .reshape((0, -4, -1, self.scale, -4, -1, 0))\n"
            "            .transpose(axes=(0, 3, 1, 2))\n"
            "        )\n",
        ),
        (  # one call after a bracket: the callee's call breaks, the last call trails it;
            # the outer call's hanging form alone is too long and its callee chain is not
            # broken a level deeper (that indented `.transpose(` under nothing)
            "        y = x.reshape((0, -4, -1, self.scale, -4, -1, self.scale, 0, 1, 2, 3, 4, 5, 6))"
            ".transpose(axes=(0, 3, 1, 2, 4, 5))\n",
            "        y = x.reshape(\n"
            "            (0, -4, -1, self.scale, -4, -1, self.scale, 0, 1, 2, 3, 4, 5, 6)\n"
            "        ).transpose(axes=(0, 3, 1, 2, 4, 5))\n",
        ),
        (  # gluoncv2's jasper: an argument that is an operation breaks before its `-`,
            # not inside its first call (the `*` binds tighter: no break there)
            "        x = F.concat(F.slice(x, begin=(None, None), end=(None, 1)), F.slice(x,"
            " begin=(None, 1), end=(None, None)) - self.preemph * F.slice(x, begin=(None,"
            " None), end=(None, -1)), dim=1)\n",
            "        x = F.concat(\n"
            "            F.slice(x, begin=(None, None), end=(None, 1)),\n"
            "            F.slice(x, begin=(None, 1), end=(None, None))\n"
            "            - self.preemph * F.slice(x, begin=(None, None), end=(None, -1)),\n"
            "            dim=1,\n"
            "        )\n",
        ),
        (  # a lone argument: a line before each operator of the group, no trailing comma
            "        y = F.broadcast_add(F.some_function_with_long_name(alpha, beta, gamma_long)"
            " + another_long_name_here_too - x)\n",
            "        y = F.broadcast_add(\n"
            "            F.some_function_with_long_name(alpha, beta, gamma_long)\n"
            "            + another_long_name_here_too\n"
            "            - x\n"
            "        )\n",
        ),
        (  # a lone call argument broken inside: no trailing comma after it either
            "        y = F.broadcast_add(F.some_function_with_long_name(alpha, beta,"
            " gamma_long_and_more_and_more, delta))\n",
            "        y = F.broadcast_add(\n"
            "            F.some_function_with_long_name(\n"
            "                alpha, beta, gamma_long_and_more_and_more, delta\n"
            "            )\n"
            "        )\n",
        ),
    ],
)
def test_lines_break_as_black_breaks_them(long, wrapped):
    """Each expected form is what black 26.10 writes for the long line (checked when written):
    the outermost brackets first, a level deeper only inside the arguments, method chains at
    their dots, an operation argument before its operators."""
    assert wrap_fixed_lines("", long, 88) == wrapped
    assert ast.dump(ast.parse(wrapped.strip())) == ast.dump(ast.parse(long.strip()))
