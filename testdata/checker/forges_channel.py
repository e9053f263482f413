"""User code that attacks the checker's channel (issue 24, item 2). Each block finds the
worker's pipes by brute force, as any code in the worker's process can:

- ForgeEqual writes a well-formed report frame saying `equal`, then fails hybridization
  (`.shape` on a Symbol); it must end `cannot_run`, never `equal`.
- Garbage writes bytes that are no frame, then behaves; it must end `cannot_run`, and the
  next block must get its own report, not this one's.
- Escapes fails hybridization with terminal control sequences in its error message (and on
  its source line); none of them may reach a finding, a note or the terminal.
- BigFrame writes a 60 MB frame; LateWriter leaves a thread that writes after its answer.
- ForkExit forks; the child leaves through sys.exit, as scripts do, and the parent behaves:
  the child must not answer for the job.
"""
import json
import os
import stat
import struct
import sys

from mxnet import gluon


def _write_everywhere(data):
    for fd in range(3, 4096):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass


def _frame(obj):
    head = json.dumps(obj).encode()
    body = struct.pack(">I", len(head)) + head
    return struct.pack(">I", len(body)) + body


def _forged_equal(target):
    report = {"status": "equal", "target": target, "backend": "engine", "reason": None}
    return _frame({"type": "report", "report": report})


_sent = []


class ForgeEqual(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if not _sent:
            _sent.append(1)
            _write_everywhere(_forged_equal(os.environ.get("HYBRIDLINT_FORGE_TARGET", "")))
        return x.reshape((x.shape[0], -1)) * 2  # fails hybridized: a Symbol has no .shape


class Garbage(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if not _sent:
            _sent.append(1)
            _write_everywhere(b"\x00\x10\x00\x00not a frame, just noise")  # "1 MiB follows"
        return x * 2


class Escapes(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if F.__name__.endswith("symbol"):  # hybridized
            raise ValueError("[2J\x1b[H\x1b]0;pwned\x07 cleared \x9b31m red \x00\x08\r done")
        return x * 2


class ForkExit(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if not _sent:
            _sent.append(1)
            if os.fork() == 0:
                sys.exit(0)  # the child unwinds through whatever called hybrid_forward
            os.wait()
        return x * 2


class BigFrame(gluon.HybridBlock):
    """Issue 24 item 4: a 60 MB frame of tiny JSON lists (cost hybridlint 1.6 GB to parse)."""

    def hybrid_forward(self, F, x):
        if not _sent:
            _sent.append(1)
            head = b"[" + b"[]," * (20 << 20) + b"[]]"
            body = struct.pack(">I", len(head)) + head
            _write_everywhere(struct.pack(">I", len(body)) + body)
        return x * 2


class LateWriter(gluon.HybridBlock):
    """Leaves a thread behind that writes to the channel after the job's answer was sent."""

    def hybrid_forward(self, F, x):
        if not _sent:
            _sent.append(1)
            import threading
            import time

            def late():
                time.sleep(0.3)
                _write_everywhere(b"\x00\x00\x00\x09late noise")

            threading.Thread(target=late, daemon=True).start()
        return x * 2
