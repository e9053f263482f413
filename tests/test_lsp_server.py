"""`hybridlint server` end to end: pytest-lsp starts it as a subprocess and talks LSP to it
as an editor would (initialize, didOpen/didChange/didSave, publishDiagnostics, codeAction,
hover, shutdown). The text a code action's edit gives is compared with what the CLI writes
(`hybridlint --fix --stdin-filename PATH`, which reads the same configuration), so the server
and `--fix` cannot drift apart.

Marked slow (tests/conftest.py: it starts processes). Skipped without pygls/pytest-lsp (the
`test` extra installs them on Python 3.10+).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from hybridlint.server import RULES_URL, minimal_edit  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
ATTENTION = (REPO / "testdata" / "hazards" / "attention.py").read_text()
LINE_LENGTH = 60  # short: the fixes of attention.py must be wrapped as --fix wraps them

UNSAFE = textwrap.dedent(
    """\
    from mxnet.gluon import HybridBlock


    class Net(HybridBlock):
        def hybrid_forward(self, F, x, y):
            z = F.relu(x) + F.relu(y)
            x += y
            return x[0], z
    """
)
BROKEN = (
    "from mxnet.gluon import HybridBlock\n\nclass Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x:\n"
)
PYPROJECT = f"""\
[tool.hybridlint]
line-length = {LINE_LENGTH}

[tool.hybridlint.per-file-ignores]
"legacy/*.py" = ["HL003"]
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lsp-workspace")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "legacy").mkdir()
    for name, text in {
        "attention.py": ATTENTION,
        "unsafe.py": UNSAFE,
        "broken.py": BROKEN,
        "legacy/attention.py": ATTENTION,
    }.items():
        (root / name).write_text(text)
    return root


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


@pytest_lsp.fixture(
    scope="module",
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "hybridlint", "server"], server_env=_env()
    ),
)
async def client(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        )
    )
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "hybridlint", "server"], server_env=_env()
    ),
)
async def plain_client(lsp_client: LanguageClient, workspace: Path):
    """A client with no optional capabilities: no codeAction/resolve, no documentChanges."""
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=workspace.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


# -- helpers ---------------------------------------------------------------------------------
_versions: dict = {}


async def _open(client: LanguageClient, path: Path, text: str | None = None) -> list:
    """didOpen; the diagnostics the server publishes for it."""
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    _versions[uri] = 1
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "python", 1, path.read_text() if text is None else text)
        )
    )
    return await _diagnostics(client, uri)


async def _change(client: LanguageClient, path: Path, text: str) -> list:
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    _versions[uri] += 1
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=_versions[uri]),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    return await _diagnostics(client, uri)


async def _diagnostics(client: LanguageClient, uri: str) -> list:
    while uri not in client.diagnostics:
        await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def _close(client: LanguageClient, path: Path) -> None:
    """didClose, and the server's clearing of the document's diagnostics."""
    uri = path.as_uri()
    client.diagnostics.pop(uri, None)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    assert await _diagnostics(client, uri) == []


async def _actions(client, path: Path, where: lsp.Range, only=None) -> list:
    """The code actions at ``where``, each resolved (its edit filled in) when it has none."""
    result = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(path.as_uri()),
            range=where,
            context=lsp.CodeActionContext(diagnostics=[], only=only),
        )
    )
    actions = []
    for action in result or []:
        if action.edit is None:
            action = await client.code_action_resolve_async(action)
        actions.append(action)
    return actions


def _offset(text: str, position: lsp.Position) -> int:
    """A position in UTF-16 units (the test texts are ASCII: characters)."""
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: position.line]) + position.character


def _apply(text: str, action: lsp.CodeAction) -> str:
    """The text the action's edit gives (every edit of this one document, last first)."""
    edit = action.edit
    assert edit is not None
    if edit.document_changes:
        edits = [e for change in edit.document_changes for e in change.edits]
    else:
        edits = [e for changes in (edit.changes or {}).values() for e in changes]
    for item in sorted(edits, key=lambda e: _offset(text, e.range.start), reverse=True):
        start, end = _offset(text, item.range.start), _offset(text, item.range.end)
        text = text[:start] + item.new_text + text[end:]
    return text


def _cli_fix(path: Path, text: str, *options: str) -> str:
    """What `hybridlint --fix` writes for this text as the file `path` (its configuration)."""
    done = subprocess.run(
        [sys.executable, "-m", "hybridlint", "--fix", *options, "--stdin-filename", str(path), "-"],
        input=text,
        capture_output=True,
        text=True,
        cwd=path.parent,
        env=_env(),
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def _cli_codes(path: Path, text: str) -> list:
    import json

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hybridlint",
            "--format",
            "json",
            "--stdin-filename",
            str(path),
            "-",
        ],
        input=text,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return [(f["code"], f["line"], f["col"]) for f in json.loads(done.stdout)["findings"]]


def _where(diagnostic: lsp.Diagnostic):
    return diagnostic.code, diagnostic.range.start.line + 1, diagnostic.range.start.character + 1


# -- tests ---------------------------------------------------------------------------------
@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_on_open_are_the_clis_findings(client, workspace):
    path = workspace / "attention.py"
    found = await _open(client, path)
    assert sorted(_where(d) for d in found) == sorted(_cli_codes(path, ATTENTION))
    assert {d.code for d in found} >= {"HL001", "HL003", "HL006", "HL007"}
    for diagnostic in found:
        assert diagnostic.source == "hybridlint"
        assert diagnostic.severity == lsp.DiagnosticSeverity.Error
        assert diagnostic.code_description.href == RULES_URL
        line = ATTENTION.splitlines()[diagnostic.range.start.line]
        assert diagnostic.range.end.character <= len(line)
    hl003 = next(d for d in found if d.code == "HL003")
    line = ATTENTION.splitlines()[hl003.range.start.line]
    assert line[hl003.range.start.character : hl003.range.end.character] == "attn[:, 0]"
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_per_file_ignores_apply(client, workspace):
    path = workspace / "legacy" / "attention.py"
    found = await _open(client, path)
    assert found and "HL003" not in {d.code for d in found}
    assert sorted(_where(d) for d in found) == sorted(_cli_codes(path, ATTENTION))
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_each_safe_fix_gives_what_fix_writes_for_it(client, workspace):
    path = workspace / "attention.py"
    found = await _open(client, path)
    for code in ("HL003", "HL006"):  # one finding each in the file: `--select CODE` is that fix
        (diagnostic,) = [d for d in found if d.code == code]
        actions = await _actions(client, path, diagnostic.range)
        (fix,) = [a for a in actions if a.title.startswith(f"Fix {code}")]
        assert fix.kind == lsp.CodeActionKind.QuickFix and fix.is_preferred
        assert "(unsafe)" not in fix.title
        fixed = _apply(ATTENTION, fix)
        assert fixed != ATTENTION
        assert fixed == _cli_fix(path, ATTENTION, "--select", code)
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_fix_all_is_fix_with_the_configured_line_length(client, workspace):
    path = workspace / "attention.py"
    await _open(client, path)
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    actions = await _actions(client, path, whole, only=[lsp.CodeActionKind.SourceFixAll])
    (fix_all,) = actions
    assert fix_all.kind == "source.fixAll.hybridlint"
    fixed = _apply(ATTENTION, fix_all)
    assert fixed == _cli_fix(path, ATTENTION)
    # wrapped at line-length = 60, as --fix wraps (a line the fixes made longer is broken)
    assert "        scores = F.broadcast_add(\n" in fixed
    quick = await _actions(client, path, whole, only=[lsp.CodeActionKind.QuickFix])
    assert all(a.kind == lsp.CodeActionKind.QuickFix for a in quick)
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_unsafe_fix_is_labelled_and_gives_unsafe_fixes_output(client, workspace):
    path = workspace / "unsafe.py"
    found = await _open(client, path)
    (hl004,) = [d for d in found if d.code == "HL004"]
    assert hl004.data["fix"] == "unsafe"
    actions = await _actions(client, path, hl004.range)
    (fix,) = [a for a in actions if a.title.startswith("Fix HL004")]
    assert fix.title.endswith("(unsafe)") and not fix.is_preferred
    fixed = _apply(UNSAFE, fix)
    assert "x = x + y" in fixed
    assert fixed == _cli_fix(path, UNSAFE, "--unsafe-fixes", "--select", "HL004")
    # "fix all" applies the safe fixes only, as --fix does
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    (fix_all,) = await _actions(client, path, whole, only=["source.fixAll"])
    assert "x += y" in _apply(UNSAFE, fix_all)
    assert _apply(UNSAFE, fix_all) == _cli_fix(path, UNSAFE)
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_suppress_on_this_line(client, workspace):
    path = workspace / "unsafe.py"
    found = await _open(client, path)
    hl003 = next(d for d in found if d.code == "HL003")
    actions = await _actions(client, path, hl003.range)
    (suppress,) = [a for a in actions if a.title == "Suppress HL003 on this line"]
    text = _apply(UNSAFE, suppress)
    assert "        return x[0], z  # hybridlint: ignore[HL003]\n" in text
    after = await _change(client, path, text)
    assert "HL003" not in {d.code for d in after} and "HL004" in {d.code for d in after}
    # a second code on a line joins the line's existing comment
    text = text.replace("x += y\n", "x += y[0]\n")
    after = await _change(client, path, text)
    hl004 = next(d for d in after if d.code == "HL004")
    (suppress,) = [
        a
        for a in await _actions(client, path, hl004.range)
        if a.title == "Suppress HL004 on this line"
    ]
    text = _apply(text, suppress)
    assert "        x += y[0]  # hybridlint: ignore[HL004]\n" in text
    after = await _change(client, path, text)
    hl003 = next(d for d in after if d.code == "HL003")
    assert hl003.range.start.line == 6
    (suppress,) = [
        a
        for a in await _actions(client, path, hl003.range)
        if a.title == "Suppress HL003 on this line"
    ]
    text = _apply(text, suppress)
    assert "        x += y[0]  # hybridlint: ignore[HL004, HL003]\n" in text
    assert await _change(client, path, text) == []
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_explains_the_rule(client, workspace):
    path = workspace / "attention.py"
    found = await _open(client, path)
    hl003 = next(d for d in found if d.code == "HL003")
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(path.as_uri()), hl003.range.start)
    )
    assert hover is not None and hover.range == hl003.range
    text = hover.contents.value
    assert text.startswith("**HL003** `tensor-indexing`")
    assert "Symbol" in text and "hybridlint rule HL003" in text and "Fix: safe" in text
    nothing = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(path.as_uri()), lsp.Position(0, 0))
    )
    assert nothing is None
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_broken_file_gives_hl900_and_the_server_lives_on(client, workspace):
    path = workspace / "broken.py"
    (found,) = await _open(client, path)
    assert found.code == "HL900" and found.message.startswith("cannot parse")
    assert found.range.start.line == 3
    # the document fixed by an edit: the diagnostics follow (debounced change)
    fixed = BROKEN.replace("x:\n", "x):\n        return F.relu(x)[0]\n")
    after = await _change(client, path, fixed)
    assert [d.code for d in after] == ["HL003"]
    after = await _change(client, path, fixed + "def (\n")
    assert [d.code for d in after] == ["HL900"]
    await _close(client, path)


@pytest.mark.asyncio(loop_scope="module")
async def test_rapid_changes_publish_the_last_text(client, workspace):
    path = workspace / "unsafe.py"
    await _open(client, path)
    uri = path.as_uri()
    for index in range(5):  # faster than the debounce: one lint of the last text
        _versions[uri] += 1
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=_versions[uri]),
                [lsp.TextDocumentContentChangeWholeDocument(UNSAFE + "\n" * index)],
            )
        )
    client.diagnostics.pop(uri, None)
    found = await _diagnostics(client, uri)
    assert {d.code for d in found} == {"HL003", "HL004"}
    await _close(client, path)


@pytest.mark.asyncio
async def test_a_client_without_resolve_gets_the_edits_in_the_list(plain_client, workspace):
    path = workspace / "unsafe.py"
    found = await _open(plain_client, path)
    hl003 = next(d for d in found if d.code == "HL003")
    listed = await plain_client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(path.as_uri()),
            range=hl003.range,
            context=lsp.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in listed]
    assert titles == [
        "Fix HL003 (tensor-indexing)",
        "Suppress HL003 on this line",
        "hybridlint: fix all safe fixes",
    ]
    assert all(a.edit is not None and a.edit.changes and a.data is None for a in listed)
    assert _apply(UNSAFE, listed[0]) == _cli_fix(path, UNSAFE, "--select", "HL003")
    assert _apply(UNSAFE, listed[2]) == _cli_fix(path, UNSAFE)


@pytest.mark.asyncio(loop_scope="module")
async def test_listed_actions_carry_no_edit_until_resolved(client, workspace):
    path = workspace / "unsafe.py"
    found = await _open(client, path)
    hl003 = next(d for d in found if d.code == "HL003")
    listed = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(path.as_uri()),
            range=hl003.range,
            context=lsp.CodeActionContext(diagnostics=[]),
        )
    )
    assert listed and all(a.edit is None and a.data for a in listed)
    resolved = await client.code_action_resolve_async(listed[0])
    assert resolved.edit is not None and resolved.edit.document_changes
    # an action listed for an older version of the document resolves to no edit
    await _change(client, path, UNSAFE + "\n")
    stale = await client.code_action_resolve_async(listed[0])
    assert stale.edit is None
    await _close(client, path)


def test_minimal_edit_reproduces_the_new_text():
    cases = [
        ("abc", "abc"),
        ("", "x"),
        ("a\r\nb\r\n", "a\r\nc\r\nb\r\n"),
        ("a\r\nb", "a\nb"),
        ("x = y[0]\n", "x = F.slice_axis(y, axis=0, begin=0, end=1)\n"),
        ("aaaa", "aa"),
    ]
    for old, new in cases:
        start, end, replacement = minimal_edit(old, new)
        assert old[:start] + replacement + old[end:] == new
        assert not (start and old[start - 1] == "\r" and old[start : start + 1] == "\n")


def test_server_without_pygls_is_one_error_line_and_exit_2():
    program = (
        "import sys; sys.modules['pygls'] = None\n"
        "from hybridlint.cli import main\nmain(['server'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=_env(), timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "pip install" in done.stderr
