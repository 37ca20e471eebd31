"""`mlir.ir`, re-exported so that generated enum bindings (`from ..ir import`) resolve."""
from mlir.ir import *  # noqa: F401,F403
from mlir.ir import register_attribute_builder  # noqa: F401
