"""Load a compiled kernel's object file into this process without LLVM (x86-64 Linux).

The kernels' machine code (:mod:`pipeline.solvers.dfs_native`) is one relocatable ELF object
that needs nothing but ``memset``, ``memcpy`` and ``memmove``. Loading it through llvmlite's MCJIT
means importing ``llvmlite.binding``, which maps its 180 MB LLVM library: about 40 ms of every
process that solves a puzzle, a sixth of a one-puzzle ``solve``. Such an object needs only what
a static linker would do: lay its sections out in memory, point each relocation at its symbol,
and make the memory executable. This module does that, for the forms the kernels' code takes
(position-independent code of the default code model: PC-relative and PLT calls, absolute 64-bit
addresses, GOT loads). Anything else (another machine, writable or thread-local data, a relocation
of another kind, a symbol outside the C library) is refused with :class:`ObjectRefused`, and the
caller loads the object with llvmlite instead.
"""
from __future__ import annotations

import ctypes
import mmap
import platform
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["LoadedObject", "ObjectRefused", "load_object", "supported"]

_EM_X86_64 = 62
_ET_REL = 1
_SHT_SYMTAB, _SHT_RELA, _SHT_NOBITS, _SHT_REL = 2, 4, 8, 9
_SHF_WRITE, _SHF_ALLOC, _SHF_TLS = 0x1, 0x2, 0x400
_SHN_UNDEF, _SHN_ABS, _SHN_LORESERVE = 0, 0xFFF1, 0xFF00
_STB_GLOBAL, _STB_WEAK = 1, 2
#: x86-64 relocations the kernels' objects use (System V ABI, x86-64 supplement, table 4.9).
_R_64, _R_PC32, _R_PLT32, _R_GOTPCREL, _R_PC64, _R_GOTPCRELX, _R_REX_GOTPCRELX = 1, 2, 4, 9, 24, 41, 42
_GOT_LOADS = (_R_GOTPCREL, _R_GOTPCRELX, _R_REX_GOTPCRELX)
#: The C library functions an object may call.
C_FUNCTIONS = frozenset({"memset", "memcpy", "memmove"})
_STUB = 16   # bytes per call stub: jmp *slot(%rip), padded


class ObjectRefused(RuntimeError):
    """The object is not one this loader takes (the message says why); load it another way."""


def supported() -> bool:
    """Whether this process can load objects here: 64-bit x86 Linux with mmap and mprotect.

    Returns
    -------
    bool
    """
    return (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")
            and ctypes.sizeof(ctypes.c_void_p) == 8 and hasattr(mmap, "PROT_EXEC"))


@dataclass(frozen=True)
class _Section:
    name: str
    kind: int
    flags: int
    offset: int
    size: int
    link: int
    info: int
    align: int


@dataclass
class LoadedObject:
    """Machine code mapped into the process: ``addresses`` of the global symbols asked for. The
    mapping lives as long as this object (keep it while the code may run).

    Attributes
    ----------
    addresses : dict of str to int
        Each asked-for symbol's address.
    """

    addresses: dict[str, int]
    _memory: mmap.mmap


def _sections(body: bytes) -> list[_Section]:
    if len(body) < 64 or body[:4] != b"\x7fELF":
        raise ObjectRefused("not an ELF object")
    if body[4] != 2 or body[5] != 1:
        raise ObjectRefused("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", body, 16)
    if e_type != _ET_REL or e_machine != _EM_X86_64:
        raise ObjectRefused(f"not a relocatable x86-64 object (type {e_type}, machine {e_machine})")
    shoff, = struct.unpack_from("<Q", body, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", body, 58)
    if shentsize != 64 or shoff + shnum * 64 > len(body) or shstrndx >= shnum:
        raise ObjectRefused("damaged section table")
    raw = [struct.unpack_from("<IIQQQQIIQQ", body, shoff + 64 * i) for i in range(shnum)]
    names_at = raw[shstrndx][4]
    out = []
    for name, kind, flags, _addr, offset, size, link, info, align, _entsize in raw:
        if kind != _SHT_NOBITS and offset + size > len(body):
            raise ObjectRefused("a section lies outside the file")
        end = body.find(b"\0", names_at + name)
        out.append(_Section(body[names_at + name:end].decode("ascii", "replace"), kind, flags, offset, size, link,
                            info, max(align, 1)))
    return out


def _symbols(body: bytes, sections: list[_Section]) -> list[tuple[str, int, int, int]]:
    """``(name, binding, section index, value)`` of each entry of the symbol table."""
    tables = [s for s in sections if s.kind == _SHT_SYMTAB]
    if len(tables) != 1:
        raise ObjectRefused("expected one symbol table")
    table, strings = tables[0], sections[tables[0].link]
    out = []
    for at in range(table.offset, table.offset + table.size, 24):
        name, info, _other, shndx, value, _size = struct.unpack_from("<IBBHQQ", body, at)
        end = body.find(b"\0", strings.offset + name)
        out.append((body[strings.offset + name:end].decode("ascii", "replace"), info >> 4, shndx, value))
    return out


def _libc_address(name: str) -> int:
    address = ctypes.cast(getattr(ctypes.CDLL(None), name), ctypes.c_void_p).value
    if not address:
        raise ObjectRefused(f"the C library has no {name}")
    return address


def load_object(body: bytes, names: Iterable[str]) -> LoadedObject:
    """Map a relocatable x86-64 ELF object into executable memory and give the addresses of
    ``names`` (global symbols it defines).

    Parameters
    ----------
    body : bytes
        The object file.
    names : iterable of str
        Global symbols wanted.

    Returns
    -------
    LoadedObject

    Raises
    ------
    ObjectRefused
        A form this loader does not take, or a symbol missing: nothing is left mapped.
    """
    if not supported():
        raise ObjectRefused("this loader runs on x86-64 Linux only")
    try:
        return _load(body, names)
    except (IndexError, struct.error, OverflowError, ValueError, UnicodeError, KeyError) as e:
        raise ObjectRefused(f"a damaged object ({type(e).__name__}: {e})") from e


def _load(body: bytes, names: Iterable[str]) -> LoadedObject:
    sections = _sections(body)
    for s in sections:
        if s.kind == _SHT_REL:
            raise ObjectRefused(f"{s.name}: REL relocations")
        if s.flags & _SHF_ALLOC and s.flags & (_SHF_WRITE | _SHF_TLS) and s.size:
            raise ObjectRefused(f"{s.name}: writable or thread-local data")
    symbols = _symbols(body, sections)
    # lay the allocated sections out, then a GOT slot and a call stub per symbol that needs one
    place: dict[int, int] = {}
    size = 0
    for index, s in enumerate(sections):
        if s.flags & _SHF_ALLOC:
            size = -(-size // s.align) * s.align
            place[index] = size
            size += s.size
    relocations = []
    for s in sections:
        if s.kind == _SHT_RELA and s.info in place:
            for at in range(s.offset, s.offset + s.size, 24):
                offset, info, addend = struct.unpack_from("<QQq", body, at)
                relocations.append((place[s.info] + offset, info & 0xFFFFFFFF, info >> 32, addend))
    indirect = sorted({sym for _, kind, sym, _ in relocations
                       if kind in _GOT_LOADS or (kind == _R_PLT32 and symbols[sym][2] == _SHN_UNDEF)})
    size = -(-size // 16) * 16
    slot_of = {sym: size + 8 * k for k, sym in enumerate(indirect)}
    size += 8 * len(indirect)
    stub_of = {sym: size + _STUB * k for k, sym in enumerate(indirect)}
    size += _STUB * len(indirect)
    memory = mmap.mmap(-1, max(size, 1), prot=mmap.PROT_READ | mmap.PROT_WRITE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    try:
        for index, at in place.items():
            s = sections[index]
            if s.kind != _SHT_NOBITS:
                memory[at:at + s.size] = body[s.offset:s.offset + s.size]

        def address(sym: int) -> int:
            name, binding, shndx, value = symbols[sym]
            if shndx == _SHN_UNDEF:
                if name not in C_FUNCTIONS:
                    raise ObjectRefused(f"the object needs {name or 'an unnamed symbol'}")
                return _libc_address(name)
            if shndx == _SHN_ABS:
                return value
            if shndx >= _SHN_LORESERVE or shndx not in place:
                raise ObjectRefused(f"symbol {name!r} in section {shndx}, which is not loaded")
            return base + place[shndx] + value

        for sym in indirect:
            struct.pack_into("<Q", memory, slot_of[sym], address(sym))
            rel = slot_of[sym] - (stub_of[sym] + 6)   # jmp *rel32(%rip): ff 25 rel32
            memory[stub_of[sym]:stub_of[sym] + _STUB] = b"\xff\x25" + struct.pack("<i", rel) + b"\xcc" * (_STUB - 6)
        for at, kind, sym, addend in relocations:
            where = base + at
            if kind == _R_64:
                struct.pack_into("<Q", memory, at, (address(sym) + addend) & 0xFFFFFFFFFFFFFFFF)
                continue
            if kind == _R_PC64:
                struct.pack_into("<q", memory, at, address(sym) + addend - where)
                continue
            if kind in (_R_PC32, _R_PLT32):
                target = base + stub_of[sym] if sym in stub_of and kind == _R_PLT32 else address(sym)
            elif kind in _GOT_LOADS:
                target = base + slot_of[sym]
            else:
                raise ObjectRefused(f"relocation type {kind}")
            value = target + addend - where
            if not -(1 << 31) <= value < (1 << 31):
                raise ObjectRefused("a relocation out of 32-bit reach")
            struct.pack_into("<i", memory, at, value)
        wanted = {}
        for name in names:
            found = [sym for sym, (sym_name, binding, shndx, _) in enumerate(symbols)
                     if sym_name == name and binding in (_STB_GLOBAL, _STB_WEAK) and shndx != _SHN_UNDEF]
            if not found:
                raise ObjectRefused(f"the object defines no {name}")
            wanted[name] = address(found[0])
        _make_executable(base, len(memory))
    except BaseException:
        memory.close()
        raise
    return LoadedObject(wanted, memory)


def _make_executable(address: int, length: int) -> None:
    """Turn the mapping read-only and executable (``mprotect``): code is never writable and
    executable at once."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if libc.mprotect(ctypes.c_void_p(address), length, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
        raise ObjectRefused(f"mprotect refused executable memory (errno {ctypes.get_errno()})")
