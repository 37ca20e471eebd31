"""SummaryRecord / SummaryCollector and the summary operators: the event file is
read back record by record (TFRecord framing, both CRC32Cs checked) and its
protobuf decoded here; when TensorBoard is installed, by TensorBoard's own loader
too. Also: the NPU float-status primitives' error, ParallelMode and
_InternalCallbackParam in mindspore.train."""
import glob
import os
import struct
import zlib

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn
from msmlir.dataset.tfrecord import crc32c, masked_crc32c
from msmlir.ops import operations as P
from msmlir.train import Model, SummaryCollector, SummaryRecord


# ---- a minimal reader: framing, CRCs, protobuf fields -------------------------------------

def records(path):
    data = open(path, "rb").read()
    pos, out = 0, []
    while pos < len(data):
        head = data[pos:pos + 8]
        (n,) = struct.unpack("<Q", head)
        assert struct.unpack("<I", data[pos + 8:pos + 12])[0] == masked_crc32c(head)
        body = data[pos + 12:pos + 12 + n]
        assert struct.unpack("<I", data[pos + 12 + n:pos + 16 + n])[0] == masked_crc32c(body)
        out.append(body)
        pos += 16 + n
    return out


def fields(buf):
    """{field number: [values]} of one protobuf message (varint: int, fixed64/32: bytes,
    length-delimited: bytes)."""
    out, pos = {}, 0

    def varint():
        nonlocal pos
        v, shift = 0, 0
        while True:
            b = buf[pos]
            pos += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v
    while pos < len(buf):
        key = varint()
        f, wire = key >> 3, key & 7
        if wire == 0:
            v = varint()
        elif wire == 1:
            v, pos = buf[pos:pos + 8], pos + 8
        elif wire == 5:
            v, pos = buf[pos:pos + 4], pos + 4
        else:
            n = varint()
            v, pos = buf[pos:pos + n], pos + n
        out.setdefault(f, []).append(v)
    return out


def values(event):
    """(step, {tag: Value fields}) of one Event."""
    ev = fields(event)
    summary = fields(ev[5][0])
    vals = {}
    for v in summary.get(1, []):
        vf = fields(v)
        vals[vf[1][0].decode()] = vf
    return ev[2][0], vals


def event_file(d):
    (path,) = glob.glob(str(d / "*tfevents*"))
    return path


# ---- tests --------------------------------------------------------------------------------

def test_crc32c_check_value_and_lanes():
    from msmlir.dataset.tfrecord import _crc_bytes
    assert crc32c(b"123456789") == 0xE3069283          # RFC 3720's CRC32C check value
    rng = np.random.default_rng(0)
    for n in (0, 1, 8191, 8192, 8193, 3 * 8192 + 5, 100_003):   # bytewise / lanes + tail
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert crc32c(data) == _crc_bytes(0xFFFFFFFF, data) ^ 0xFFFFFFFF, n


def test_summary_record_writes_all_plugins(tmp_path):
    img = np.random.default_rng(0).random((2, 3, 4, 5)).astype(np.float32)
    t = np.arange(6, dtype=np.int32).reshape(2, 3)
    h = np.random.default_rng(1).standard_normal(1000)
    with SummaryRecord(str(tmp_path), file_suffix="_t") as rec:
        rec.add_value("scalar", "lr", ms.Tensor(np.float32(0.125)))
        rec.add_value("tensor", "t", t)
        rec.add_value("histogram", "h", h)
        rec.add_value("image", "img", img)
        assert rec.record(3)
        assert not rec.record(4)                  # nothing new: no event
    path = event_file(tmp_path)
    assert path.endswith("_t")
    first, second = records(path)
    assert fields(first)[3] == [b"brain.Event:2"]
    step, v = values(second)
    assert step == 3
    assert struct.unpack("<f", v["lr"][2][0])[0] == 0.125
    tp = fields(v["t"][8][0])
    assert tp[1] == [3]                                          # DT_INT32
    assert [fields(d)[1][0] for d in fields(tp[2][0])[2]] == [2, 3]
    np.testing.assert_array_equal(np.frombuffer(tp[4][0], "<i4").reshape(2, 3), t)
    hp = fields(v["h"][5][0])
    (lo,), (hi,), (num,) = (struct.unpack("<d", hp[k][0]) for k in (1, 2, 3))
    assert (lo, hi, num) == (h.min(), h.max(), 1000)
    counts = np.frombuffer(hp[7][0], "<f8")
    assert counts.sum() == 1000
    ip = fields(v["img"][4][0])
    assert (ip[1][0], ip[2][0], ip[3][0]) == (4, 10, 3)         # 2 images side by side
    png = ip[4][0]
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    idat = png[png.index(b"IDAT") + 4:png.index(b"IEND") - 8]
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(4, 1 + 10 * 3)
    assert (raw[:, 0] == 0).all()                                # filter type 0 per row
    u8 = np.clip(img * 255, 0, 255).astype(np.uint8).transpose(0, 2, 3, 1)
    expect = np.concatenate([u8[0], u8[1]], axis=1).reshape(4, 30)
    np.testing.assert_array_equal(raw[:, 1:], expect)


def test_tensorboard_reads_the_event_file(tmp_path):
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    with SummaryRecord(str(tmp_path)) as rec:
        for step in (1, 2):
            rec.add_value("scalar", "loss", np.float32(1.0 / step))
            rec.add_value("histogram", "w", np.arange(10.0))
            rec.add_value("image", "x", np.zeros((1, 1, 3, 3), np.uint8))
            rec.record(step)
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={"images": 0, "scalars": 0,
                                                            "histograms": 0})
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(1, 1.0), (2, 0.5)]
    assert acc.Histograms("w")[0].histogram_value.num == 10
    assert (acc.Images("x")[0].width, acc.Images("x")[0].height) == (3, 3)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_summary_ops_in_both_modes(tmp_path, mode):
    s = P.ScalarSummary()
    ts = P.TensorSummary()

    def f(x):
        s("sum", x.sum())
        ts("x", x * 2)
        return x + 1

    run = ms.jit(f) if mode == ms.GRAPH_MODE else f
    with SummaryRecord(str(tmp_path)) as rec:
        for step in (1, 2):
            out = run(ms.Tensor(np.full(3, step, np.float32)))
            rec.record(step)
    np.testing.assert_array_equal(out.asnumpy(), [3, 3, 3])
    evs = [values(r) for r in records(event_file(tmp_path))[1:]]
    assert [st for st, _ in evs] == [1, 2]
    for st, v in evs:
        assert struct.unpack("<f", v["sum"][2][0])[0] == 3.0 * st
        np.testing.assert_array_equal(np.frombuffer(fields(v["x"][8][0])[4][0], "<f4"), 2.0 * st)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.summary = P.ScalarSummary()

    def construct(self, x):
        y = self.fc(x)
        self.summary("ymean", y.mean())
        return y


def test_summary_collector_in_graph_mode_training(tmp_path):
    import msmlir.dataset as ds
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        rng = np.random.default_rng(0)
        data = ds.NumpySlicesDataset((rng.random((24, 4)).astype(np.float32),
                                      rng.integers(0, 3, 24).astype(np.int32)),
                                     column_names=["x", "y"], shuffle=False).batch(4)
        net = _Net()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        losses = []
        cb = ms.train.LambdaCallback(on_train_step_end=lambda rc: losses.append(
            float(rc.original_args().net_outputs.asnumpy())))
        model.train(2, data, callbacks=[cb, SummaryCollector(
            str(tmp_path), collect_freq=4, histogram_regular="fc.weight")], progress=False)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    evs = [values(r) for r in records(event_file(tmp_path))[1:]]
    assert [st for st, _ in evs] == [1, 4, 8, 12]                # step 1, then every 4th
    for st, v in evs:
        assert set(v) == {"loss/auto", "ymean", "fc.weight/auto"}
        assert struct.unpack("<f", v["loss/auto"][2][0])[0] == pytest.approx(losses[st - 1],
                                                                             rel=1e-6)


def test_summary_errors(tmp_path):
    with SummaryRecord(str(tmp_path)) as rec:
        with pytest.raises(ValueError, match="plugin must be one of"):
            rec.add_value("graph", "g", np.zeros(2))
        with pytest.raises(ValueError, match="must hold one element"):
            rec.add_value("scalar", "s", np.zeros(2))
        with pytest.raises(TypeError, match="step must be an int"):
            rec.record(1.5)
    with pytest.raises(RuntimeError, match="closed"):
        rec.record(1)
    with pytest.raises(ValueError, match="unknown collect_specified_data keys"):
        SummaryCollector(str(tmp_path), collect_specified_data={"collect_weights": True})
    with pytest.raises(ValueError, match="collect_freq must be a positive int"):
        SummaryCollector(str(tmp_path), collect_freq=0)

    def f(x):
        P.ImageSummary()("img", x)
        return x

    with pytest.raises(ms.CompileError, match="4-D NCHW") as e:
        ms.jit(f)(ms.Tensor(np.zeros((2, 2), np.float32)))
    assert e.value.filename == __file__ and e.value.lineno == f.__code__.co_firstlineno + 1
    with pytest.raises(ValueError, match="tag must be a non-empty str"):
        P.ScalarSummary()("", ms.Tensor(np.float32(1)))


def test_max_file_size_drops_records(tmp_path):
    with SummaryRecord(str(tmp_path), max_file_size=200) as rec:
        rec.add_value("tensor", "big", np.zeros(100, np.float32))
        with pytest.warns(RuntimeWarning, match="max_file_size"):
            assert not rec.record(1)
    assert len(records(event_file(tmp_path))) == 1


@pytest.mark.parametrize("name", ["NPUAllocFloatStatus", "NPUGetFloatStatus",
                                  "NPUClearFloatStatus"])
def test_npu_float_status_constructs_but_calling_raises(name):
    op = getattr(P, name)()                       # scripts build them on every target
    args = () if name == "NPUAllocFloatStatus" else (ms.Tensor(np.zeros(8, np.float32)),)
    with pytest.raises(RuntimeError, match="overflow register.*amp.all_finite"):
        op(*args)

    def f(x):
        return op(*((x,) if args else ()))

    with pytest.raises(ms.CompileError, match="no CPU/GPU kernel") as e:
        ms.jit(f)(ms.Tensor(np.zeros(8, np.float32)))
    assert e.value.lineno == f.__code__.co_firstlineno + 1


def test_train_namespace_names():
    from msmlir.train.callback import _InternalCallbackParam
    p = _InternalCallbackParam()
    p.cur_step_num = 3
    assert p["cur_step_num"] == 3
    assert ms.train.ParallelMode.DATA_PARALLEL == ms.ParallelMode.DATA_PARALLEL
    assert ms.SummaryRecord is SummaryRecord and ms.SummaryCollector is SummaryCollector


def test_profiler_writes_a_host_profile(tmp_path):
    import pstats

    from msmlir.profiler import Profiler
    from msmlir.profiler.profiling import Profiler as Profiler1x

    def profiled_step(x):
        return (x * 2).sum()

    step = ms.jit(profiled_step)
    prof = Profiler(output_path=str(tmp_path), profile_memory=True)
    for _ in range(3):
        step(ms.Tensor(np.ones(4, np.float32)))
    out = prof.analyse()
    assert Profiler1x is Profiler and ms.Profiler is Profiler
    text = open(f"{out}/host_profile.txt").read()
    assert text.startswith("# not recorded (msmlir profiles the host only): profile_memory")
    stats = pstats.Stats(f"{out}/host_profile.prof")
    calls = {(os.path.basename(f), name): v[1] for (f, _, name), v in stats.stats.items()}
    assert calls[("jit.py", "__call__")] == 3              # the three compiled calls
    assert "jit.py" in text
    with pytest.raises(ValueError, match="offline_path"):
        prof.analyse(offline_path="x")
    p1 = Profiler(output_path=str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match="another Profiler is running"):
            Profiler(output_path=str(tmp_path))
    finally:
        p1.stop()
