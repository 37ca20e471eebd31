"""Record the public names of an installed MindSpore (run with MindSpore's own python).

Usage: /path/to/mindspore-venv/bin/python tools/ms_record_names.py \
           python/msmlir/compat/mindspore_names.json

Why: the compatibility table (python/msmlir/compat) measures msmlir against name lists;
names taken from the real package are fuller than the API docs (dir(Tensor) has ~430
public methods, the docs ~390). The output is plain JSON, read by compat/_reference.py;
MindSpore is never an msmlir dependency.
"""
import inspect
import json
import sys


def _public(names):
    # mindspore.__all__ of 2.10 also holds a few non-names ('.', '0', ...): identifiers only
    return sorted({n for n in names if n.isidentifier() and not n.startswith("_")})


def record():
    import mindspore as ms
    from mindspore import amp, nn, ops, train
    from mindspore import numpy as mnp
    from mindspore.ops import operations as P
    from mindspore.ops.primitive import Primitive

    def is_prim(obj):
        return inspect.isclass(obj) and issubclass(obj, Primitive)

    ops_all = getattr(ops, "__all__", dir(ops))
    functional = [n for n in ops_all
                  if callable(getattr(ops, n, None)) and not inspect.isclass(getattr(ops, n))]
    prims = [n for n in dir(P) if is_prim(getattr(P, n))]
    prims += [n for n in ops_all if is_prim(getattr(ops, n, None))]
    return {
        "source": f"mindspore {ms.__version__} wheel (PyPI), CPU, "
                  f"Python {sys.version_info.major}.{sys.version_info.minor}",
        "rules": {
            "mindspore": "mindspore.__all__",
            "ops": "mindspore.ops.__all__, callables that are not classes",
            "ops.operations": "Primitive subclasses in dir(mindspore.ops.operations) and "
                              "mindspore.ops.__all__",
            "nn": "mindspore.nn.__all__", "numpy": "mindspore.numpy.__all__",
            "Tensor": "dir(mindspore.Tensor), no leading underscore",
            "train": "mindspore.train.__all__", "amp": "mindspore.amp.__all__",
        },
        "names": {
            "mindspore": _public(ms.__all__),
            "ops": _public(functional),
            "ops.operations": _public(prims),
            "nn": _public(nn.__all__),
            "numpy": _public(mnp.__all__),
            "Tensor": _public(dir(ms.Tensor)),
            "train": _public(train.__all__),
            "amp": _public(amp.__all__),
        },
    }


if __name__ == "__main__":
    data = record()
    text = json.dumps(data, indent=0, sort_keys=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    print({k: len(v) for k, v in data["names"].items()}, file=sys.stderr)
