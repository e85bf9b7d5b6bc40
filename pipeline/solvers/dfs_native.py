"""The ``dfs`` kernel as machine code that runs without importing numba.

Importing numba and loading a function from numba's own cache costs about half a second per
process (numba sets up its typing registries; that is most of a one-puzzle ``count`` and the part
of a batch that two workers cannot share). The kernel's functions
(:mod:`pipeline.solvers.dfs_kernel`) allocate nothing and raise nothing, so numba compiles them,
once per machine, into one object file that needs nothing but ``memset``; this module keeps that
file in :func:`cache_dir`, under a name hashing everything it depends on (the kernel's source,
numba's and llvmlite's versions, the CPU as ``/proc/cpuinfo`` describes it), and maps it into the
process with :mod:`pipeline.solvers.elf_loader` on x86-64 Linux, or elsewhere with llvmlite's MCJIT
(llvmlite is numba's own code generator; importing its 180 MB library costs about 0.04 s, which
the object loader saves each process). The calls go through ctypes, which releases the GIL while
the search runs.

When the object cannot be made (a numba whose code needs its runtime after all), :func:`load`
falls back to calling the numba functions themselves, with the same arguments.
"""
from __future__ import annotations

import ctypes
import glob
import hashlib
import importlib.util
import json
import os
import platform
import shlex
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Protocol

import numpy as np

from pipeline.core.errors import PipelineError
from pipeline.solvers import elf_loader

__all__ = ["FINISHED", "CACHE_ENV", "KernelCalls", "NativeKernel", "NumbaKernel", "cache_dir", "compile_object",
           "cached_object", "host_fingerprint", "kernel_key", "load", "load_machine_code", "start_problem",
           "is_cached", "table_args", "uncached_problem"]

#: :func:`pipeline.solvers.dfs_kernel.search`'s "finished" (kept here: that module imports numba).
FINISHED = 0
#: Environment variable naming the cache directory ("" or "none": keep nothing on disk).
CACHE_ENV = "SUDOKU_PIPELINE_CACHE"
_MAGIC = b"sudoku-pipeline dfs kernel 1\n"
#: Symbols the object may leave to the process (the C library).
_ALLOWED_EXTERNALS = frozenset({"memset", "memcpy", "memmove"})
_P, _I, _U = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64
_TABLES = (_P, _I, _P, _P, _I, _I, _P, _I, _P, _I, _U)
#: ctypes argument types of the two entry points, in :func:`pipeline.solvers.dfs_kernel.entry_points`' order.
SIGNATURES = {
    "search": (_P, _P, _P, _I, _P, _I, _P, *_TABLES, _I, _I, _I, _P, _P, _P),
    "search_many": (_P, _I, *_TABLES, _I, _I, _P, _P, _P, _P, _I, _P, _P, _P, _P, _P, _P, _P),
}
_KERNEL_SOURCE = Path(__file__).with_name("dfs_kernel.py")
_LOCK = threading.Lock()
_LOADED: KernelCalls | None = None
#: Objects of one kernel kept in the cache: each kernel version, numba or CPU leaves its own, and
#: several installs (venvs, versions) may share one cache, so the least recently used go past this.
KEEP_OBJECTS = 6
#: An object unused this long (seconds) goes when its kernel writes a new one; a used one is
#: touched at most once a day, so loading costs no write.
STALE_AFTER = 30 * 86400
_TOUCH_AFTER = 86400
#: Seconds a kernel takes to compile, in words (numba and LLVM on this project's machines: dfs
#: 5-15 s, dfsrules 15-20 s), for the notes that say a compile is under way or would repeat.
COMPILE_WORDS = "5-20 s"
#: Called with one line (no ``note:``) when a kernel starts compiling; None says nothing. The
#: command line sets it (:mod:`pipeline.cli.args`), so a first run's pause is explained.
on_compile: Callable[[str], None] | None = None
_KEYS: dict[tuple, str] = {}


def cache_dir() -> Path | None:
    """Where the compiled kernel is kept: ``$SUDOKU_PIPELINE_CACHE``, else the user's cache
    directory (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/sudoku-pipeline``; None keeps nothing.

    Returns
    -------
    Path or None
        None for ``none``, and when there is no home folder to find (``HOME`` unset and no
        passwd entry, as for a container's arbitrary uid) and no ``$XDG_CACHE_HOME``.

    Raises
    ------
    PipelineError
        ``$SUDOKU_PIPELINE_CACHE`` starts with a ``~`` that names no home folder here.
    """
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        if chosen.strip().lower() in ("", "none"):
            return None
        try:
            return Path(chosen).expanduser()
        except RuntimeError:   # '~name' of no user here, or '~' without a home
            raise PipelineError(f"{CACHE_ENV}: {chosen!r} names no home folder here: give a folder, "
                                f"or none to keep no compiled kernel") from None
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):   # the XDG spec: a relative path is ignored
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:
            return None
    return Path(base) / "sudoku-pipeline"


def _package_fingerprint(name: str, files: tuple[str, ...]) -> bytes:
    """The bytes of a package's version files, read without importing it (numba's import is the cost)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        return b""
    folder = Path(spec.origin).parent
    for file in files:
        try:
            return (folder / file).read_bytes()
        except OSError:
            continue
    return spec.origin.encode()


def kernel_key(source: Path | tuple[Path, ...] | None = None) -> str:
    """A name for the compiled kernel: a hash of what the machine code depends on (the kernel's
    sources, numba's and llvmlite's versions, the machine and its CPU), found without LLVM where
    the CPU describes itself (:func:`host_fingerprint`).

    Parameters
    ----------
    source : Path or tuple of Path, optional
        The kernel's source modules (default: :mod:`pipeline.solvers.dfs_kernel`'s; the
        ``dfsrules`` kernel passes its own).

    Returns
    -------
    str
        24 hex digits.
    """
    sources = (source,) if isinstance(source, Path) else source or (_KERNEL_SOURCE,)
    try:   # the same files, unchanged since: the same key (auto asks before the kernel loads)
        stamp = tuple((str(path), (status := path.stat()).st_mtime_ns, status.st_size) for path in sources)
    except OSError:
        stamp = None
    if stamp is not None and stamp in _KEYS:
        return _KEYS[stamp]
    key = _kernel_key(sources)
    if stamp is not None:
        _KEYS[stamp] = key
    return key


def _kernel_key(sources: tuple[Path, ...]) -> str:
    import llvmlite

    host = host_fingerprint()
    if host is None:   # LLVM's own view of the CPU
        llvm = _llvm()
        host = "\n".join((llvm.get_process_triple(), llvm.get_host_cpu_name(),
                          llvm.get_host_cpu_features().flatten())).encode()
    parts = [b"".join(path.read_bytes() for path in sources), _package_fingerprint("numba", ("_version.py", "__init__.py")),
             llvmlite.__version__.encode(), host]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:24]


#: /proc/cpuinfo fields that name a CPU and what it can run (x86 and Arm), not its clock or core.
_CPU_FIELDS = frozenset({"vendor_id", "cpu family", "model", "model name", "stepping", "flags", "CPU implementer",
                         "CPU architecture", "CPU variant", "CPU part", "CPU revision", "Features", "isa", "uarch"})


def host_fingerprint() -> bytes | None:
    """The machine and CPU as the system describes them (``/proc/cpuinfo``'s first processor:
    vendor, model, stepping, feature flags), or None where it does not: then LLVM is asked.

    Returns
    -------
    bytes or None
    """
    text = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            while "\n\n" not in text and len(text) < (1 << 20):   # the first processor's block only
                chunk = info.read(1 << 14)
                if not chunk:
                    break
                text += chunk
    except OSError:
        return None
    first = text.split("\n\n", 1)[0]
    fields = sorted(line.split(":", 1)[0].strip() + ":" + line.split(":", 1)[1].strip()
                    for line in first.splitlines() if ":" in line and line.split(":", 1)[0].strip() in _CPU_FIELDS)
    if not fields:
        return None
    return "\n".join([sys.platform, platform.machine(), *fields]).encode()


def _llvm() -> Any:
    """``llvmlite.binding``, initialised for the host (imported only to compile, or to load an
    object that :mod:`pipeline.solvers.elf_loader` does not take)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm


def load_machine_code(body: bytes, symbols: dict[str, str]) -> tuple[Any, dict[str, int]]:
    """Map a compiled kernel object into the process: with :mod:`pipeline.solvers.elf_loader`
    where it takes the object (x86-64 Linux; no LLVM loaded), else through llvmlite's MCJIT.

    Parameters
    ----------
    body : bytes
        The object file.
    symbols : dict of str to str
        ``{entry point: symbol}``.

    Returns
    -------
    tuple
        The owner of the code (keep it while the code may run) and ``{entry point: address}``.

    Raises
    ------
    KernelUnavailable
        An entry point the object does not define.
    """
    if elf_loader.supported():
        try:
            loaded = elf_loader.load_object(body, symbols.values())
            return loaded, {name: loaded.addresses[symbol] for name, symbol in symbols.items()}
        except (elf_loader.ObjectRefused, OSError, ValueError):
            pass   # LLVM's loader takes what this one does not
    llvm = _llvm()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), _target_machine(llvm))
    engine.add_object_file(llvm.ObjectFileRef.from_data(body))
    engine.finalize_object()
    addresses = {name: engine.get_function_address(symbol) for name, symbol in symbols.items()}
    missing = [name for name, address in addresses.items() if not address]
    if missing:
        raise KernelUnavailable(f"the compiled kernel has no {', '.join(missing)}")
    return engine, addresses


class KernelUnavailable(RuntimeError):
    """The kernel's machine code could not be made or loaded (the numba functions are used instead)."""


def _target_machine(llvm: Any):
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                                        opt=3, reloc="pic", codemodel="default")


def compile_object(llvm: Any, entries: dict | None = None) -> tuple[bytes, dict[str, str]]:
    """Compile the kernel's entry points (numba) into one object file for this machine.

    Every function but the entry points is made internal and unused code dropped, so the
    object needs nothing of numba's runtime; anything else it would need is refused.

    Parameters
    ----------
    llvm : module
        ``llvmlite.binding``, initialised for the host.
    entries : dict, optional
        ``{name: numba cfunc}`` to compile (default: :func:`pipeline.solvers.dfs_kernel.entry_points`).

    Returns
    -------
    tuple
        The object file's bytes and ``{entry point: symbol}``.

    Raises
    ------
    KernelUnavailable
        The code still calls something outside the C library.
    """
    if entries is None:
        from pipeline.solvers import dfs_kernel   # numba: only to compile

        entries = dfs_kernel.entry_points()
    machine = _target_machine(llvm)
    symbols: dict[str, str] = {}
    linked = None
    for name, entry in entries.items():
        module = llvm.parse_assembly(entry._library.get_llvm_str())
        symbols[name] = entry.native_name
        for function in module.functions:   # internal: each module's helpers stay its own once linked
            if not function.is_declaration and function.name != entry.native_name:
                function.linkage = "internal"
        for variable in module.global_variables:
            if not variable.is_declaration:
                variable.linkage = "internal"
        if linked is None:
            linked = module
        else:
            linked.link_in(module)
    assert linked is not None
    passes = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=3))
    manager = passes.getModulePassManager()
    manager.add_global_dead_code_eliminate_pass()
    manager.add_strip_dead_prototype_pass()
    manager.run(linked, passes)
    needed = sorted({f.name for f in linked.functions if f.is_declaration and not f.name.startswith("llvm.")}
                    - _ALLOWED_EXTERNALS)
    needed += [v.name for v in linked.global_variables if v.is_declaration]
    if needed:
        raise KernelUnavailable(f"the compiled dfs kernel needs {', '.join(needed[:5])} from numba's runtime")
    return machine.emit_object(linked), symbols


def _read_cached(path: Path, key: str, names: Any = None) -> tuple[bytes, dict[str, str]] | None:
    """The cached object and its symbols, or None when absent, for another key or damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    header_end = data.find(b"\n", len(_MAGIC))
    try:
        header = json.loads(data[len(_MAGIC):header_end])
        body = data[header_end + 1:]
        if (header_end < 0 or header.get("key") != key or hashlib.sha256(body).hexdigest() != header.get("sha256")
                or set(header.get("symbols", {})) != set(SIGNATURES if names is None else names)):
            return None
        symbols = {str(k): str(v) for k, v in header["symbols"].items()}
    except (ValueError, TypeError, AttributeError):
        return None
    _touch(path)
    return body, symbols


def _touch(path: Path) -> None:
    """Mark a cached object as used (its modification time), when the mark is a day old or more."""
    try:
        if time.time() - path.stat().st_mtime >= _TOUCH_AFTER:
            os.utime(path)
    except OSError:
        pass   # a read-only cache: the object is still used, only never pruned as fresh


def _write_cached(path: Path, key: str, body: bytes, symbols: dict[str, str]) -> None:
    """Keep the object for later processes (a temporary file renamed into place; best effort)."""
    header = json.dumps({"key": key, "sha256": hashlib.sha256(body).hexdigest(), "symbols": symbols}).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    except OSError:
        return   # a read-only home: every process compiles, as with numba's cache
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_MAGIC + header + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        return
    _prune(path, key)


def _prune(path: Path, key: str) -> None:
    """Remove this kernel's other objects that are stale or past the newest :data:`KEEP_OBJECTS`,
    and temporary files that a killed writer left (an hour old or more). Best effort.

    Parameters
    ----------
    path : Path
        The object just written, ``<prefix><key>.o``; its siblings with the same prefix are this
        kernel's other versions.
    key : str
        Its key.
    """
    prefix = path.name[:path.name.rfind(key)]
    now = time.time()
    try:
        entries = list(path.parent.glob(f"{glob.escape(prefix)}*"))
    except OSError:
        return
    siblings = []
    for other in entries:   # each entry alone: one that cannot be read or removed stops nothing else
        name = other.name[len(prefix):]
        is_object = len(name) == len(key) + 2 and name.endswith(".o") and _is_key(name[:-2])
        is_temporary = name.endswith(".tmp") and _is_key(name[:len(key)]) and name[len(key):].startswith(".o")
        if other.name == path.name or not (is_object or is_temporary):
            continue
        try:
            status = other.lstat()
            if not stat.S_ISREG(status.st_mode):   # a link or a folder under a kernel's name: not ours
                continue
            age = now - status.st_mtime
            if is_temporary:
                if age >= 3600:
                    other.unlink(missing_ok=True)
            else:
                siblings.append((age, other))
        except OSError:
            continue
    siblings.sort(key=lambda item: item[0])
    for rank, (age, other) in enumerate(siblings, start=1):   # the object just written is the newest
        if rank >= KEEP_OBJECTS or age >= STALE_AFTER:
            try:
                other.unlink(missing_ok=True)
            except OSError:
                continue


def _is_key(text: str) -> bool:
    """Whether ``text`` is a kernel key's form (lowercase hex digits)."""
    return bool(text) and all(ch in "0123456789abcdef" for ch in text)


def _pointer(array: np.ndarray, dtype: type) -> int:
    """The address of a C-contiguous array of ``dtype`` (anything else would be read as garbage)."""
    if array.dtype != dtype or not array.flags.c_contiguous:
        raise TypeError(f"dfs kernel: expected a C-contiguous {np.dtype(dtype)} array, got {array.dtype}")
    return array.ctypes.data


class KernelCalls(Protocol):
    """The kernel's two calls with numpy arguments, as :mod:`pipeline.solvers.dfs` makes them.

    ``search`` and ``search_many`` take and return what :mod:`pipeline.solvers.dfs_kernel`'s
    functions do, less the scratch arrays (made here).
    """

    FINISHED: int
    native: bool

    def search(self, stack, flags, origins, depth, found, tallies, peers, n_peers, units, cell_units, n_cell_units,
               full, limit, budget, pause_when_full, shares) -> int:
        """Resume a depth-first search; the depth to resume from, or ``FINISHED``.

        Parameters
        ----------
        stack, flags, origins, depth, found, tallies
            The search's state and outputs, as the kernel's ``search`` takes them (arrays
            updated in place).
        peers, n_peers, units, cell_units, n_cell_units, full
            The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
        limit, budget, pause_when_full
            When to stop (solutions), when to return (nodes) and whether to pause once ``found`` fills up.
        shares : numpy.ndarray
            ``(cells + 1,)`` ``int64``: the stack rows' shares of the tree, kept from one call to the
            next (the kernel's ``search``).
        """

    def search_many(self, masks, peers, n_peers, units, cell_units, n_cell_units, full, limit, budget, counts,
                    solutions, nodes, unfinished, total_budget) -> int:
        """Search every puzzle of ``masks``; the number searched (the first ones).

        Parameters
        ----------
        masks : numpy.ndarray
            ``(P, cells)`` ``uint64`` start states, one puzzle a row.
        peers, n_peers, units, cell_units, n_cell_units, full
            The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
        limit, budget
            Solutions to stop each puzzle at, and nodes each puzzle may visit.
        counts, solutions, nodes, unfinished : numpy.ndarray
            Outputs per puzzle, written in place, as the kernel's ``search_many`` fills them.
        total_budget : int
            Start no further puzzle once this many nodes were spent in this call.
        """


class NativeKernel:
    """The calls through the loaded machine code (ctypes)."""

    FINISHED = FINISHED
    native = True

    def __init__(self, body: bytes, symbols: dict[str, str]):
        self._code, addresses = load_machine_code(body, symbols)   # owns the code: kept as long as the calls
        calls = {name: ctypes.CFUNCTYPE(_I, *argtypes)(addresses[name]) for name, argtypes in SIGNATURES.items()}
        self._search, self._search_many = calls["search"], calls["search_many"]

    def search(self, stack, flags, origins, depth, found, tallies, peers, n_peers, units, cell_units, n_cell_units,
               full, limit, budget, pause_when_full, shares) -> int:
        """:func:`pipeline.solvers.dfs_kernel.search`, less its scratch arrays (made here).

        Parameters
        ----------
        stack, flags, origins, depth, found, tallies
            The search's state and outputs, as the kernel's ``search`` takes them (arrays
            updated in place).
        peers, n_peers, units, cell_units, n_cell_units, full
            The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
        limit, budget, pause_when_full
            When to stop (solutions), when to return (nodes) and whether to pause once ``found`` fills up.
        shares : numpy.ndarray
            ``(cells + 1,)`` ``int64``: the stack rows' shares of the tree, kept from one call to the
            next (the kernel's ``search``).
        """
        n_cells = stack.shape[1]
        queue, dirty = _search_scratch(n_cells, units.shape[0])
        return self._search(_pointer(stack, np.uint64), _pointer(flags, np.bool_), _pointer(origins, np.int64),
                            int(depth), _pointer(found, np.uint64), found.shape[0], _pointer(tallies, np.int64),
                            *table_args(peers, n_peers, units, cell_units, n_cell_units, n_cells, full),
                            int(limit), int(budget), int(bool(pause_when_full)), _pointer(queue, np.int64),
                            _pointer(dirty, np.bool_), _pointer(shares, np.int64))

    def search_many(self, masks, peers, n_peers, units, cell_units, n_cell_units, full, limit, budget, counts,
                    solutions, nodes, unfinished, total_budget) -> int:
        """:func:`pipeline.solvers.dfs_kernel.search_many`, less its scratch arrays (made here).

        Parameters
        ----------
        masks : numpy.ndarray
            ``(P, cells)`` ``uint64`` start states, one puzzle a row.
        peers, n_peers, units, cell_units, n_cell_units, full
            The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
        limit, budget
            Solutions to stop each puzzle at, and nodes each puzzle may visit.
        counts, solutions, nodes, unfinished : numpy.ndarray
            Outputs per puzzle, written in place, as the kernel's ``search_many`` fills them.
        total_budget : int
            Start no further puzzle once this many nodes were spent in this call.
        """
        n_puzzles, n_cells = masks.shape
        if not (counts.shape[0] == nodes.shape[0] == unfinished.shape[0] == solutions.shape[0] >= n_puzzles):
            raise ValueError("dfs kernel: output arrays shorter than the puzzles")
        scratch = _scratch(n_cells, units.shape[0])
        return self._search_many(_pointer(masks, np.uint64), n_puzzles,
                                 *table_args(peers, n_peers, units, cell_units, n_cell_units, n_cells, full),
                                 int(limit), int(budget), _pointer(counts, np.int64), _pointer(solutions, np.uint64),
                                 _pointer(nodes, np.int64), _pointer(unfinished, np.bool_), int(total_budget),
                                 *(a.ctypes.data for a in scratch))   # made here: their types are right


class NumbaKernel:
    """The same calls through numba's dispatch (when the machine code cannot be made)."""

    FINISHED = FINISHED
    native = False

    def __init__(self, reason: str):
        from pipeline.solvers import dfs_kernel

        self.reason = reason
        self._kernel = dfs_kernel

    def search(self, stack, flags, origins, depth, found, tallies, peers, n_peers, units, cell_units, n_cell_units,
               full, limit, budget, pause_when_full, shares) -> int:
        """:func:`pipeline.solvers.dfs_kernel.search`, less its scratch arrays (made here).

        Parameters
        ----------
        stack, flags, origins, depth, found, tallies
            The search's state and outputs, as the kernel's ``search`` takes them (arrays
            updated in place).
        peers, n_peers, units, cell_units, n_cell_units, full
            The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
        limit, budget, pause_when_full
            When to stop (solutions), when to return (nodes) and whether to pause once ``found`` fills up.
        shares : numpy.ndarray
            ``(cells + 1,)`` ``int64``: the stack rows' shares of the tree, kept from one call to the
            next (the kernel's ``search``).
        """
        queue, dirty = _search_scratch(stack.shape[1], units.shape[0])
        return self._kernel.search(stack, flags, origins, depth, found, tallies, peers, n_peers, units, cell_units,
                                   n_cell_units, full, limit, budget, pause_when_full, queue, dirty, shares)

    def search_many(self, masks, peers, n_peers, units, cell_units, n_cell_units, full, limit, budget, counts,
                    solutions, nodes, unfinished, total_budget) -> int:
        """:func:`pipeline.solvers.dfs_kernel.search_many`, less its scratch arrays (made here).

        Parameters
        ----------
        masks : numpy.ndarray
            ``(P, cells)`` ``uint64`` start states, one puzzle a row.
        peers, n_peers, units, cell_units, n_cell_units, full
            The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`).
        limit, budget
            Solutions to stop each puzzle at, and nodes each puzzle may visit.
        counts, solutions, nodes, unfinished : numpy.ndarray
            Outputs per puzzle, written in place, as the kernel's ``search_many`` fills them.
        total_budget : int
            Start no further puzzle once this many nodes were spent in this call.
        """
        return self._kernel.search_many(masks, peers, n_peers, units, cell_units, n_cell_units, full, limit, budget,
                                        counts, solutions, nodes, unfinished, total_budget,
                                        *_scratch(masks.shape[1], units.shape[0]))


def _search_scratch(n_cells: int, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """``search``'s scratch: queue, dirty."""
    return np.empty(n_cells + 1, dtype=np.int64), np.empty(n_units, dtype=np.bool_)


def _scratch(n_cells: int, n_units: int) -> tuple[np.ndarray, ...]:
    """``search_many``'s scratch: stack, flags, origins, tallies, queue, dirty, shares."""
    return (np.empty((n_cells + 1, n_cells), dtype=np.uint64), np.zeros((n_cells + 1, n_cells), dtype=np.bool_),
            np.empty(n_cells + 1, dtype=np.int64), np.zeros(3, dtype=np.int64), *_search_scratch(n_cells, n_units),
            np.zeros(n_cells + 1, dtype=np.int64))


def table_args(peers: np.ndarray, n_peers: np.ndarray, units: np.ndarray, cell_units: np.ndarray,
               n_cell_units: np.ndarray, n_cells: int, full: np.uint64) -> tuple:
    """A shape's tables as the entry points take them: pointers into the arrays, and sizes. The
    arrays must outlive the pointers' use (:attr:`pipeline.solvers.dfs.ShapeTables.native_args`
    keeps both together).

    Parameters
    ----------
    peers, n_peers, units, cell_units, n_cell_units : numpy.ndarray
        The shape's tables (:class:`pipeline.solvers.dfs.ShapeTables`), C-contiguous ``int64``.
    n_cells : int
        Cells of the shape.
    full : numpy.uint64
        The mask of every digit.

    Returns
    -------
    tuple
    """
    if not (peers.shape[0] == n_peers.shape[0] == cell_units.shape[0] == n_cell_units.shape[0] == n_cells):
        raise ValueError("dfs kernel: tables of another shape")
    return (_pointer(peers, np.int64), peers.shape[1], _pointer(n_peers, np.int64), _pointer(units, np.int64),
            units.shape[0], units.shape[1], _pointer(cell_units, np.int64), cell_units.shape[1],
            _pointer(n_cell_units, np.int64), n_cells, int(full))


def cached_object(name: str, key: str, names: Any, entries: Any = None) -> tuple[bytes, dict[str, str]]:
    """A kernel's object and symbols: from the cache (``<name>-kernel-<key>.o`` in :func:`cache_dir`),
    else compiled (numba and LLVM, a few seconds) and kept there for later processes.

    Parameters
    ----------
    name : str
        The kernel's name in the cache (``dfs``, ``dfsrules``).
    key : str
        :func:`kernel_key` of its sources.
    names : iterable of str
        Its entry points (a cached object must define exactly these).
    entries : callable, optional
        Gives ``{name: numba cfunc}`` to compile (default: the ``dfs`` kernel's).

    Returns
    -------
    tuple
        The object file's bytes and ``{entry point: symbol}``.
    """
    folder = cache_dir()
    path = None if folder is None else folder / f"{name}-kernel-{key}.o"
    cached = None if path is None else _read_cached(path, key, names)
    if cached is not None:
        return cached
    if on_compile is not None:
        kept = uncached_problem(name, key, names) is None
        on_compile(f"compiling the {name} search kernel for this machine ({COMPILE_WORDS}"
                   + (f"; later runs load it from {folder})" if kept else
                      f", and again on every run: {_unkept(folder)})"))
    body, symbols = compile_object(_llvm(), None if entries is None else entries())
    if path is not None:
        _write_cached(path, key, body, symbols)
    return body, symbols


def is_cached(name: str, key: str, names: Any = None) -> bool:
    """Is kernel ``name``'s object in the cache, usable (not a damaged file)?

    Parameters
    ----------
    name, key, names
        As :func:`uncached_problem`.

    Returns
    -------
    bool
    """
    folder = cache_dir()
    if folder is None:
        return False
    try:
        path = folder / f"{name}-kernel-{key}.o"
        return path.is_file() and _read_cached(path, key, names) is not None
    except OSError:
        return False


def uncached_problem(name: str, key: str, names: Any = None) -> str | None:
    """Why every process here would compile kernel ``name`` (its object not in the cache, and
    the cache unable to keep it), or None when one is cached or the cache can keep the next.

    Parameters
    ----------
    name : str
        The kernel's name in the cache (``dfs``, ``dfsrules``).
    key : str
        :func:`kernel_key` of its sources.
    names : iterable of str, optional
        Its entry points (default: the ``dfs`` kernel's), which a usable cached object defines.

    Returns
    -------
    str or None
    """
    if is_cached(name, key, names):
        return None
    folder = cache_dir()
    if folder is not None:
        try:
            existing = folder   # the folder, or the nearest folder above it that a write would create it in
            while not existing.exists() and existing.parent != existing:
                existing = existing.parent
            if existing.is_dir() and os.access(existing, os.W_OK | os.X_OK):
                return None
        except OSError:   # a folder above it that cannot be entered, a name too long: nothing is kept there
            pass
    return f"compiles its kernel on every run here (seconds a run): {_unkept(folder)}"


def _unkept(folder: Path | None) -> str:
    """Why the cache keeps nothing, and what keeps it (words for a note)."""
    if folder is None and CACHE_ENV not in os.environ:
        return f"no home folder to keep it in (HOME is not set): set {CACHE_ENV} to a writable folder"
    if folder is None:
        return f"{CACHE_ENV}={shlex.quote(os.environ.get(CACHE_ENV, ''))} keeps no compiled kernel"
    return f"the cache {folder} cannot be written (set {CACHE_ENV} to a writable folder)"


def start_problem() -> str | None:
    """Why the ``dfs`` kernel would compile on every run here (:func:`uncached_problem`), or None:
    loaded in this process, cached, or the cache can keep it.

    Returns
    -------
    str or None
    """
    return None if _LOADED is not None else uncached_problem("dfs", kernel_key(), SIGNATURES)


def _load_native() -> NativeKernel:
    return NativeKernel(*cached_object("dfs", kernel_key(), SIGNATURES))


def load() -> KernelCalls:
    """The kernel for this process: the cached machine code, compiled first when missing.

    The first call on a machine compiles with numba (a few seconds); later processes load the
    cached code in a few hundredths of a second. Without a usable object, numba's functions.

    Returns
    -------
    KernelCalls
    """
    global _LOADED
    with _LOCK:
        if _LOADED is None:
            try:
                _LOADED = _load_native()
            except Exception as e:   # whatever stops the machine code (an older llvmlite, a numba that
                # compiles differently): numba's own functions still search, only slower to load
                _LOADED = NumbaKernel(str(e))
        return _LOADED
