"""MXNet's binary NDArray list format (`mx.nd.save` / `mx.nd.load`): round trips, bad files,
and byte-for-byte agreement with real MXNet in both directions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from hybridlint.engine.serialization import dumps_arrays, loads_arrays

DTYPES = ["float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool"]


def test_layout_of_a_named_file_is_mxnets():
    raw = dumps_arrays([np.array([[1, 2, 3]], dtype="float32")], ["arg:a"])
    expected = (
        bytes.fromhex(
            "1201000000000000"
            "0000000000000000"  # list magic, reserved
            "0100000000000000"  # one array
            "c9fa93f9"
            "00000000"  # NDArray V2 magic, dense storage
            "02000000"
            "0100000000000000"
            "0300000000000000"  # ndim 2, dims 1, 3
            "01000000"
            "00000000"
            "00000000"  # cpu, device 0, float32
            "0000803f"
            "00000040"
            "00004040"  # 1.0 2.0 3.0
            "0100000000000000"
            "0500000000000000"
        )
        + b"arg:a"
    )
    assert raw == expected


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(DTYPES),
            hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4),
        ),
        min_size=0,
        max_size=4,
    ),
    st.booleans(),
)
def test_round_trip_through_a_file(tmp_path_factory, specs, named):
    rng = np.random.RandomState(0)
    arrays = [(rng.rand(*shape) * 10).astype(dtype) for dtype, shape in specs]
    path = tmp_path_factory.mktemp("rt") / "x.params"
    if named:
        mx.nd.save(
            str(path), {"p%d" % i: mx.nd.array(a, dtype=a.dtype) for i, a in enumerate(arrays)}
        )
        loaded = mx.nd.load(str(path))
        if not arrays:  # no names written: MXNet loads an empty dict back as []
            assert loaded == []
            return
        assert isinstance(loaded, dict) and list(loaded) == ["p%d" % i for i in range(len(arrays))]
        loaded = list(loaded.values())
    else:
        mx.nd.save(str(path), [mx.nd.array(a, dtype=a.dtype) for a in arrays])
        loaded = mx.nd.load(str(path))
        assert isinstance(loaded, list)
    assert len(loaded) == len(arrays)
    for got, want in zip(loaded, arrays):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_single_ndarray_saves_as_a_one_element_list(tmp_path):
    mx.nd.save(str(tmp_path / "one"), mx.nd.ones((2,)))
    loaded = mx.nd.load(str(tmp_path / "one"))
    assert isinstance(loaded, list) and loaded[0].shape == (2,)


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"garbage",
        b"\x12\x01" + b"\0" * 14,
        dumps_arrays([np.ones(3, "float32")], ["a"])[:-7],
        dumps_arrays([np.ones(3, "float32")], [])[:40],
    ],
)
def test_bad_files_give_a_clear_mxnet_error(tmp_path, payload):
    path = tmp_path / "bad.params"
    path.write_bytes(payload)
    with pytest.raises(MXNetError, match="NDArray file"):
        mx.nd.load(str(path))


def test_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(MXNetError, match="Cannot open"):
        mx.nd.load(str(tmp_path / "absent.params"))
    with pytest.raises(ValueError):
        mx.nd.save(str(tmp_path / "x"), 3)
    with pytest.raises(TypeError):
        mx.nd.save(str(tmp_path / "x"), {1: mx.nd.ones((1,))})


def test_legacy_v1_magic_loads():
    body = (
        bytes.fromhex(
            "1201000000000000"
            "0000000000000000"
            "0100000000000000"
            "c8fa93f9"
            "01000000"
            "0200000000000000"
            "01000000"
            "00000000"
            "04000000"
        )
        + np.array([7, 9], "int32").tobytes()
        + bytes.fromhex("0000000000000000")
    )
    arrays, names = loads_arrays(body)
    assert names == [] and arrays[0].dtype == np.int32 and arrays[0].tolist() == [7, 9]


@pytest.mark.mxnet
@pytest.mark.parametrize("dtype", DTYPES)
def test_files_match_real_mxnet_byte_for_byte(tmp_path, dtype):
    mx_real = pytest.importorskip("mxnet")
    arr = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    ours, theirs = tmp_path / "ours.params", tmp_path / "theirs.params"
    mx.nd.save(str(ours), {"arg:w": mx.nd.array(arr, dtype=dtype), "aux:m": mx.nd.ones((2,))})
    mx_real.nd.save(
        str(theirs), {"arg:w": mx_real.nd.array(arr, dtype=dtype), "aux:m": mx_real.nd.ones((2,))}
    )
    assert ours.read_bytes() == theirs.read_bytes()
    # and each side loads the other's file
    back = mx_real.nd.load(str(ours))
    np.testing.assert_array_equal(back["arg:w"].asnumpy(), arr)
    mine = mx.nd.load(str(theirs))
    np.testing.assert_array_equal(mine["arg:w"].asnumpy(), arr)
    assert mine["arg:w"].dtype == np.dtype(dtype)


@pytest.mark.mxnet
def test_unnamed_list_matches_real_mxnet(tmp_path):
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    mx.nd.save(str(ours), [mx.nd.ones((2, 1)), mx.nd.zeros((3,), dtype="int64")])
    mx_real.nd.save(str(theirs), [mx_real.nd.ones((2, 1)), mx_real.nd.zeros((3,), dtype="int64")])
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.mxnet
def test_graph_json_text_is_byte_identical_to_mxnets():
    import json

    mx_real = pytest.importorskip("mxnet")
    from hybridlint.engine.serialization import dumps_graph_json

    s = mx_real.sym.var("x", shape=(2, 3), init=mx_real.init.Xavier())
    for i in range(12):  # more than ten inputs: multi-line lists
        s = s + mx_real.sym.var("y%d" % i)
    s = mx_real.sym.FullyConnected(
        s,
        num_hidden=4,
        name='fc\tq"uote\\é模型\x01\n\r',
        attr={"__doc__": 'dé"c\\\x7f\x1f\U0001f600'},
    )
    group = mx_real.sym.Group([s, mx_real.sym.var("z") * 2, mx_real.sym.BatchNorm(s)])
    text = group.tojson()
    # dmlc leaves control characters raw in strings: strict JSON would refuse them
    assert dumps_graph_json(json.loads(text, strict=False)) == text
