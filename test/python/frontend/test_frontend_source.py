"""msmlir/frontend/source.py finds a jitted function's lines by indentation
(not by tokenizing, as inspect.getsourcelines does) and falls back to inspect
when that cut does not parse: either way the parsed def, with the file's line
and column numbers, is the one inspect gives."""
import ast
import inspect

from msmlir.frontend import source


def _decorated(f):
    return f


def plain(x):
    y = x + 1
    return y * 2


@_decorated
def decorated(
        x,
        y):
    # a comment at the def's indentation inside the body
    return x + y


def string_at_column_0(x):
    s = """
a line at column 0 ends the indentation cut early: inspect decides"""
    return x


def _inspect_node(fn):
    lines, start = inspect.getsourcelines(fn)
    return source._parse_def(lines, start, fn.__name__)


def _dump(node):
    return ast.dump(node, include_attributes=True)


def test_same_def_as_inspect():
    for fn in (plain, decorated, string_at_column_0):
        source._SOURCE_CACHE.clear()
        got = source.get_source_function(fn)
        assert got is not None and got.node.name == fn.__name__
        assert _dump(got.node) == _dump(_inspect_node(fn)), fn.__name__
        assert got.node.lineno == fn.__code__.co_firstlineno + (fn is decorated)


def test_cut_by_indentation():
    found = source._def_lines(decorated.__code__)
    assert found is not None
    lines, start = found
    assert start == decorated.__code__.co_firstlineno
    assert lines[0].startswith("@_decorated") and lines[-1].strip() == "return x + y"


def test_cut_that_does_not_parse_falls_back():
    lines, start = source._def_lines(string_at_column_0.__code__)
    assert source._parse_def(lines, start, "string_at_column_0") is None   # cut too early
    source._SOURCE_CACHE.clear()
    got = source.get_source_function(string_at_column_0)
    assert got is not None and isinstance(got.node.body[-1], ast.Return)
