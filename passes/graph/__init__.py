"""graph passes."""
from . import vmap  # noqa: F401  (mindir-vmap; msmlir.vmap expands through it)
from . import functionalize_assign  # noqa: F401
