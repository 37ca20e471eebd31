"""msmlir.export / msmlir.load: MLIR bytecode models that run without the Python source."""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import msmlir as ms
from msmlir import Parameter, Tensor
from msmlir.train import CheckpointFormatError, GraphCell

PREFIX = struct.Struct("<8sIIQ")
R = np.random.default_rng(0)
X = R.standard_normal((4, 3)).astype(np.float32)
W = R.standard_normal((3, 5)).astype(np.float32)


@ms.jit
def mlp(x, w):
    h = ms.ops.relu(x @ w + 0.5)
    return h, h.sum(axis=1)


def test_export_load_identical_outputs(tmp_path):
    f = str(tmp_path / "mlp")
    ms.export(mlp, Tensor(X), Tensor(W), file_name=f)
    assert os.path.exists(f + ".mindir")
    g = ms.load(f + ".mindir")
    assert isinstance(g, GraphCell)
    assert g.input_specs == [((4, 3), ms.float32), ((3, 5), ms.float32)]
    h, s = g(Tensor(X), Tensor(W))
    rh, rs = mlp(Tensor(X), Tensor(W))
    assert isinstance(h, Tensor) and isinstance(s, Tensor)
    assert h.asnumpy().tobytes() == rh.asnumpy().tobytes()
    assert s.asnumpy().tobytes() == rs.asnumpy().tobytes()
    # numpy inputs work too, and the compiled graph is cached
    compiled = g._compiled
    h2, _ = g(X, W)
    assert g._compiled is compiled
    assert h2.asnumpy().tobytes() == rh.asnumpy().tobytes()


def test_export_plain_function_with_captured_parameters(tmp_path):
    b = Parameter(Tensor(R.standard_normal(5).astype(np.float32)), name="b")

    def affine(x):
        return x @ W + b

    f = str(tmp_path / "affine.mindir")
    ms.export(affine, Tensor(X), file_name=f, file_format="MINDIR")
    out = ms.load(f)(Tensor(X))
    ref = ms.jit(affine)(Tensor(X))
    assert out.asnumpy().tobytes() == ref.asnumpy().tobytes()
    np.testing.assert_allclose(out.asnumpy(), X @ W + b.asnumpy(), rtol=1e-5, atol=1e-6)


class TinyNet:
    """A Cell-like object: parameters and a construct method."""

    def __init__(self):
        self.w = Parameter(Tensor(W), name="w")
        self.scale = 2.0

    def construct(self, x):
        y = x @ self.w
        return (y * self.scale, [y.max()])


def test_export_cell_like_runs_without_source(tmp_path):
    net = TinyNet()
    path = str(tmp_path / "tiny.mindir")
    ms.export(net, Tensor(X), file_name=path)
    g = ms.load(path)
    a, (m,) = g(Tensor(X))
    ra = X @ W * 2
    np.testing.assert_allclose(a.asnumpy(), ra, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.asnumpy(), (X @ W).max(), rtol=1e-6)
    # a fresh interpreter without this test module loads and runs the file
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "ref.npy", a.asnumpy())
    code = ("import sys, numpy as np, msmlir as ms; "
            "g = ms.load(sys.argv[1]); x = np.load(sys.argv[2]); ref = np.load(sys.argv[3]); "
            "out, rest = g(ms.Tensor(x)); "
            "assert out.asnumpy().tobytes() == ref.tobytes(); "
            "assert 'test_export' not in sys.modules; print('ok')")
    r = subprocess.run([sys.executable, "-c", code, path, str(tmp_path / "x.npy"),
                        str(tmp_path / "ref.npy")], capture_output=True, text=True, timeout=300,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "ok"


def test_graph_cell_input_checks(tmp_path):
    f = str(tmp_path / "m.mindir")
    ms.export(mlp, X, W, file_name=f)
    g = ms.load(f)
    with pytest.raises(TypeError, match="2 tensor inputs"):
        g(Tensor(X))
    with pytest.raises(ValueError, match="float32"):
        g(Tensor(X.astype(np.float64)), Tensor(W))
    with pytest.raises(ValueError, match=r"\[4, 3\]"):
        g(Tensor(X[:2]), Tensor(W))
    with pytest.raises(ValueError, match="MINDIR"):
        ms.export(mlp, X, W, file_name=f, file_format="ONNX")


def _read(path):
    raw = open(path, "rb").read()
    magic, ver, res, hlen = PREFIX.unpack(raw[:PREFIX.size])
    header = json.loads(raw[PREFIX.size:PREFIX.size + hlen])
    return raw, header, raw[PREFIX.size + hlen:]


def _write(path, header, body, magic=b"MSMLMIR\0"):
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(PREFIX.pack(magic, 1, 0, len(h)) + h + body)


def test_tampered_models_rejected(tmp_path):
    f = str(tmp_path / "m.mindir")
    ms.export(mlp, X, W, file_name=f)
    raw, header, body = _read(f)
    bad = str(tmp_path / "bad.mindir")

    flipped = bytearray(body)
    flipped[len(flipped) // 2] ^= 0xFF
    _write(bad, header, bytes(flipped))
    with pytest.raises(CheckpointFormatError, match="SHA-256"):
        ms.load(bad)

    h = dict(header, inputs=[{"shape": [4, 4], "dtype": "float32"}, header["inputs"][1]])
    _write(bad, h, body)
    with pytest.raises(CheckpointFormatError, match="function type"):
        ms.load(bad)

    h = dict(header, entry="no_such_function")
    _write(bad, h, body)
    with pytest.raises(CheckpointFormatError, match="no public function"):
        ms.load(bad)

    for change in ({"inputs": [{"shape": [4, 3], "dtype": "object"}]},
                   {"out_spec": ["eval", "__import__('os')"]},
                   {"bytecode_nbytes": 10 ** 12},
                   {"extra": 1}):
        _write(bad, dict(header, **change), body)
        with pytest.raises(CheckpointFormatError):
            ms.load(bad)

    junk = b"this is not bytecode at all" * 4
    import hashlib
    _write(bad, dict(header, bytecode_nbytes=len(junk), sha256=hashlib.sha256(junk).hexdigest()),
           junk)
    with pytest.raises(CheckpointFormatError, match="not MLIR bytecode"):
        ms.load(bad)

    ckpt = str(tmp_path / "w.ckpt")
    ms.save_checkpoint({"w": Tensor(W)}, ckpt)
    with pytest.raises(CheckpointFormatError, match="bad magic"):
        ms.load(ckpt)
    with pytest.raises(CheckpointFormatError, match="bad magic"):
        ms.load_checkpoint(f)


def test_hostile_bytecode_cannot_crash_the_loader(tmp_path, monkeypatch):
    """A payload with a recomputed checksum is parsed in a child process first:
    garbage and reader crashes become CheckpointFormatError in this process."""
    import hashlib
    from msmlir.train import model_file
    f = str(tmp_path / "m.mindir")
    ms.export(mlp, X, W, file_name=f)
    raw, header, body = _read(f)
    b = bytearray(body)
    mid = len(b) // 2
    b[mid:mid + 8] = b"\xff" * 8
    b = bytes(b)
    bad = str(tmp_path / "hostile.mindir")
    _write(bad, dict(header, sha256=hashlib.sha256(b).hexdigest()), b)
    with pytest.raises(CheckpointFormatError, match="isolated check"):
        ms.load(bad)
    # a reader that dies (as MLIR's bytecode reader does on some crafted inputs: an
    # assertion aborts the process) is reported, not inherited
    monkeypatch.setattr(model_file, "_ISOLATED_CHECK", "import os; os.abort()")
    with pytest.raises(CheckpointFormatError, match="signal"):
        ms.load(f)


def test_parameters_are_embedded_at_export_time(tmp_path):
    scale = Parameter(Tensor(np.float32(3.0)), name="scale")             # 0-d
    mask = Parameter(Tensor(np.array([True, False, True])), name="mask")  # bool
    offs = Parameter(Tensor(np.array([1, 2, 3], np.int32)), name="offs")

    @ms.jit
    def f(x):
        return ms.ops.select(mask, x * scale, x) + ms.ops.cast(offs, ms.float32)

    x = Tensor(np.array([1.0, 2.0, 4.0], np.float32))
    before = f(x)
    path = str(tmp_path / "p.mindir")
    ms.export(f, x, file_name=path)
    g = ms.load(path)
    assert len(g.input_specs) == 1                     # parameters are not inputs
    np.testing.assert_array_equal(g(x).asnumpy(), before.asnumpy())
    np.testing.assert_array_equal(before.asnumpy(), [4.0, 4.0, 15.0])
    scale.set_data(Tensor(np.float32(10.0)))           # the jitted function follows...
    assert f(x).asnumpy()[0] == 11.0
    np.testing.assert_array_equal(g(x).asnumpy(), before.asnumpy())   # ...the export does not


def test_export_nn_cell_if_available(tmp_path):
    try:
        from msmlir.nn import Dense
    except (ImportError, AttributeError):
        pytest.skip("msmlir.nn is not available yet")
    ms.set_seed(0)
    net = Dense(3, 4)
    x = Tensor(X)
    ref = net(x)
    path = str(tmp_path / "dense")
    ms.export(net, x, file_name=path)
    out = ms.load(path + ".mindir")(x)
    assert out.asnumpy().tobytes() == ref.asnumpy().tobytes()


def _gone(pid):
    """Not running: no such process, or a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return "State:\tZ" in f.read()
    except FileNotFoundError:
        return True


def _spinning_check():
    """The real isolated-check script with its parse replaced by an endless loop
    (what a payload that hangs MLIR's reader does): the guard prologue is real."""
    from msmlir.train import model_file
    prologue = model_file._ISOLATED_CHECK.split("from mlir import ir")[0]
    assert "prctl" in prologue
    return prologue + ("open(os.environ['SPIN_PID_FILE'], 'w').write(str(os.getpid()))\n"
                       "while True:\n    pass\n")


SPIN = _spinning_check()


def test_a_reader_that_hangs_is_stopped_with_a_clear_error(tmp_path, monkeypatch):
    """A payload that makes MLIR's reader spin (found by fuzzing: one flipped byte)
    gives an error after the load timeout, not a hang; the child is gone."""
    import time
    from msmlir.train import model_file
    f = str(tmp_path / "m.mindir")
    ms.export(mlp, X, W, file_name=f)
    monkeypatch.setattr(model_file, "_ISOLATED_CHECK", SPIN)
    monkeypatch.setenv("SPIN_PID_FILE", str(tmp_path / "pid"))
    t0 = time.time()
    with pytest.raises(CheckpointFormatError, match="did not finish within 1 s"):
        ms.load(f, timeout=1)
    assert time.time() - t0 < 30
    pid = int((tmp_path / "pid").read_text())
    assert _gone(pid)
    monkeypatch.setenv("MSMLIR_LOAD_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="MSMLIR_LOAD_TIMEOUT"):
        ms.load(f)
    with pytest.raises(ValueError, match="timeout must be a positive"):
        ms.load(f, timeout=0)


def test_the_checking_child_dies_with_its_parent(tmp_path):
    """Killing the process that called load also ends the isolated check (it used
    to keep spinning as an orphan)."""
    import signal
    import time
    f = str(tmp_path / "m.mindir")
    ms.export(mlp, X, W, file_name=f)
    pid_file = tmp_path / "pid"
    code = ("import sys, msmlir as ms\n"
            "from msmlir.train import model_file\n"
            f"model_file._ISOLATED_CHECK = {SPIN!r}\n"
            "ms.load(sys.argv[1], timeout=600)\n")
    loader = subprocess.Popen([sys.executable, "-c", code, f],
                              env={**os.environ, "SPIN_PID_FILE": str(pid_file)})
    deadline = time.time() + 120
    while not pid_file.exists() or not pid_file.read_text():
        assert time.time() < deadline and loader.poll() is None
        time.sleep(0.1)
    child = int(pid_file.read_text())
    loader.send_signal(signal.SIGKILL)
    loader.wait()
    for _ in range(100):
        if _gone(child):
            break
        time.sleep(0.05)
    assert _gone(child), "the isolated check outlived its parent"
