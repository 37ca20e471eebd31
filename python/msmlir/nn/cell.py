"""`nn.Cell`, `nn.SequentialCell`, `nn.CellList` (MindSpore 2.x semantics).

A Cell registers sub-cells and Parameters assigned as attributes (`self.fc1 =
nn.Dense(...)`, `self.w = Parameter(...)`) and names its Parameters
hierarchically (`fc1.weight`). Calling a cell runs `construct`:

* inside a function being compiled (jit, grad, another cell's graph), the call
  becomes a call of `construct`, parsed into its own function (the cell is a
  compile-time constant; its Parameters become function arguments);
* in GRAPH_MODE, `construct` is compiled with `msmlir.jit` on the first call for
  each input signature (and each train/eval state of the cell tree) and cached;
* in PYNATIVE_MODE (the default, as MindSpore 2.x), `construct` runs as Python,
  each op compiled and run eagerly.

`__call__` is a descriptor, not a plain function, so the jit parser calls it
directly (instead of parsing it) when a cell is called from compiled code.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..frontend import builder as _b

__all__ = ["Cell", "SequentialCell", "CellList"]


def _building() -> bool:
    return _b.current() is not None


def _to_tensor_out(out):
    if isinstance(out, Tensor):
        return out
    if isinstance(out, (np.ndarray, np.generic)):
        return Tensor._make(np.asarray(out))
    if isinstance(out, tuple) and not hasattr(out, "_fields"):
        return tuple(_to_tensor_out(o) for o in out)
    if isinstance(out, list):
        return [_to_tensor_out(o) for o in out]
    return out


# cells whose construct is being run or compiled, innermost last: a Parameter read
# inside a `to_float` cell's construct is cast (see Cell.to_float)
_RUNNING: list = []


def _amp_cast(cell, value):
    """`value` (a float tensor, or tuples/lists of them) cast to the cell's
    `to_float` dtype; anything else unchanged."""
    dst = cell.__dict__.get("_amp_dtype")
    if dst is None:
        return value
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        return type(value)(_amp_cast(cell, v) for v in value)
    dt = getattr(value, "dtype", None)
    if getattr(dt, "is_float", False) and dt is not dst and hasattr(value, "shape"):
        from ..ops import cast
        return cast(value, dst)
    return value


# Bumped by every change of a cell tree that decides which graph a GRAPH_MODE call
# runs: an attribute set on any cell (`training` included), set_train, to_float,
# a sub-cell added, replaced or removed (`_Children`). A cell's call plan (below)
# is valid while the epoch is the one it was made at.
_EPOCH = [0]


# Bumped when a cell's Parameter or sub-cell is replaced by another object: part
# of every graph key (_graph_fn), since a compiled graph reads the Parameters it
# was built with.
_REPLACED = [0]


class _Children(OrderedDict):
    """A cell's sub-cells: an OrderedDict whose changes bump the epoch (code such
    as msmlir.amp replaces entries directly)."""
    __slots__ = ()

    def __setitem__(self, k, v):
        _EPOCH[0] += 1
        if self.get(k, v) is not v:
            _REPLACED[0] += 1
        OrderedDict.__setitem__(self, k, v)

    def __delitem__(self, k):
        _EPOCH[0] += 1
        OrderedDict.__delitem__(self, k)

    def clear(self):
        _EPOCH[0] += 1
        OrderedDict.clear(self)

    def pop(self, *a):
        _EPOCH[0] += 1
        return OrderedDict.pop(self, *a)

    def popitem(self, last=True):
        _EPOCH[0] += 1
        return OrderedDict.popitem(self, last)

    def update(self, *a, **k):
        _EPOCH[0] += 1
        OrderedDict.update(self, *a, **k)

    def setdefault(self, k, default=None):
        _EPOCH[0] += 1
        return OrderedDict.setdefault(self, k, default)


_CONTEXT: dict = {}     # common.context's dict, read directly on the fast path (_context())


def _context() -> dict:
    """common.context's key/value dict (imported on the first call, not per call)."""
    if not _CONTEXT:
        from ..common import context
        _CONTEXT["dict"] = context._CONTEXT
        _CONTEXT["graph"] = context.GRAPH_MODE
    return _CONTEXT["dict"]


def _call_plan(cell):
    """(epoch, mode, device_target, JitFunction or None for PyNative): what a
    call of `cell` outside compilation does, valid while the epoch and those two
    context keys stay as they were (see _cell_call)."""
    ctx = _context()
    mode, target = ctx["mode"], ctx["device_target"]
    graph = mode == _CONTEXT["graph"] and not getattr(cell, "_pynative_only", False)
    plan = (_EPOCH[0], mode, target, cell._graph_fn() if graph else None)
    cell.__dict__["_call_plan"] = plan
    return plan


def _cell_call(cell, *args, **kwargs):
    """What `cell(*args)` does (see the module docstring)."""
    d = cell.__dict__
    if d.get("_amp_dtype") is None and _b.current() is None:
        # the steady state: a GRAPH_MODE call of a cell whose tree and context are
        # as at its last call runs its cached JitFunction at once
        plan = d.get("_call_plan")
        ctx = _CONTEXT.get("dict") or _context()
        if plan is None or plan[0] != _EPOCH[0] or plan[1] != ctx["mode"] \
                or plan[2] != ctx["device_target"]:
            plan = _call_plan(cell)
        jf = plan[3]
        _RUNNING.append(cell)
        try:
            if jf is not None:
                return _to_tensor_out(jf(cell, *args, **kwargs))
            return cell.construct(*args, **kwargs)
        finally:
            _RUNNING.pop()
    if d.get("_amp_dtype") is not None:
        args = _amp_cast(cell, args)
        kwargs = {k: _amp_cast(cell, v) for k, v in kwargs.items()}
    _RUNNING.append(cell)
    try:
        if _building():
            from ..frontend.parser import invoke
            if "_msmlir_shard" in d:     # Cell.shard (msmlir.parallel.cell)
                from ..parallel.cell import call
                return call(cell, lambda a, k: invoke(cell.construct, a, k), args, kwargs)
            return invoke(cell.construct, args, kwargs)
        ctx = _context()
        if ctx["mode"] == _CONTEXT["graph"] and not getattr(cell, "_pynative_only", False):
            return _to_tensor_out(cell._graph_fn()(cell, *args, **kwargs))
        return cell.construct(*args, **kwargs)
    finally:
        _RUNNING.pop()


def _training_flags(cell) -> tuple:
    """`c.training` (and to_float dtype) of every cell in the tree, in
    cells_and_names order: part of the graph key; walked again only after the
    epoch moved."""
    d = cell.__dict__
    cached = d.get("_flags_at")
    if cached is not None and cached[0] == _EPOCH[0]:
        return cached[1]
    flags = _walk_flags(cell)
    d["_flags_at"] = (_EPOCH[0], flags)
    return flags


def _walk_flags(cell) -> tuple:
    d = cell.__dict__
    if not d["_cells"]:
        return (cell.training, d.get("_amp_dtype"))
    seen, flags, queue, i = set(), [], [cell], 0
    while i < len(queue):
        c = queue[i]
        i += 1
        if id(c) in seen:
            continue
        seen.add(id(c))
        d = c.__dict__
        flags.append((c.training, d.get("_amp_dtype")))
        queue.extend(d["_cells"].values())
    return tuple(flags)


class _CallDescriptor:
    """`Cell.__call__`: a descriptor returning a bound callable (see module docstring)."""

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return lambda *args, **kwargs: _cell_call(obj, *args, **kwargs)


class Cell:
    """Base class of all networks (mindspore.nn.Cell)."""

    __call__ = _CallDescriptor()

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", _Children())
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_graph_cache", {})
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_cell_name", "")
        if flags:
            for k, v in flags.items():
                object.__setattr__(self, k, v)

    # ---- attribute registration -------------------------------------------------------
    def _check_init(self):
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: super().__init__() must be called "
                                 f"before assigning Parameters or Cells")

    def __setattr__(self, name, value):
        d = self.__dict__
        _EPOCH[0] += 1
        if isinstance(value, Parameter):
            self._check_init()
            if d["_params"].get(name, value) is not value:
                _REPLACED[0] += 1
            d["_cells"].pop(name, None)
            d.pop(name, None)
            if value.name == "Parameter":
                value.name = name
            d["_params"][name] = value
        elif isinstance(value, Cell):
            self._check_init()
            if d["_cells"].get(name, value) is not value or name in d["_params"]:
                _REPLACED[0] += 1
            d["_params"].pop(name, None)
            d.pop(name, None)
            d["_cells"][name] = value
            if d.get("_auto_prefix", True) and value.__dict__.get("_auto_prefix", True):
                # MindSpore: a child's Parameter names get the attribute name as prefix
                for p in value.get_parameters():
                    p.name = name + "." + p.name
        else:
            if "_params" in d and name in d["_params"]:
                if value is None:
                    _REPLACED[0] += 1
                    del d["_params"][name]
                elif isinstance(value, (Tensor, np.ndarray)):
                    d["_params"][name].set_data(value if isinstance(value, Tensor) else Tensor(value))
                    return
                else:
                    raise TypeError(f"cannot assign {type(value).__name__} to Parameter '{name}'")
            if "_cells" in d and name in d["_cells"]:
                if value is None:
                    del d["_cells"][name]
                else:
                    raise TypeError(f"cannot assign {type(value).__name__} to sub-cell '{name}'")
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        if "_params" in d and name in d["_params"]:
            p = d["_params"][name]
            amp = d.get("_amp_dtype") is not None and p.requires_grad and _RUNNING \
                and _RUNNING[-1] is self
            if _building():
                # inside compiled code a Parameter read is the function argument bound to it
                from ..ops import to_tensor
                t = to_tensor(p)
                return _amp_cast(self, t) if amp else t
            return _amp_cast(self, p) if amp else p
        if "_cells" in d and name in d["_cells"]:
            return d["_cells"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        _EPOCH[0] += 1
        if name in d.get("_params", {}):
            _REPLACED[0] += 1
            del d["_params"][name]
        elif name in d.get("_cells", {}):
            del d["_cells"][name]
        else:
            object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        if check_name_contain_dot and "." in param_name:
            raise KeyError("The name of parameter should not contain '.'")
        _EPOCH[0] += 1
        if self.__dict__["_params"].get(param_name, param) is not param:
            _REPLACED[0] += 1
        self.__dict__["_params"][param_name] = param

    def insert_child_to_cell(self, child_name, child_cell):
        self.__setattr__(child_name, child_cell)

    # ---- construct / call ---------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.construct is not defined")

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
              level=0):
        """MindSpore's Cell.shard: the layouts of this cell's inputs, outputs and
        parameters under semi-auto / auto parallelism (msmlir.parallel.cell)."""
        from ..parallel.cell import set_shard
        return set_shard(self, in_strategy, out_strategy, parameter_plan)

    def _graph_fn(self):
        """The JitFunction of this cell's construct for the current train/eval state
        (and device_target, which selects some kernels' semantics, e.g. BatchNorm's)."""
        key = (_context()["device_target"], _REPLACED[0]) + _training_flags(self)
        jf = self._graph_cache.get(key)
        if jf is None:
            from ..frontend.jit import JitFunction
            jf = JitFunction(type(self).construct, name=type(self).__name__ + "_construct")
            self._graph_cache[key] = jf
        return jf

    def set_inputs(self, *inputs, **kwargs):
        """MindSpore's dynamic-shape declaration (`Tensor(shape=[None, 3], dtype=...)`).
        Recorded (`get_inputs`); msmlir compiles one graph per concrete input shape,
        so a declared dynamic dimension needs nothing more."""
        object.__setattr__(self, "_dynamic_inputs", inputs)
        object.__setattr__(self, "_dynamic_kwargs", kwargs)

    def get_inputs(self):
        return self.__dict__.get("_dynamic_inputs")

    def compile(self, *args, **kwargs):
        """Compiles construct for these inputs (GRAPH_MODE) without running it."""
        self._graph_fn().lower_module(self, *args, **kwargs).compile()

    def compile_and_run(self, *args, **kwargs):
        return self(*args, **kwargs)

    # ---- parameters ------------------------------------------------------------------------
    def parameters_and_names(self, name_prefix="", expand=True):
        seen = set()
        cells = self.cells_and_names(name_prefix) if expand else [(name_prefix, self)]
        for prefix, cell in cells:
            for pname, p in cell.__dict__["_params"].items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (prefix + "." + pname if prefix else pname), p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def update_parameters_name(self, prefix="", recurse=True):
        for p in self.get_parameters(expand=recurse):
            p.name = prefix + p.name

    # ---- sub-cells -------------------------------------------------------------------------
    def cells_and_names(self, cell=None, name_prefix=""):
        if isinstance(cell, str):            # cells_and_names(name_prefix) positional use
            name_prefix, cell = cell, None
        seen = set()
        stack = [(name_prefix, self)]
        out = []
        while stack:
            prefix, c = stack.pop(0)
            if id(c) in seen:
                continue
            seen.add(id(c))
            out.append((prefix, c))
            for n, sub in c.__dict__["_cells"].items():
                stack.append(((prefix + "." + n) if prefix else n, sub))
        return out

    def cells(self):
        return list(self.__dict__["_cells"].values())

    def name_cells(self):
        return OrderedDict(self.__dict__["_cells"])

    # ---- modes -------------------------------------------------------------------------------
    def set_train(self, mode=True):
        for _, c in self.cells_and_names():
            object.__setattr__(c, "training", bool(mode))
        _EPOCH[0] += 1
        return self

    def set_grad(self, requires_grad=True):
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    @property
    def phase(self):
        return "train" if self.training else "predict"

    def to_float(self, dst_type):
        """Runs this cell and its sub-cells in `dst_type` (MindSpore's mixed
        precision): float inputs of each cell's construct, and its trainable float
        Parameters as construct reads them, are cast to `dst_type`. The Parameters
        themselves (and non-trainable state such as BatchNorm's moving statistics)
        stay as they are. A sub-cell's own to_float afterwards overrides it."""
        from .. import dtype as mstype
        if dst_type not in (mstype.float16, mstype.float32, mstype.bfloat16):
            raise ValueError(f"For 'to_float', dst_type must be float16, bfloat16 or float32, "
                             f"got {dst_type}")
        for _, c in self.cells_and_names():
            object.__setattr__(c, "_amp_dtype", dst_type)
        _EPOCH[0] += 1
        return self

    def set_boost(self, *a, **k):
        return self

    def __repr__(self):
        lines = [f"{type(self).__name__}<{self.extend_repr()}>" if self.extend_repr()
                 else f"{type(self).__name__}<>"]
        for n, c in self.__dict__["_cells"].items():
            sub = repr(c).replace("\n", "\n  ")
            lines.append(f"  ({n}): {sub}")
        return "\n".join(lines)

    def extend_repr(self):
        return ""


class _CellSequence(Cell):
    """Indexing (a slice gives a new container of the same type), len and iteration
    over `cell_list`."""

    def __getitem__(self, i):
        if isinstance(i, slice):
            return type(self)(self.cell_list[i])
        return self.cell_list[i]

    def __len__(self):
        return len(self.cell_list)

    def __iter__(self):
        return iter(self.cell_list)


class SequentialCell(_CellSequence):
    """Runs its cells in order (mindspore.nn.SequentialCell); takes cells as
    arguments, a list, or an OrderedDict."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = tuple(args[0])
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for n, c in args[0].items():
                self.insert_child_to_cell(n, c)
        else:
            for i, c in enumerate(args):
                if not isinstance(c, Cell):
                    raise TypeError(f"SequentialCell: item {i} is not a Cell")
                self.insert_child_to_cell(str(i), c)
        object.__setattr__(self, "cell_list", list(self.__dict__["_cells"].values()))

    def append(self, cell):
        self.insert_child_to_cell(str(len(self.cell_list)), cell)
        self.cell_list.append(cell)
        self._graph_cache.clear()

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data


class CellList(_CellSequence):
    """A list of cells (mindspore.nn.CellList); index, iterate, append."""

    def __init__(self, *args):
        super().__init__()
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        object.__setattr__(self, "cell_list", [])
        for c in cells:
            self.append(c)

    def append(self, cell):
        if not isinstance(cell, Cell):
            raise TypeError("CellList: items must be Cells")
        self.insert_child_to_cell(str(len(self.cell_list)), cell)
        self.cell_list.append(cell)

    def extend(self, cells):
        for c in cells:
            self.append(c)
        return self

    def insert(self, index, cell):
        self.cell_list.insert(index, cell)
        self.__dict__["_cells"].clear()
        for i, c in enumerate(self.cell_list):
            self.insert_child_to_cell(str(i), c)

    def construct(self, *inputs):
        raise NotImplementedError("CellList is not callable")
