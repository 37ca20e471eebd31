"""Named pipelines: msmlir-cpu-pipeline (and later gpu/ascend)."""
from . import cpu  # noqa: F401
