# The generated op classes import their helpers relative to their package;
# this re-exports the bindings' helper module under that name.
from mlir.dialects import _ods_common as _upstream

globals().update({k: v for k, v in vars(_upstream).items() if not k.startswith("__")})
