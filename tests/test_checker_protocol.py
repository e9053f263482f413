"""The worker channel's framing refuses corrupt headers, and the CLI's checker bridge checks
for every checker name the CLI calls."""
import io
import re
from pathlib import Path

import pytest

from hybridlint import checker_bridge
from hybridlint.checker import protocol


def test_both_frame_readers_refuse_a_frame_larger_than_the_limit(tmp_path):
    header = protocol.HEADER.pack(protocol.MAX_FRAME + 1)
    with pytest.raises(protocol.ChannelClosed, match="larger than the limit"):
        protocol.read_frame(io.BytesIO(header + b"x" * 16))
    path = tmp_path / "frames"
    path.write_bytes(header + b"x" * 16)
    with open(path, "rb") as handle:
        with pytest.raises(protocol.ChannelClosed, match="larger than the limit"):
            protocol.read_frame_fd(handle.fileno(), None)


def test_frames_round_trip():
    buf = io.BytesIO()
    protocol.write_frame(buf, {"a": [1, 2.5, "é"]})
    buf.seek(0)
    assert protocol.read_frame(buf) == {"a": [1, 2.5, "é"]}
    assert protocol.read_frame(buf) is None


def test_the_bridge_requires_every_checker_name_the_cli_uses():
    source = (Path(checker_bridge.__file__).parent / "cli.py").read_text(encoding="utf-8")
    used = set(re.findall(r"\bchecker\.([A-Za-z_]\w*)", source))
    assert used and used <= set(checker_bridge.REQUIRED), used - set(checker_bridge.REQUIRED)
