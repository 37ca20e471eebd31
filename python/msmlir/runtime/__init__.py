"""msmlir's runtime: what compiled code needs in the process to run.

`compiled_module` loads a lowered module (MLIR's ExecutionEngine) and calls it
on numpy arrays (memref descriptors, write-back); `allocator` tunes malloc
when the first one starts; `linker` binds a compiled module's external symbols
explicitly (nothing made global in the process, nothing resolved by accident);
`host_callbacks` holds the Python functions compiled code calls back (JIT
Fallback, ops.Custom) and their ctypes trampolines; `compile_cache` keeps
compiled graphs on disk across processes (enable_compile_cache), as shared
libraries made and loaded by `shared_object` (bound explicitly too).
"""
