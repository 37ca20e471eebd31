"""Graph passes: mindir -> mindir.

    hoist_assigns.py         mindir-hoist-assigns: assigns inside scf.if/for/while ->
                             carried values + one assign after the op
    functionalize_assign.py  mindir-functionalize-assign: parameter assigns -> results
                             written back by the runtime
    embed_parameters.py      mindir-embed-parameters: arguments with a known value
                             -> constants (self-contained exported models)
"""
from . import embed_parameters, functionalize_assign, hoist_assigns  # noqa: F401  (register the passes)
from . import expand_composites  # noqa: F401,E402  (mindir-expand-composites)
