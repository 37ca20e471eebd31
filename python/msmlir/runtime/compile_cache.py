"""The persistent compile cache: compiled graphs kept on disk across processes.

On when `set_context(enable_compile_cache=True, compile_cache_path=DIR)`
(MindSpore's names) or `MSMLIR_COMPILE_CACHE=DIR` in the environment. Entries
live in `DIR/msmlir-v<FORMAT>/`:

* `<key>.json`: the metadata the runtime needs (public functions and their
  signatures, written-back results, check sites, the import names, kernel
  statistics) and the SHA-256 of the library it names;
* `<sha256>.so`: the compiled code, a shared library made by
  shared_object.py (content-addressed, so concurrent writers of one graph
  write the same file).

The key (msmlir.compiler) is a hash of the graph's mindir text (with its
locations: they appear in run-time error messages), the pipeline options,
the optimization level, and `stamp()`: msmlir's version and the hash of its
sources (passes included), the MLIR wheel, the host CPU and the `MSMLIR_*`
environment variables that change code generation.

Safety: both directories must be owned by the user and not writable by group
or others (anyone who can write there could plant code); otherwise the cache
is refused with `CompileCacheError` (set_context) or a warning (environment
variable) and nothing is read or written. Files are written to a private
temporary directory and renamed into place (atomic); a loaded entry is checked
(format, key, stamp, owner and mode, the library's hash, an ELF library that
needs no outside symbol and runs no code when loaded) before dlopen, and one
that fails is removed and recompiled with a `CompileCacheWarning`. Graphs with
JIT Fallback host callbacks are never stored (the callbacks exist only in the
process that built them). The total size is bounded (`MSMLIR_COMPILE_CACHE_MAX_MB`,
1024 by default): after each store the least recently used entries are removed.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import stat
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

FORMAT = 1
DEFAULT_MAX_BYTES = 1024 << 20
_STALE_S = 3600            # temporary directories / orphan libraries older than this are removed

__all__ = ["CompileCacheError", "CompileCacheWarning", "configure", "active", "stamp",
           "DiskCache", "check_directory"]


class CompileCacheError(RuntimeError):
    """The compile cache directory cannot be used safely."""


class CompileCacheWarning(RuntimeWarning):
    """A compile cache entry was unusable (recompiled), or the cache was turned off."""



_LOCK = threading.Lock()
_CONFIG: dict = {"path": None}           # set_context's directory (None: off)
_CACHES: dict = {}                       # directory -> DiskCache
_WARNED: set = set()


def _env_path() -> str | None:
    v = os.environ.get("MSMLIR_COMPILE_CACHE", "").strip()
    return None if v in ("", "0", "false", "off") else v


def max_bytes() -> int:
    v = os.environ.get("MSMLIR_COMPILE_CACHE_MAX_MB", "").strip()
    try:
        return int(float(v) * (1 << 20)) if v else DEFAULT_MAX_BYTES
    except ValueError:
        return DEFAULT_MAX_BYTES


def _check_dir(path: str, what: str) -> None:
    try:
        st = os.lstat(path)
    except OSError as e:
        raise CompileCacheError(f"msmlir compile cache: {what} {path!r} cannot be used: {e}") from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise CompileCacheError(f"msmlir compile cache: {what} {path!r} is not a directory "
                                f"(symbolic links are refused)")
    if st.st_uid != os.getuid():
        raise CompileCacheError(
            f"msmlir compile cache: {what} {path!r} is owned by uid {st.st_uid}, not by this "
            f"user (uid {os.getuid()}): refused, another user could plant code there; use a "
            f"directory of your own")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CompileCacheError(
            f"msmlir compile cache: {what} {path!r} is writable by group or others (mode "
            f"{stat.S_IMODE(st.st_mode):o}): refused, they could plant code there; "
            f"`chmod go-w` it or use another directory")
    if not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK | os.X_OK):
        raise CompileCacheError(f"msmlir compile cache: {what} {path!r} is read-only: refused "
                                f"(compiled graphs could not be stored)")


def check_directory(path: str) -> str:
    """Creates (mode 0700) and checks the cache directory `path` and its
    entry directory; returns the entry directory. Raises CompileCacheError."""
    path = os.path.abspath(os.path.expanduser(str(path)))
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as e:
        raise CompileCacheError(f"msmlir compile cache: cannot create {path!r}: {e}") from None
    _check_dir(path, "directory")
    entries = os.path.join(path, f"msmlir-v{FORMAT}")
    try:
        os.mkdir(entries, 0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise CompileCacheError(f"msmlir compile cache: cannot create {entries!r}: {e}") from None
    _check_dir(entries, "directory")
    return entries


def configure(enabled: bool, path) -> None:
    """set_context(enable_compile_cache=..., compile_cache_path=...): checks the
    directory at once when enabled (CompileCacheError when it is refused)."""
    if enabled:
        check_directory(path)
    with _LOCK:
        _CONFIG["path"] = os.path.abspath(os.path.expanduser(str(path))) if enabled else None


def active() -> "DiskCache | None":
    """The disk cache in effect (set_context first, then MSMLIR_COMPILE_CACHE),
    or None. A directory that fails the checks turns it off with a warning."""
    path = _CONFIG["path"] or _env_path()
    if path is None:
        return None
    try:
        entries = check_directory(path)
    except CompileCacheError as e:
        if path not in _WARNED:
            _WARNED.add(path)
            warnings.warn(f"{e}; the compile cache is off", CompileCacheWarning, stacklevel=3)
        return None
    with _LOCK:
        cache = _CACHES.get(entries)
        if cache is None:
            cache = _CACHES[entries] = DiskCache(entries)
        return cache


# --- the stamp: what else a compiled graph depends on ---------------------------------

_STAMP: list = []
# MSMLIR_* variables that do not change generated code
_ENV_IGNORED = {"MSMLIR_TIMING", "MSMLIR_COMPILE_CACHE", "MSMLIR_COMPILE_CACHE_MAX_MB",
                "MSMLIR_JIT_DEBUG", "MSMLIR_DEBUG", "MSMLIR_CPU_MALLOPT"}


def _file_stamp(path: Path) -> str:
    try:
        st = path.stat()
        return f"{path.name}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return f"{path.name}:-"


def _cpu() -> str:
    info = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key = line.split(":", 1)[0].strip()
                if key in ("model name", "flags", "Features", "CPU part", "CPU implementer"):
                    info += line
                elif not line.strip() and info:
                    break
    except OSError:
        pass
    return platform.machine() + "|" + hashlib.sha256(info.encode()).hexdigest()


def _compute_stamp() -> str:
    import mlir

    from .. import _native
    h = hashlib.sha256()
    h.update(f"format {FORMAT}\n".encode())
    # (the package's version, read without importing the package root from layer 1;
    # importlib.metadata would cost 30 ms)
    h.update(f"msmlir {getattr(sys.modules.get('msmlir'), '__version__', '?')}\n".encode())
    # msmlir's sources (passes included): a changed pass must not reuse old code
    import msmlir.passes
    pkg = Path(__file__).resolve().parents[1]
    for root in [pkg, *[Path(p).resolve() for p in msmlir.passes.__path__]]:
        h.update(str(root).encode())
        for f in sorted(root.rglob("*.py")):      # by size and mtime, as make does
            h.update(str(f.relative_to(root)).encode() + _file_stamp(f).encode())
    try:
        h.update(_file_stamp(_native._library_path()).encode())
    except ImportError:
        pass
    mlir_root = Path(list(mlir.__path__)[0])
    for lib in sorted((mlir_root / "_mlir_libs").glob("*.so*")):
        h.update(_file_stamp(lib).encode())
    h.update(_cpu().encode())
    env = sorted((k, v) for k, v in os.environ.items()
                 if k.startswith("MSMLIR_") and k not in _ENV_IGNORED)
    h.update(repr(env).encode())
    return h.hexdigest()


def stamp() -> str:
    """The hash of everything besides the graph and its options that compiled
    code depends on (computed once per process)."""
    if not _STAMP:
        _STAMP.append(_compute_stamp())
    return _STAMP[0]


# --- the entries ----------------------------------------------------------------------

def _private_file_ok(fd: int) -> bool:
    st = os.fstat(fd)
    return (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _read_private(path: str) -> bytes | None:
    """The file's bytes (None when it does not exist); CompileCacheError when it
    is not a regular file of ours that only we can write."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CompileCacheError(f"cannot open {path}: {e}") from None
    try:
        if not _private_file_ok(fd):
            raise CompileCacheError(f"{path} is not a file of this user that only it can write")
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _write_private(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


class DiskCache:
    """One checked entry directory (see the module docstring)."""

    def __init__(self, path: str):
        self.path = path

    def _meta_path(self, key: str) -> str:
        return os.path.join(self.path, key + ".json")

    def temp_dir(self) -> str:
        """A private directory for one store (removed by `store`/`discard`)."""
        return tempfile.mkdtemp(prefix=".tmp-", dir=self.path)

    @staticmethod
    def discard(tmp: str) -> None:
        shutil.rmtree(tmp, ignore_errors=True)

    def load(self, key: str):
        """(metadata, library path, library bytes) of a valid entry, or None.
        An invalid entry is removed with a CompileCacheWarning."""
        meta_path = self._meta_path(key)
        try:
            raw = _read_private(meta_path)
            if raw is None:
                return None
            meta = json.loads(raw)
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                raise CompileCacheError("unknown format")
            if meta.get("key") != key or meta.get("stamp") != stamp():
                raise CompileCacheError("written for another graph or another msmlir build")
            name = meta.get("library", "")
            if not (isinstance(name, str) and name.endswith(".so") and os.sep not in name):
                raise CompileCacheError("bad library name")
            lib_path = os.path.join(self.path, name)
            data = _read_private(lib_path)
            if data is None:
                # evicted by another process between the two reads: a plain miss
                self._remove(meta_path)
                return None
            if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
                raise CompileCacheError("the library's hash does not match (truncated or "
                                        "modified)")
        except (CompileCacheError, ValueError, TypeError, OSError) as e:
            self.invalid(key, e)
            return None
        try:
            os.utime(meta_path)          # least recently used: by the metadata's mtime
        except OSError:
            pass
        return meta, lib_path, data

    def invalid(self, key: str, reason) -> None:
        """Removes an unusable entry, with a warning."""
        warnings.warn(f"msmlir compile cache: entry {key[:16]}... in {self.path} is unusable "
                      f"({reason}); it is removed and the graph recompiled",
                      CompileCacheWarning, stacklevel=4)
        self._remove(self._meta_path(key))

    @staticmethod
    def _remove(path: str) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass

    def store(self, key: str, meta: dict, tmp: str, library: str) -> None:
        """Publishes the library built at `library` (inside `tmp`) and its
        metadata atomically, then evicts down to the size bound."""
        try:
            with open(library, "rb") as f:
                data = f.read()
            sha = hashlib.sha256(data).hexdigest()
            name = sha + ".so"
            # (replaced even when present: a damaged file of that name is repaired)
            staged = os.path.join(tmp, "staged.so")
            _write_private(staged, data)
            os.replace(staged, os.path.join(self.path, name))
            meta = dict(meta, format=FORMAT, key=key, stamp=stamp(), library=name, sha256=sha,
                        created=time.time())
            staged = os.path.join(tmp, "staged.json")
            _write_private(staged, json.dumps(meta, sort_keys=True).encode())
            os.replace(staged, self._meta_path(key))
        finally:
            self.discard(tmp)
        self.evict(max_bytes())

    def evict(self, limit: int) -> None:
        """Removes least recently used entries until the directory holds at most
        `limit` bytes; also stale temporary directories and orphan libraries."""
        now = time.time()
        metas, libs, total = [], {}, 0
        try:
            names = os.listdir(self.path)
        except OSError:
            return
        for n in names:
            p = os.path.join(self.path, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if n.startswith(".tmp-"):
                if now - st.st_mtime > _STALE_S:
                    shutil.rmtree(p, ignore_errors=True)
                continue
            if n.endswith(".json"):
                metas.append((st.st_mtime, p, st.st_size))
            elif n.endswith(".so"):
                libs[n] = (p, st.st_size, st.st_mtime)
            else:
                continue
            total += st.st_size
        used = {}
        for _, p, _ in metas:
            try:
                with open(p) as f:
                    used[p] = json.load(f).get("library")
            except (OSError, ValueError, AttributeError):
                used[p] = None
        referenced = set(used.values())
        for n, (p, size, mtime) in list(libs.items()):
            if n not in referenced and now - mtime > _STALE_S:
                self._remove(p)
                total -= size
                del libs[n]
        metas.sort()
        for _, p, size in metas:
            if total <= limit:
                break
            self._remove(p)
            total -= size
            lib = used.get(p)
            if lib in libs:
                self._remove(libs[lib][0])
                total -= libs.pop(lib)[1]
