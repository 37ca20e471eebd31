"""Command-line tools: ms-opt (the mlir-opt of msmlir)."""
