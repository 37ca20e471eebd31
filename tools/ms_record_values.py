"""Record real MindSpore's results for test/python/compat/mindspore_cases.py (run with
MindSpore's own python, PyNative mode on the CPU):

  /path/to/mindspore-venv/bin/python tools/ms_record_values.py \
      test/python/compat/data/mindspore_2_10_values.npz

Why: msmlir claims MindSpore's semantics; these values are MindSpore's own, replayed
against msmlir by test/python/compat/test_mindspore_values.py (which needs no MindSpore).
The file holds every case's inputs and outputs as plain arrays (np.savez_compressed, no
pickle) and one JSON string with the structure, output kinds and raised error types.
"""
import json
import sys
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python" / "compat"))

import mindspore_cases as mc   # noqa: E402


def _error_in_fresh_process(name):
    """Runs one error case in its own process: MindSpore's PyNative executor reports some
    errors at a later op (a second bad call in the same process can re-raise the first
    one's message), so each error case gets a clean executor."""
    import subprocess
    r = subprocess.run([sys.executable, __file__, "--error-case", name], capture_output=True,
                       text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def _run_error_case(name):
    import mindspore as ms
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    fn, inputs, _ = mc.CASES[name]
    try:
        out = fn(ms, *inputs)
        mc.flatten(ms, out)
        rec = None
    except Exception as e:   # noqa: BLE001 - the recorded fact is the exception type
        msg = str(e).strip()
        rec = {"type": type(e).__name__, "builtin": mc.builtin_base(type(e)),
               "message": msg.splitlines()[0][:300] if msg else ""}
    print(json.dumps(rec))


def main(path):
    import mindspore as ms
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    arrays, meta = {}, {}
    for name, (fn, inputs, opts) in mc.CASES.items():
        for k, a in enumerate(inputs):
            arrays[f"{name}::in{k}"] = a
        rec = {"n_in": len(inputs)}
        if opts["error"]:
            rec["error"] = _error_in_fresh_process(name)
            meta[name] = rec
            continue
        try:
            out = fn(ms, *inputs)
            struct, leaves = mc.flatten(ms, out)
            rec["structure"] = struct
            rec["kinds"] = []
            for k, (kind, v) in enumerate(leaves):
                rec["kinds"].append(kind)
                if kind == "other":
                    rec.setdefault("other", {})[str(k)] = v
                else:
                    arrays[f"{name}::out{k}"] = v
        except Exception as e:   # noqa: BLE001 - the recorded fact is the exception type
            rec["error"] = {"type": type(e).__name__, "builtin": mc.builtin_base(type(e)),
                            "message": str(e).strip().splitlines()[0][:300] if str(e).strip()
                            else ""}
            if not opts["error"]:
                print(f"{name}: MindSpore raised {type(e).__name__}: "
                      f"{rec['error']['message']}", file=sys.stderr)
                traceback.print_exc(limit=1)
        meta[name] = rec
    arrays["__meta__"] = np.array(json.dumps({
        "source": f"mindspore {ms.__version__} wheel (PyPI), CPU, PyNative mode, "
                  f"numpy {np.__version__}",
        "cases": meta}))
    np.savez_compressed(path, **arrays)
    print(f"{len(meta)} cases -> {path}", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "--error-case":
        _run_error_case(sys.argv[2])
    else:
        main(sys.argv[1])
