"""pytest setup for the MindSpore-API tests (Tensor, initializers, dataset, checkpoints, export)."""
import pytest


@pytest.fixture(autouse=True)
def _fresh_global_state():
    """Each test starts without seeds and with the default context / dataset config."""
    import msmlir
    from msmlir.common import context
    from msmlir.dataset import config
    msmlir.set_seed(None)
    config._reset()
    context._reset_context()
    yield
    msmlir.set_seed(None)
    config._reset()
    context._reset_context()
