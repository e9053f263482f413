"""How fast does ``hybridlint server`` answer an editor on a 1,000-line model file?

Starts the server as an editor would (``python -m hybridlint server``, LSP over stdio, driven
by pygls's client), opens a model file of about 1,000 lines (``testdata/hazards/attention.py``
repeated with renamed blocks: ~60 findings) and measures, wall clock:

* open:     didOpen -> its publishDiagnostics (the first lint of the document);
* change:   didChange of one line -> publishDiagnostics of that version, and the same minus the
            server's debounce (``DEBOUNCE_SECONDS``: the lint itself and the round trip);
* actions:  a codeAction request on one finding (its fix, computed by ``fix_source``);
* fix all:  a codeAction request for ``source.fixAll`` (every safe fix of the document).

Each change figure is the median of ``--changes`` edits (each edit changes a different line
of a hybrid_forward, so nothing is served from a previous lint). Usage::

    python benchmarks/lsp_speed.py [--copies 18] [--changes 10]

Target: change minus debounce well under a second (the issue: "re-linting a changed 1,000-line
model file returns diagnostics in well under a second"). This is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from hybridlint.server import DEBOUNCE_SECONDS  # noqa: E402


def model_file(copies: int) -> str:
    """``copies`` renamed copies of the attention hazard model, one module."""
    source = (REPO / "testdata" / "hazards" / "attention.py").read_text()
    head, _, body = source.partition("\nclass ")
    blocks = [head]
    for index in range(copies):
        blocks.append("\nclass " + body.replace("MultiHeadAttention", f"MultiHeadAttention{index}"))
    return "\n".join(blocks)


# as VS Code and Neovim 0.8+ declare: actions listed without edits, resolved when picked
CAPABILITIES = lsp.ClientCapabilities(
    text_document=lsp.TextDocumentClientCapabilities(
        code_action=lsp.CodeActionClientCapabilities(
            data_support=True, resolve_support=lsp.ClientCodeActionResolveOptions(["edit"])
        )
    )
)


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("lsp-speed", "1")
        self.published: asyncio.Queue = asyncio.Queue()

        @self.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(client: Client, params: lsp.PublishDiagnosticsParams) -> None:
            client.published.put_nowait(params)


async def diagnostics_of(client: Client, version: int) -> lsp.PublishDiagnosticsParams:
    while True:
        params = await client.published.get()
        if params.version == version:
            return params


async def measure(copies: int, changes: int) -> None:
    text = model_file(copies)
    lines = text.splitlines(keepends=True)
    with tempfile.TemporaryDirectory() as root:
        path = Path(root) / "model.py"
        path.write_text(text)
        uri = path.as_uri()
        client = Client()
        env = dict(os.environ, PYTHONPATH=str(REPO))
        await client.start_io(sys.executable, "-m", "hybridlint", "server", env=env)
        await client.initialize_async(
            lsp.InitializeParams(capabilities=CAPABILITIES, root_uri=Path(root).as_uri())
        )
        client.initialized(lsp.InitializedParams())
        await asyncio.sleep(1.0)  # the server warms up on `initialized`, as after an editor starts

        start = time.perf_counter()
        client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text))
        )
        first = await diagnostics_of(client, 1)
        opened = time.perf_counter() - start

        # lines inside hybrid_forward bodies: `out = self.proj_out(context)`, changed in turn
        targets = [i for i, line in enumerate(lines) if "out = self.proj_out(context)" in line]
        latencies = []
        version = 1
        for index in range(changes):
            line = targets[index % len(targets)]
            version += 1
            new = lines[line].replace("context)", f"context)  # edit {index}")
            start = time.perf_counter()
            client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[
                        lsp.TextDocumentContentChangePartial(
                            range=lsp.Range(lsp.Position(line, 0), lsp.Position(line + 1, 0)),
                            text=new,
                        )
                    ],
                )
            )
            changed = await diagnostics_of(client, version)
            latencies.append(time.perf_counter() - start)
            assert len(changed.diagnostics) == len(first.diagnostics)

        finding = next(d for d in first.diagnostics if d.code == "HL003")

        async def actions_at(where: lsp.Range, kind: str) -> tuple:
            start = time.perf_counter()
            listed = await client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri),
                    range=where,
                    context=lsp.CodeActionContext(diagnostics=[], only=[kind]),
                )
            )
            listing = time.perf_counter() - start
            start = time.perf_counter()
            resolved = await client.code_action_resolve_async(listed[0])
            assert resolved.edit is not None
            return listing, time.perf_counter() - start, len(listed)

        quick = await actions_at(finding.range, lsp.CodeActionKind.QuickFix)
        nowhere = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
        fix_all = await actions_at(nowhere, lsp.CodeActionKind.SourceFixAll)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()

    median = statistics.median(latencies)
    print(f"model file: {len(lines)} lines, {len(first.diagnostics)} diagnostics")
    print(f"open -> diagnostics:            {opened * 1000:7.0f} ms")
    print(
        f"change -> diagnostics (median of {changes}): {median * 1000:7.0f} ms "
        f"(max {max(latencies) * 1000:.0f} ms), of which debounce {DEBOUNCE_SECONDS * 1000:.0f} ms"
    )
    print(f"  lint + round trip:            {(median - DEBOUNCE_SECONDS) * 1000:7.0f} ms")
    print(
        f"codeAction on one finding:      {quick[0] * 1000:7.0f} ms to list {quick[2]} actions, "
        f"{quick[1] * 1000:.0f} ms to resolve its fix"
    )
    print(
        f"codeAction source.fixAll:       {fix_all[0] * 1000:7.0f} ms to list, "
        f"{fix_all[1] * 1000:.0f} ms to resolve (every safe fix)"
    )
    lint_cpu(text)
    print(f"load average while measuring:   {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


def lint_cpu(text: str) -> None:
    """The server's lint of the changed file in this process: wall and CPU time (on a busy
    machine the wall time above includes waiting for a core; the CPU time does not)."""
    from hybridlint.server import analyze, resolve_settings

    path = os.path.join(tempfile.gettempdir(), "model.py")
    settings = resolve_settings(path)
    analyze(text, path, settings)  # warm
    walls, cpus = [], []
    for index in range(5):
        changed = text.replace("context)", f"context)  # {index}", 1)
        wall, cpu = time.perf_counter(), time.process_time()
        analyze(changed, path, settings)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(
        f"lint of the changed file, in process (median of 5): "
        f"{statistics.median(walls) * 1000:.0f} ms wall, {statistics.median(cpus) * 1000:.0f} ms CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=18, help="attention blocks (57 lines each)")
    parser.add_argument("--changes", type=int, default=10, help="edits measured")
    args = parser.parse_args()
    asyncio.run(measure(args.copies, args.changes))


if __name__ == "__main__":
    main()
