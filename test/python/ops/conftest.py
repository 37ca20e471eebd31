"""pytest setup for the per-op numerics tests (helpers: mindir_cases.py)."""
import warnings

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _quiet_numpy():
    """Reference computations divide by zero and take logs of 0 on purpose."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
