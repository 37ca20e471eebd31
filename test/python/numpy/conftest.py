"""pytest setup for the msmlir.numpy tests."""
import warnings

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _quiet_numpy():
    """Reference computations take logs of 0 and divide by zero on purpose."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
