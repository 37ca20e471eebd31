"""Pass options are declared once, typed (msmlir.passes.registry.Option): the
registry checks the declarations against the pass function, fills in the
defaults, and lets callers change the defaults for a while."""
from __future__ import annotations

import pytest

from msmlir.passes import registry
from msmlir.passes.registry import Option, PipelineError, get_pass, option_defaults, parse_options


def _register(options, fn):
    registry.register_pass("test-registry-pass", "a pass for this test", options=options)(fn)
    return registry._PASSES.pop("test-registry-pass")


def test_pass_gets_every_option_by_python_name():
    seen = {}

    def run(module, *, min_work: int, name: str):
        seen.update(min_work=min_work, name=name)
    info = _register({"min-work": Option(int, 3, "h"), "name": Option(str, "x", "h")}, run)
    info.run(None)
    assert seen == {"min_work": 3, "name": "x"}
    info.run(None, **parse_options(info, "min-work=5"))
    assert seen == {"min_work": 5, "name": "x"}


@pytest.mark.parametrize("options,fn,msg", [
    ({"n": (int, 1, "h")}, lambda m, *, n: None, "must be declared with Option"),
    ({"n": Option(int, "1", "h")}, lambda m, *, n: None, "is not a int"),
    ({"n": Option(int, True, "h")}, lambda m, *, n: None, "is not a int"),
    ({"n": Option(dict, {}, "h")}, lambda m, *, n: None, "unsupported type"),
    ({"n": Option(int, 1, "h")}, lambda m, *, n=1: None, "repeats option defaults"),
    ({"n": Option(int, 1, "h")}, lambda m, *, k: None, "must take exactly the keyword-only arguments"),
    ({"n": Option(int, 1, "h")}, lambda m, n: None, "must take exactly the keyword-only arguments"),
])
def test_bad_declarations_are_rejected(options, fn, msg):
    with pytest.raises(TypeError, match=msg):
        _register(options, fn)


def test_option_defaults_are_restored():
    info = get_pass("msmlir-cpu-pipeline")
    before = info.defaults()
    with option_defaults("msmlir-cpu-pipeline", {"threads": 3, "fast-math": False}):
        assert parse_options(info, None)["threads"] == 3
        assert "msmlir-cpu-lower-vectors{threads=3}" in info.expand()
        assert "msmlir-cpu-fast-math" not in info.expand()
    assert info.defaults() == before
    with pytest.raises(PipelineError, match="has no option 'nope'"):
        registry.set_option_defaults("msmlir-cpu-pipeline", {"nope": 1})


def test_every_registered_option_is_typed():
    for name, info in registry.registered_passes().items():
        for key, opt in info.options.items():
            assert isinstance(opt, Option), (name, key)
            assert isinstance(opt.default, opt.type), (name, key)
