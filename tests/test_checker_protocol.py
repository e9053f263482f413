"""The worker channel: validated JSON frames with arrays as raw bytes, never pickle. Frames
user code forges are data: a bad frame is a `cannot_run` for that block, the run goes on."""

import io
import math
import re
import struct
from pathlib import Path

import numpy as np
import pytest

from hybridlint import checker_bridge
from hybridlint.checker import CheckerSession, InputList, InputSpec, Value, check_file, protocol
from hybridlint.checker import wire
from hybridlint.checker.report import EquivalenceReport, OutputDiff, SourceLine
from tests.checker_support import backend_params, data


def test_both_frame_readers_refuse_a_frame_larger_than_the_limit(tmp_path):
    header = protocol.HEADER.pack(protocol.MAX_FRAME + 1)
    with pytest.raises(protocol.ProtocolError, match="larger than the limit"):
        protocol.read_frame(io.BytesIO(header + b"x" * 16))
    path = tmp_path / "frames"
    path.write_bytes(header + b"x" * 16)
    with open(path, "rb") as handle:
        with pytest.raises(protocol.ProtocolError, match="larger than the limit"):
            protocol.read_frame_fd(handle.fileno(), None)


def test_frames_round_trip_with_arrays_as_raw_bytes():
    buf = io.BytesIO()
    arr = np.arange(6, dtype=np.int32).reshape(2, 3)
    protocol.write_frame(buf, {"a": [1, 2.5, "é", math.inf], "arr": arr})
    raw = buf.getvalue()
    assert arr.tobytes() in raw and b"pickle" not in raw
    buf.seek(0)
    got = protocol.read_frame(buf)
    assert got["a"] == [1, 2.5, "é", math.inf]
    assert got["arr"].dtype == np.int32 and got["arr"].tolist() == arr.tolist()
    assert protocol.read_frame(buf) is None


@pytest.mark.parametrize(
    "body",
    [
        b"\x80\x04\x95garbage",  # a pickle
        struct.pack(">I", 2) + b"{}" + b"",  # fine JSON ...
        struct.pack(">I", 100) + b"{}",  # header longer than frame
        struct.pack(">I", 3) + b"\xff\xfe\x00",  # not UTF-8
        struct.pack(">I", 45) + b'{"$array":[0,99],"dtype":"float32","shape":[2]}',
        struct.pack(">I", 48) + b'{"$array":[0,8],"dtype":"object","shape":[1]}xxxxxxxx',
    ],
)
def test_malformed_frames_are_protocol_errors(body):
    if body == struct.pack(">I", 2) + b"{}":
        assert protocol.decode(body) == {}
        with pytest.raises(protocol.ProtocolError, match="expected a report|a report"):
            wire.report_from_wire([])
        return
    with pytest.raises(protocol.ProtocolError):
        protocol.decode(body)


def test_reports_round_trip_and_bad_fields_are_refused():
    from hybridlint.linter import Finding

    report = EquivalenceReport(
        "mismatch",
        target="a.py::A",
        reason="differs",
        stage="hybridize",
        outputs=[OutputDiff(0, (2, 3), (3,), "float32", "float32", math.inf, math.inf, False)],
        source_line=SourceLine("a.py", 7, "    y = x[0]\n"),
        notes=["n"],
        runtime_findings=[Finding("HL003", "tensor-indexing", "m", 7, 9, 7, 13, None, "a.py")],
        executed=frozenset({7, 8}),
    )
    body = protocol.encode({"type": "report", "report": wire.report_to_wire(report)})[4:]
    back = wire.report_from_wire(protocol.decode(body)["report"])
    assert back == report
    good = wire.report_to_wire(report)
    for field, bad in [
        ("status", "fine"),
        ("outputs", [[0]]),
        ("reason", 3),
        ("source_line", ["a.py", -1, ""]),
        ("executed", ["x"]),
        ("runtime_findings", [{"code": "HL003"}]),
        ("extra", 1),
    ]:
        with pytest.raises(protocol.ProtocolError):
            wire.report_from_wire(dict(good, **{field: bad}))


def test_jobs_round_trip_nested_inputs_and_kwargs():
    job = {
        "kind": "block",
        "inputs": [
            InputSpec((2, 3)),
            InputSpec((2,), "int32", [1, 2]),
            InputList((InputSpec((2,)), Value(None)), "tuple"),
            Value(0.5),
        ],
        "kwargs": {"sizes": (1, 2), "act": None, "cfg": {"a": [1, "b"]}},
    }
    body = protocol.encode(wire.job_to_wire(job))[4:]
    back = wire.job_from_wire(protocol.decode(body))
    assert back["inputs"] == job["inputs"] and back["kwargs"] == job["kwargs"]
    with pytest.raises(ValueError, match="kwargs\\['f'\\]"):
        wire.job_to_wire({"inputs": [], "kwargs": {"f": object()}})


@pytest.mark.parametrize("backend", backend_params())
def test_a_forged_pickle_is_never_run_in_hybridlint(backend, tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    monkeypatch.setenv("HYBRIDLINT_FORGE_MARKER", str(marker))
    with CheckerSession(timeout=60) as session:
        forged, garbage = check_file(
            data("forges_frame.py"),
            {"Forge": [(2, 3)], "Garbage": [(2, 3)]},
            backend=backend,
            session=session,
        )
        assert forged.status == "cannot_run" and "invalid answer" in forged.reason
        assert garbage.status == "cannot_run" and "invalid answer" in garbage.reason
        assert not marker.exists()
        (after,) = check_file(
            data("good.py"), {"Residual": [(2, 8)]}, backend=backend, session=session
        )
        assert after.ok, after.summary()


def test_the_bridge_requires_every_checker_name_the_cli_uses():
    source = (Path(checker_bridge.__file__).parent / "cli.py").read_text(encoding="utf-8")
    used = set(re.findall(r"\bchecker\.([A-Za-z_]\w*)", source))
    assert used and used <= set(checker_bridge.REQUIRED), used - set(checker_bridge.REQUIRED)


def test_a_frame_larger_than_a_pipe_buffer_arrives_whole_on_an_unbuffered_pipe():
    """The worker reads jobs from an unbuffered pipe, where one read returns at most 64 KiB:
    a job with a large model file and its fixed copy came in pieces ("truncated frame", the
    worker exited and every fix of the block was rejected; e2e gluoncv2 cgnet-net)."""
    import os
    import threading

    read_end, write_end = os.pipe()
    payload = {"source": "x = 1\n" * 40_000}  # 240 KB

    def write():
        with os.fdopen(write_end, "wb") as out:
            protocol.write_frame(out, payload)

    writer = threading.Thread(target=write)
    writer.start()
    with os.fdopen(read_end, "rb", buffering=0) as stream:
        got = protocol.read_frame(stream)
    writer.join()
    assert got == payload
