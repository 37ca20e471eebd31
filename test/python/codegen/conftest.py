"""pytest setup for the CPU codegen tests (helpers: cg_helpers.py)."""
import warnings

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _quiet_numpy():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
