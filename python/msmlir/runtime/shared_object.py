"""Compiled code as a shared library: what the persistent compile cache stores.

A JIT-compiled module (compiled_module.py, with `enable_pic`) is written out
as a relocatable object (`ExecutionEngine.dump_to_object_file`), or the
objects of parallel_compile.py, and linked by the system linker (`ld -shared`;
`cc -shared -nostdlib` where there is no `ld`) into a shared library that
depends on nothing and whose every external call goes through an import
table:

* each symbol the objects leave undefined (`malloc`, `expf`, `memrefCopy`,
  `msmlir_check_failed`, ...) gets a hidden trampoline of that name, a single
  indirect jump through slot i of the exported table `__msmlir_imports`
  (assembled in process by LLVM's assembler, llvm_codegen.assemble: an `as`
  and a `cc` driver cost ~25 ms of a first call);
* after `dlopen` (RTLD_LOCAL, so nothing becomes global), the runtime fills
  the table with the addresses linker.py resolves for those names: the same
  explicit binding as the JIT's, nothing is looked up in the process.

`check_library` validates a library before it is loaded: an ELF shared object
of this machine with no undefined dynamic symbols and no initializers (loading
it runs no code). x86-64 and AArch64 only; elsewhere `supported()` is False.
"""
from __future__ import annotations

import ctypes
import os
import platform
import shutil
import struct
import subprocess

from . import linker, llvm_codegen

__all__ = ["IMPORTS_SYMBOL", "LinkError", "supported", "undefined_symbols", "defined_symbols", "link",
           "check_library", "load"]

IMPORTS_SYMBOL = "__msmlir_imports"


# Undefined symbols that are data, not functions: OpenMPI's predefined handles
# (ompi_mpi_comm_world, ompi_mpi_float, ompi_mpi_op_sum, ...) and the cells of
# create_group's communicators (runtime/mpi.py). The import table binds
# functions only (each name becomes a jump), so code reading these through it
# would read the trampoline's bytes (MPI_ERR_COMM or SIGBUS at run time).
DATA_IMPORT_PREFIXES = ("ompi_", "msmlir_mpi_group_")


class LinkError(RuntimeError):
    """The object could not be made into a cacheable shared library."""


_ELF_MACHINE = {"x86_64": 62, "aarch64": 183}


def _arch() -> str:
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(m, m)


def supported() -> bool:
    """Whether this machine can link (trampolines for its ISA, LLVM's
    assembler in process, a linker)."""
    return (os.name == "posix" and _arch() in _ELF_MACHINE
            and _linker() is not None and not llvm_codegen.available())


def _linker() -> list[str] | None:
    """The command that links a shared library from objects: `ld` (what
    `cc -shared -nostdlib` runs, without the driver's ~10 ms), else the C
    compiler ($MSMLIR_CC, cc, gcc, clang)."""
    ld = shutil.which("ld")
    if ld:
        return [ld, "--build-id", "--eh-frame-hdr", "--hash-style=gnu", "-shared",
                "-z", "noexecstack", "--no-undefined"]
    cc = _compiler()
    if cc:
        return [cc, "-shared", "-nostdlib", "-nostartfiles", "-Wl,-z,noexecstack",
                "-Wl,--no-undefined"]
    return None


def _compiler() -> str | None:
    cc = os.environ.get("MSMLIR_CC") or "cc"
    return shutil.which(cc) or shutil.which("gcc") or shutil.which("clang")


# --- ELF64 little-endian reading ------------------------------------------------------

_SHT_SYMTAB, _SHT_DYNSYM, _SHT_INIT_ARRAY, _SHT_FINI_ARRAY, _SHT_PREINIT_ARRAY = 2, 11, 14, 15, 16
_SHN_UNDEF = 0
_ET_REL, _ET_DYN = 1, 3


def _sections(data: bytes):
    """(e_type, e_machine, [(name, type, offset, size, link, entsize)])."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise LinkError("not a 64-bit little-endian ELF file")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 58)
    if e_shentsize != 64 or e_shoff + e_shnum * 64 > len(data) or e_shstrndx >= max(e_shnum, 1):
        raise LinkError("truncated ELF section table")
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * 64) for i in range(e_shnum)]
    _, _, _, _, str_off, str_size, *_ = raw[e_shstrndx]
    if str_off + str_size > len(data):
        raise LinkError("truncated ELF section names")
    out = []
    for name, typ, _flags, _addr, off, size, link_, _info, _align, entsize in raw:
        if typ != 8 and off + size > len(data):          # SHT_NOBITS has no file bytes
            raise LinkError("truncated ELF section")
        end = data.find(b"\0", str_off + name)
        out.append((data[str_off + name:end].decode("latin-1"), typ, off, size, link_, entsize))
    return e_type, e_machine, out


def _symbols(data: bytes, sections, table_type: int):
    """(name, section index, size) of every symbol of the SYMTAB/DYNSYM section."""
    out = []
    for _name, typ, off, size, link_, entsize in sections:
        if typ != table_type:
            continue
        if entsize != 24 or link_ >= len(sections):
            raise LinkError("malformed ELF symbol table")
        _, _, str_off, str_size, _, _ = sections[link_]
        for i in range(1, size // 24):
            st_name, _info, _other, st_shndx, _value, st_size = struct.unpack_from(
                "<IBBHQQ", data, off + i * 24)
            if st_name >= str_size:
                raise LinkError("malformed ELF symbol name")
            end = data.find(b"\0", str_off + st_name)
            out.append((data[str_off + st_name:end].decode("latin-1"), st_shndx, st_size))
    return out


def undefined_symbols(obj: bytes) -> list[str]:
    """The symbols a relocatable object needs from outside (sorted)."""
    e_type, _, sections = _sections(obj)
    if e_type != _ET_REL:
        raise LinkError("not a relocatable object")
    names = {n for n, shndx, _ in _symbols(obj, sections, _SHT_SYMTAB)
             if shndx == _SHN_UNDEF and n and n != "_GLOBAL_OFFSET_TABLE_"}
    return sorted(names)


def defined_symbols(obj: bytes) -> set[str]:
    """The named symbols a relocatable object defines (global or local)."""
    e_type, _, sections = _sections(obj)
    if e_type != _ET_REL:
        raise LinkError("not a relocatable object")
    return {n for n, shndx, _ in _symbols(obj, sections, _SHT_SYMTAB) if shndx != _SHN_UNDEF and n}


def check_library(data: bytes, imports: list[str] | None = None,
                  functions: list[str] = ()) -> None:
    """Raises LinkError unless `data` is a shared library of this machine that
    needs no symbol from outside and runs no code when loaded; with `imports`,
    unless its import table has exactly that many slots and it exports every
    symbol of `functions`."""
    e_type, e_machine, sections = _sections(data)
    if e_type != _ET_DYN or e_machine != _ELF_MACHINE.get(_arch()):
        raise LinkError("not a shared library for this machine")
    for name, typ, *_ in sections:
        if typ in (_SHT_INIT_ARRAY, _SHT_FINI_ARRAY, _SHT_PREINIT_ARRAY) or name in (
                ".init", ".fini", ".ctors", ".dtors", ".interp"):
            raise LinkError(f"the library has an initializer section ({name})")
    symbols = _symbols(data, sections, _SHT_DYNSYM)
    undefined = [n for n, shndx, _ in symbols if shndx == _SHN_UNDEF and n]
    if undefined:
        raise LinkError("the library needs symbols from outside: " + ", ".join(undefined[:8]))
    if imports is not None:
        defined = {n: size for n, shndx, size in symbols if shndx != _SHN_UNDEF}
        if defined.get(IMPORTS_SYMBOL) != 8 * max(len(imports), 1):
            raise LinkError("the import table does not match the metadata")
        missing = [f for f in functions if f not in defined]
        if missing:
            raise LinkError(f"the library lacks {missing[0]}")


# --- linking --------------------------------------------------------------------------

def _trampolines(names: list[str]) -> str:
    """Assembly: `name: jmp *__msmlir_imports[i]` for each name (hidden), and
    the zeroed table, exported."""
    arch = _arch()
    t = "@" if arch == "x86_64" else "%"      # (gas type prefix of the ISA)
    size = 8 * max(len(names), 1)
    lines = ["\t.text"]
    for i, n in enumerate(names):
        lines += ["\t.p2align 4", f"\t.globl {n}", f"\t.hidden {n}", f"\t.type {n},{t}function",
                  f"{n}:"]
        if arch == "x86_64":
            lines.append(f"\tjmp *(.Lmsmlir_imports+{8 * i})(%rip)")
        else:
            lines += [f"\tadrp x16, .Lmsmlir_imports+{8 * i}",
                      f"\tldr x16, [x16, :lo12:.Lmsmlir_imports+{8 * i}]",
                      "\tbr x16"]
    lines += ["\t.data", "\t.p2align 3", f"\t.globl {IMPORTS_SYMBOL}",
              f"\t.type {IMPORTS_SYMBOL},{t}object", f"\t.size {IMPORTS_SYMBOL},{size}",
              f"{IMPORTS_SYMBOL}:", ".Lmsmlir_imports:", f"\t.zero {size}",
              f'\t.section .note.GNU-stack,"",{t}progbits', ""]
    return "\n".join(lines)


def _valid_symbol(name: str) -> bool:
    return bool(name) and all(c.isalnum() or c in "_.$" for c in name) and not name[0].isdigit()


def link(obj_path, out_path: str, workdir: str) -> list[str]:
    """Links the object at `obj_path` (or the objects of a list of paths, e.g.
    the parts compiled in parallel, runtime/parallel_compile.py) into the
    shared library `out_path`; returns the import names, in table order: the
    symbols no object defines. Raises LinkError."""
    objs = [obj_path] if isinstance(obj_path, str) else list(obj_path)
    needed: set[str] = set()
    defined: set[str] = set()
    for path in objs:
        with open(path, "rb") as f:
            obj = f.read()
        needed.update(undefined_symbols(obj))
        if len(objs) > 1:
            defined |= defined_symbols(obj)
    imports = sorted(needed - defined)
    bad = [n for n in imports if not _valid_symbol(n)]
    if bad:
        raise LinkError(f"unexpected symbol names: {bad[:4]}")
    data = [n for n in imports if n.startswith(DATA_IMPORT_PREFIXES)]
    if data:
        raise LinkError(f"the code reads data symbols ({', '.join(data[:3])}...: MPI's handles, a "
                        f"group's communicator cell), which a trampoline cannot stand for; graphs "
                        f"with collectives are compiled in process and not stored")
    table = os.path.join(workdir, "imports.o")
    try:
        with open(table, "wb") as f:
            f.write(llvm_codegen.assemble(_trampolines(imports)))
    except llvm_codegen.CodegenError as e:
        raise LinkError(f"the import table did not assemble: {e}") from None
    linker_cmd = _linker()
    if linker_cmd is None:
        raise LinkError("no linker (ld or cc) to link with")
    cmd = [*linker_cmd, "-o", out_path, *objs, table]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired) as e:
        raise LinkError(f"{cmd[0]} failed: {e}") from None
    if r.returncode != 0:
        raise LinkError(f"{' '.join(cmd)} failed: {r.stderr.strip()[:2000]}")
    return imports


# --- loading --------------------------------------------------------------------------

def load(path: str, imports: list[str], provided: dict[str, int]) -> ctypes.CDLL:
    """dlopens a library made by `link` (RTLD_LOCAL) and fills its import table
    with the addresses linker.resolve gives for `imports` (UnresolvedSymbolError
    when one is not allowed)."""
    addresses = linker.resolve(imports, provided)
    lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
    table = ctypes.cast(lib[IMPORTS_SYMBOL], ctypes.c_void_p).value
    slots = (ctypes.c_void_p * max(len(imports), 1)).from_address(table)
    for i, n in enumerate(imports):
        slots[i] = addresses[n]
    return lib


def function_address(lib: ctypes.CDLL, symbol: str) -> int:
    try:
        return ctypes.cast(lib[symbol], ctypes.c_void_p).value
    except AttributeError:
        raise LinkError(f"the library has no function {symbol}") from None
