"""msmlir's runtime: what compiled code needs in the process to run.

`linker` binds a compiled module's external symbols explicitly (nothing made
global in the process, nothing resolved by accident).
"""
