"""The ascendc dialect's op classes and enums (generated from dialects/AscendC.td).

An installed msmlir has the generated modules next to this one. A development
build of the dialect library (MSMLIR_DIALECT_LIB=<build>/libMSMLIRDialects.so,
built with cmake outside the package) keeps them in <build>/python: that
folder is searched too, so the classes match the library that is loaded.
"""
import os as _os

try:
    from ._ascendc_ops_gen import *  # noqa: F401,F403
except ImportError:  # a development build of the library: its generated Python is beside it
    _lib = _os.environ.get("MSMLIR_DIALECT_LIB", "")
    _gen = _os.path.join(_os.path.dirname(_lib), "python")
    if not _lib or not _os.path.isfile(_os.path.join(_gen, "_ascendc_ops_gen.py")):
        raise
    from . import __path__ as _pkg_path
    _pkg_path.append(_gen)
    from ._ascendc_ops_gen import *  # noqa: F401,F403
from ._ascendc_enum_gen import *  # noqa: F401,F403
