"""User code that writes to the checker's channel: a pickle that would run code if the
parent unpickled it (Forge), or garbage bytes (Garbage). Both must be cannot_run."""
import os
import pickle
import stat
import struct

from mxnet import gluon


class _Payload:
    def __reduce__(self):       # unpickling this would create the marker file
        return (open, (os.environ.get("HYBRIDLINT_FORGE_MARKER", "/tmp/forged"), "w"))


def _write_everywhere(data):
    for fd in range(3, 4096):  # the channel sits high: look everywhere
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass


class Forge(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        body = pickle.dumps(_Payload())
        _write_everywhere(struct.pack(">I", len(body)) + body)
        return x * 2


class Garbage(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        _write_everywhere(b"\x00\x00\x00\x10" + bytes(range(16)))
        return x * 2
