"""hybridlint.files: decoding, byte-exact round trips and safe atomic writes."""

import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridlint.files import (
    lf_to_cr,
    lone_cr_to_lf,
    SourceDecodeError,
    SourceReadError,
    SourceWriteError,
    decode_source,
    read_source,
    write_source,
)


def test_crlf_survives_decode_and_write(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\r\ny = 2\r\n")
    src = read_source(str(path))
    assert src.text == "x = 1\r\ny = 2\r\n"
    assert write_source(src, src.text.replace("2", "3")) is True
    assert path.read_bytes() == b"x = 1\r\ny = 3\r\n"


def test_bom_is_kept(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"\xef\xbb\xbfs = '\xc3\xa9'\n")
    src = read_source(str(path))
    assert src.encoding == "utf-8-sig"
    assert not src.text.startswith("\ufeff")
    write_source(src, src.text + "t = 1\n")
    assert path.read_bytes() == b"\xef\xbb\xbfs = '\xc3\xa9'\nt = 1\n"


def test_pep263_declaration_is_honoured(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\ns = '\xe9'\n")
    src = read_source(str(path))
    assert src.encoding == "iso-8859-1"
    assert "\u00e9" in src.text
    write_source(src, src.text + "t = '\u00e8'\n")
    assert path.read_bytes() == b"# -*- coding: latin-1 -*-\ns = '\xe9'\nt = '\xe8'\n"


def test_unencodable_fix_is_refused(tmp_path):
    path = tmp_path / "m.py"
    original = b"# coding: latin-1\ns = 1\n"
    path.write_bytes(original)
    src = read_source(str(path))
    with pytest.raises(SourceWriteError, match="cannot encode"):
        write_source(src, src.text + "t = '\u4e2d'\n")
    assert path.read_bytes() == original


def test_invalid_utf8_is_a_decode_error():
    with pytest.raises(SourceDecodeError):
        decode_source(b"x = '\xff\xfe'\n")


def test_unknown_codec_is_a_decode_error():
    with pytest.raises(SourceDecodeError):
        decode_source(b"# coding: no-such-codec\nx = 1\n")


def test_missing_file_and_directory_are_read_errors(tmp_path):
    with pytest.raises(SourceReadError):
        read_source(str(tmp_path / "missing.py"))
    with pytest.raises(SourceReadError):
        read_source(str(tmp_path))


def test_unchanged_text_is_not_written(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    os.utime(path, (1_000_000, 1_000_000))
    src = read_source(str(path))
    assert write_source(src, src.text) is False
    assert os.stat(path).st_mtime == 1_000_000


def test_unparsable_result_is_refused(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    src = read_source(str(path))
    with pytest.raises(SourceWriteError, match="does not parse"):
        write_source(src, "x = (\n")
    assert path.read_bytes() == b"x = 1\n"


def test_mode_is_kept_and_no_temp_files_left(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    os.chmod(path, 0o751)
    write_source(read_source(str(path)), "x = 2\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert sorted(os.listdir(tmp_path)) == ["m.py"]


def test_symlink_is_written_through(tmp_path):
    target = tmp_path / "real.py"
    target.write_bytes(b"x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    write_source(read_source(str(link)), "x = 2\n")
    assert link.is_symlink()
    assert target.read_bytes() == b"x = 2\n"


_line_endings = st.sampled_from(["\n", "\r\n", "\r"])
_lines = st.lists(st.text(alphabet="abc xyz=1#\u00e9\u4e2d", max_size=12), max_size=6)


@settings(max_examples=60, deadline=None)
@given(_lines, _line_endings, st.sampled_from(["utf-8", "utf-8-sig"]))
def test_decode_encode_round_trip_is_byte_exact(lines, newline, encoding):
    raw = newline.join("# " + line for line in lines).encode(encoding)
    src = decode_source(raw)
    assert src.text.encode(src.encoding) == raw


def test_lone_cr_conversion_is_one_to_one_and_only_for_pure_cr_files():
    assert lone_cr_to_lf("a\rb\r") == ("a\nb\n", True)
    assert lf_to_cr("a\nb\nc\n") == "a\rb\rc\r"
    assert lone_cr_to_lf("a\r\nb\r\n") == ("a\r\nb\r\n", False)
    assert lone_cr_to_lf("a\nb") == ("a\nb", False)


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_declaration_found_whatever_the_line_endings(newline):
    raw = newline.join([b"#!/usr/bin/env python", b"# coding: latin-1", b"s = '\xe9'", b""])
    src = decode_source(raw)
    assert src.encoding == "iso-8859-1" and "\u00e9" in src.text
    assert src.text.encode(src.encoding) == raw
