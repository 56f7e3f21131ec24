"""The zip file format, as far as a Zarr store needs it: records in, records out.

Pure functions over bytes (no file handles): parse the end of central directory record
(with its ZIP64 variant) and the central directory into `ZipEntry` objects, find where an
entry's data starts from its local file header, and build the local headers, central
directory and end records that `zarrhpc.storage.zip.ZipStore` writes.

Follows PKWARE's APPNOTE.TXT 6.3 (sections 4.3 and 4.5): little-endian records; sizes and
offsets past `ZIP64_LIMIT`, or more than `COUNT_LIMIT` entries, use the ZIP64 extra field
(id 0x0001) and the ZIP64 end records. Like Python's ``zipfile`` we switch to ZIP64 at
2 GiB rather than 4 GiB, for readers that read the 32-bit fields as signed.

Every error is a `StoreError` naming the zip file, the entry when there is one, and the
offset or size that is wrong.
"""

from __future__ import annotations

import struct

from zarrhpc.errors import StoreError

__all__ = [
    "ZipEntry",
    "parse_directory",
    "recover_directory",
    "data_offset",
    "local_header",
    "central_directory",
    "end_records",
    "dos_datetime",
]

# (APPNOTE 4.3.7) local file header: signature, version needed, flags, method, time, date,
# crc-32, compressed size, uncompressed size, name length, extra length
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIG = 0x04034B50
# (4.3.12) central directory header: signature, version made by, version needed, flags,
# method, time, date, crc-32, compressed size, uncompressed size, name length, extra length,
# comment length, disk number start, internal attributes, external attributes, header offset
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_CENTRAL_SIG = 0x02014B50
# (4.3.16) end of central directory: signature, disk, disk of the directory, entries on
# this disk, entries in total, directory size, directory offset, comment length
_EOCD = struct.Struct("<IHHHHIIH")
_EOCD_SIG = 0x06054B50
# (4.3.14) zip64 end of central directory: signature, size of the rest, version made by,
# version needed, disk, disk of the directory, entries on this disk, entries, size, offset
_EOCD64 = struct.Struct("<IQHHIIQQQQ")
_EOCD64_SIG = 0x06064B50
# (4.3.15) zip64 end of central directory locator: signature, disk, offset, disks
_LOCATOR = struct.Struct("<IIQI")
_LOCATOR_SIG = 0x07064B50

ZIP64_LIMIT = (1 << 31) - 1  # sizes and offsets above this go to the ZIP64 extra field
COUNT_LIMIT = 0xFFFF - 1  # more entries than this need the ZIP64 end records
_MAX_COMMENT = 0xFFFF

FLAG_ENCRYPTED = 0x1
FLAG_DATA_DESCRIPTOR = 0x8
FLAG_UTF8 = 0x800

STORED, DEFLATED, BZIP2, LZMA, ZSTD = 0, 8, 12, 14, 93
METHOD_NAMES = {STORED: "stored", DEFLATED: "deflate", BZIP2: "bzip2", LZMA: "lzma", ZSTD: "zstd"}

_MADE_BY = (3 << 8) | 45  # UNIX, APPNOTE 4.5
_EXTERNAL_ATTR = 0o100644 << 16  # a regular file, rw-r--r--


class ZipEntry:
    """One entry of a zip archive, as its central directory describes it.

    ``offset`` is the position of the local header in the file (already corrected for
    data prepended to the archive); ``data_start`` is where the data begins, -1 until the
    local header has been read (see `data_offset`).
    """

    __slots__ = (
        "name", "raw_name", "flags", "method", "time", "date", "crc",
        "compressed_size", "size", "offset", "data_start",
    )

    def __init__(self, name: str, raw_name: bytes, flags: int, method: int, time: int,
                 date: int, crc: int, compressed_size: int, size: int, offset: int,
                 data_start: int = -1) -> None:
        self.name = name
        self.raw_name = raw_name
        self.flags = flags
        self.method = method
        self.time = time
        self.date = date
        self.crc = crc
        self.compressed_size = compressed_size
        self.size = size
        self.offset = offset
        self.data_start = data_start

    def span(self) -> int:
        """Bytes the entry occupies in the file (header and data; an estimate for foreign
        entries whose local extra field is not read yet)."""
        if self.data_start >= 0:
            return self.data_start - self.offset + self.compressed_size
        return _LOCAL.size + len(self.raw_name) + self.compressed_size

    def __repr__(self) -> str:
        return (f"ZipEntry({self.name!r}, method={self.method}, size={self.size}, "
                f"compressed_size={self.compressed_size}, offset={self.offset})")


class NoEndRecordError(StoreError):
    """The file has no end of central directory record at its end (not a zip, or a zip
    whose writer was killed before it wrote one)."""


def _corrupt(filename: str, what: str) -> StoreError:
    return StoreError(f"{filename}: corrupt zip file: {what}")


class _Region:
    """Bytes of a file read once (``data`` from file position ``base``), with positions
    outside them read on demand through ``read(offset, length) -> bytes``."""

    __slots__ = ("read", "base", "data", "size", "filename")

    def __init__(self, read, base: int, data: bytes, size: int, filename: str) -> None:
        self.read, self.base, self.data, self.size, self.filename = read, base, data, size, filename

    def bytes(self, start: int, stop: int) -> bytes:
        if start < 0 or stop > self.size or stop < start:
            raise _corrupt(self.filename, f"bytes {start}..{stop} lie outside the file "
                                          f"({self.size} bytes)")
        if start >= self.base and stop <= self.base + len(self.data):
            return self.data[start - self.base : stop - self.base]
        got = self.read(start, stop - start)
        if len(got) != stop - start:
            raise _corrupt(self.filename, f"the file ended at offset {start + len(got)} while "
                                          f"reading bytes {start}..{stop}")
        return got

    def unpack(self, st: struct.Struct, pos: int) -> tuple:
        return st.unpack(self.bytes(pos, pos + st.size))


def _find_eocd(buf: _Region, size: int, filename: str) -> tuple[int, tuple]:
    """Locate the end of central directory record: ``(position, fields)``."""
    if size >= _EOCD.size:
        fields = buf.unpack(_EOCD, size - _EOCD.size)
        if fields[0] == _EOCD_SIG and fields[7] == 0:
            return size - _EOCD.size, fields
    # A comment follows the record: search backwards for a signature whose comment
    # length reaches exactly the end of the file.
    start = max(0, size - _EOCD.size - _MAX_COMMENT)
    tail = buf.bytes(start, size)
    pos = tail.rfind(b"PK\x05\x06")
    while pos >= 0:
        if pos + _EOCD.size <= len(tail):
            fields = _EOCD.unpack_from(tail, pos)
            if pos + _EOCD.size + fields[7] == len(tail):
                return start + pos, fields
        pos = tail.rfind(b"PK\x05\x06", 0, pos)
    raise NoEndRecordError(
        f"{filename}: not a zip file (no end of central directory record in its last "
        f"{len(tail)} bytes)"
    )


def _directory_location(buf: _Region, size: int, filename: str) -> tuple[int, int, int, int]:
    """``(count, directory size, directory offset as recorded, where the records end)``."""
    eocd_pos, fields = _find_eocd(buf, size, filename)
    _, disk, cd_disk, _, count, cd_size, cd_offset, _ = fields
    end = eocd_pos
    loc_pos = eocd_pos - _LOCATOR.size
    if loc_pos >= 0 and buf.unpack(_LOCATOR, loc_pos)[0] == _LOCATOR_SIG:
        _, _, rec_offset, disks = buf.unpack(_LOCATOR, loc_pos)
        if disks > 1:
            raise StoreError(f"{filename}: multi-disk (split) zip archives are not supported")
        # Prefer the record right before the locator (prepended data shifts the offset).
        rec_pos = loc_pos - _EOCD64.size
        if rec_pos < 0 or buf.unpack(_EOCD64, rec_pos)[0] != _EOCD64_SIG:
            rec_pos = rec_offset
            if rec_pos + _EOCD64.size > loc_pos or (
                buf.unpack(_EOCD64, rec_pos)[0] != _EOCD64_SIG
            ):
                raise _corrupt(filename, f"no zip64 end of central directory record at "
                                         f"offset {rec_offset}")
        rec = buf.unpack(_EOCD64, rec_pos)
        disk, cd_disk, count, cd_size, cd_offset = rec[4], rec[5], rec[7], rec[8], rec[9]
        end = rec_pos
    if disk != 0 or cd_disk != 0:
        raise StoreError(f"{filename}: multi-disk (split) zip archives are not supported")
    return count, cd_size, cd_offset, end


def _zip64_extra(extra: bytes, fields: list[int], wanted: list[bool], filename: str,
                 where: str) -> None:
    """Replace the saturated ``fields`` by their values from a ZIP64 extra field."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + length]
        pos += 4 + length
        if tag != 0x0001:
            continue
        at = 0
        for i, need in enumerate(wanted):
            if not need:
                continue
            width = 4 if i == 3 else 8  # the disk number is 4 bytes, the rest 8
            if at + width > len(body):
                raise _corrupt(filename, f"{where}: zip64 extra field too short")
            fields[i] = int.from_bytes(body[at : at + width], "little")
            at += width
        return
    if any(wanted):
        raise _corrupt(filename, f"{where}: sizes or offset saturated but no zip64 extra field")


#: bytes at the end of a file that hold the end records (and a comment) of a zip
_TAIL = _EOCD.size + _MAX_COMMENT + _EOCD64.size + _LOCATOR.size


def parse_directory(read, size: int, filename: str) -> tuple[list[ZipEntry], int]:
    """Read the central directory of a zip archive.

    Parameters
    ----------
    read : callable
        ``read(offset, length) -> bytes``: the file's bytes there (fewer only at its end);
        called a few times (the tail, then the directory), never for the entries' data.
    size : int
        The file size (or where the archive ends in the file).
    filename : str
        Named in error messages.

    Returns
    -------
    tuple
        ``(entries, directory_start)``: entries in directory order (duplicate names kept:
        the later one wins for readers), and the file position where the central directory
        begins.

    Raises
    ------
    StoreError
        Not a zip file, a split archive, or a directory that is truncated, reaches past
        the end records or holds a malformed entry.
    """
    tail_start = max(0, size - _TAIL)
    tail = read(tail_start, size - tail_start)
    if len(tail) != size - tail_start:
        raise _corrupt(filename, f"the file is shorter than {size} bytes")
    buf = _Region(read, tail_start, tail, size, filename)
    count, cd_size, cd_offset, end = _directory_location(buf, size, filename)
    cd_start = end - cd_size
    if cd_start < 0 or cd_offset > cd_start:
        raise _corrupt(filename, f"the central directory ({count} entries, {cd_size} bytes "
                                 f"at offset {cd_offset}) does not fit before its end record "
                                 f"at offset {end}")
    if cd_start < tail_start:
        buf = _Region(read, cd_start, buf.bytes(cd_start, end), size, filename)
    concat = cd_start - cd_offset  # bytes prepended to the archive (self-extractors)
    entries = []
    pos = cd_start
    for i in range(count):
        where = f"central directory entry {i} at offset {pos}"
        if pos + _CENTRAL.size > end:
            raise _corrupt(filename, f"{where}: the central directory is truncated "
                                     f"({count} entries announced, {i} found)")
        rec = buf.unpack(_CENTRAL, pos)
        if rec[0] != _CENTRAL_SIG:
            raise _corrupt(filename, f"{where}: bad signature {rec[0]:#010x}")
        flags, method, time, date, crc = rec[3], rec[4], rec[5], rec[6], rec[7]
        name_len, extra_len, comment_len = rec[10], rec[11], rec[12]
        name_end = pos + _CENTRAL.size + name_len
        rec_end = name_end + extra_len + comment_len
        if rec_end > end:
            raise _corrupt(filename, f"{where}: the central directory is truncated")
        raw_name = buf.bytes(pos + _CENTRAL.size, name_end)
        name = raw_name.decode("utf-8" if flags & FLAG_UTF8 else "cp437", "replace")
        fields = [rec[9], rec[8], rec[16], rec[13]]  # size, compressed, offset, disk
        wanted = [rec[9] == 0xFFFFFFFF, rec[8] == 0xFFFFFFFF, rec[16] == 0xFFFFFFFF,
                  rec[13] == 0xFFFF]
        if any(wanted):
            extra = buf.bytes(name_end, name_end + extra_len)
            _zip64_extra(extra, fields, wanted, filename, f"entry {name!r}")
        usize, csize, offset, _ = fields
        entries.append(ZipEntry(name, raw_name, flags, method, time, date, crc, csize, usize,
                                offset + concat))
        pos = rec_end
    return entries, cd_start


def recover_directory(read, size: int, filename: str) -> tuple[list[ZipEntry], int] | None:
    """The last complete directory of an archive whose end was cut off (a killed append).

    `zarrhpc.storage.zip.ZipStore` never writes over a directory it has written: new
    entries go after the end records, so an archive killed while appending is its last
    complete archive (entries, directory, end records) followed by a torn tail. This
    walks the file from the start over local headers (sizes from the header), directory
    records and end records, and parses the last directory whose end records are whole.

    Returns
    -------
    tuple or None
        ``(entries, end)`` as `parse_directory` gives for the file cut at ``end`` (where
        the last complete end records stop), or ``None`` when the walk finds none.
    """
    pos = 0
    last = None
    while pos + 4 <= size:
        head = read(pos, _CENTRAL.size)
        if len(head) < 4:
            break
        sig = struct.unpack_from("<I", head)[0]
        if sig == _LOCAL_SIG:
            if len(head) < _LOCAL.size:
                break
            rec = _LOCAL.unpack_from(head)
            if rec[2] & FLAG_DATA_DESCRIPTOR:
                break  # sizes follow the data: not one of ours, cannot walk on
            csize = rec[7]
            start = pos + _LOCAL.size + rec[9] + rec[10]
            if csize == 0xFFFFFFFF:
                extra = read(pos + _LOCAL.size + rec[9], rec[10])
                fields = [rec[8], rec[7], 0, 0]
                try:
                    _zip64_extra(extra, fields, [rec[8] == 0xFFFFFFFF, True, False, False],
                                 filename, f"local header at {pos}")
                except StoreError:
                    break
                csize = fields[1]
            pos = start + csize
            continue
        if sig == _CENTRAL_SIG:
            if len(head) < _CENTRAL.size:
                break  # a directory record cut short: the torn end
            while len(head) == _CENTRAL.size and struct.unpack_from("<I", head)[0] == _CENTRAL_SIG:
                rec = _CENTRAL.unpack(head)
                pos += _CENTRAL.size + rec[10] + rec[11] + rec[12]
                head = read(pos, _CENTRAL.size)
            continue
        if sig == _EOCD64_SIG:
            rec = read(pos, _EOCD64.size)
            if len(rec) < _EOCD64.size:
                break
            pos += 12 + _EOCD64.unpack(rec)[1]
            continue
        if sig == _LOCATOR_SIG:
            pos += _LOCATOR.size
            continue
        if sig == _EOCD_SIG:
            rec = read(pos, _EOCD.size)
            if len(rec) < _EOCD.size:
                break
            end = pos + _EOCD.size + _EOCD.unpack(rec)[7]
            if end > size:
                break
            try:
                entries, _ = parse_directory(read, end, filename)
            except StoreError:
                break
            last = (entries, end)
            pos = end
            continue
        break
    return last


def data_offset(read, size: int, entry: ZipEntry, limit: int, filename: str) -> int:
    """Where the data of ``entry`` begins, read from its local file header.

    Parameters
    ----------
    read : callable
        ``read(offset, length) -> bytes`` of the file.
    size : int
        The file size.
    entry : ZipEntry
    limit : int
        The data must end at or before this position (the start of the central directory,
        or the file size).
    filename : str
        Named in error messages.

    Returns
    -------
    int

    Raises
    ------
    StoreError
        The header or the data lies outside the file, or the header is not one.
    """
    where = f"{filename}: entry {entry.name!r}"
    off = entry.offset
    if off < 0 or off + _LOCAL.size > min(size, limit):
        raise StoreError(f"{where}: local header offset {off} lies beyond the end of the "
                         f"entries ({min(size, limit)} bytes): the zip file is corrupt or "
                         f"truncated")
    head = read(off, _LOCAL.size)
    if len(head) < _LOCAL.size:
        raise StoreError(f"{where}: the file ends inside the local header at offset {off}: "
                         f"was it truncated by another program?")
    rec = _LOCAL.unpack(head)
    if rec[0] != _LOCAL_SIG:
        raise StoreError(f"{where}: no local file header at offset {off} (found "
                         f"{rec[0]:#010x}): the zip file is corrupt")
    start = off + _LOCAL.size + rec[9] + rec[10]
    if start + entry.compressed_size > min(size, limit):
        raise StoreError(f"{where}: data of {entry.compressed_size} bytes at offset {start} "
                         f"reaches past the end of the entries ({min(size, limit)} bytes): "
                         f"the zip file is corrupt or truncated")
    return start


def dos_datetime(t: tuple) -> tuple[int, int]:
    """``(time, date)`` in MS-DOS format from a ``time.localtime()`` tuple."""
    year = min(max(t[0], 1980), 2107)
    return (t[3] << 11) | (t[4] << 5) | (t[5] // 2), ((year - 1980) << 9) | (t[1] << 5) | t[2]


def local_header(entry: ZipEntry) -> bytes:
    """The local file header of ``entry`` (no data descriptor: sizes are known)."""
    big = entry.size > ZIP64_LIMIT or entry.compressed_size > ZIP64_LIMIT
    extra = struct.pack("<HHQQ", 1, 16, entry.size, entry.compressed_size) if big else b""
    sizes = (0xFFFFFFFF, 0xFFFFFFFF) if big else (entry.compressed_size, entry.size)
    return _LOCAL.pack(
        _LOCAL_SIG, 45 if big else 20, entry.flags & ~FLAG_DATA_DESCRIPTOR, entry.method,
        entry.time, entry.date, entry.crc, *sizes, len(entry.raw_name), len(extra),
    ) + entry.raw_name + extra


def _central_record(entry: ZipEntry) -> bytes:
    values = []
    usize, csize, offset = entry.size, entry.compressed_size, entry.offset
    if usize > ZIP64_LIMIT:
        values.append(usize)
        usize = 0xFFFFFFFF
    if csize > ZIP64_LIMIT:
        values.append(csize)
        csize = 0xFFFFFFFF
    if offset > ZIP64_LIMIT:
        values.append(offset)
        offset = 0xFFFFFFFF
    extra = struct.pack(f"<HH{len(values)}Q", 1, 8 * len(values), *values) if values else b""
    return _CENTRAL.pack(
        _CENTRAL_SIG, _MADE_BY, 45 if values else 20, entry.flags, entry.method, entry.time,
        entry.date, entry.crc, csize, usize, len(entry.raw_name), len(extra), 0, 0, 0,
        _EXTERNAL_ATTR, offset,
    ) + entry.raw_name + extra


def central_directory(entries: list[ZipEntry]) -> bytes:
    """The central directory records of ``entries``, in the order given."""
    return b"".join([_central_record(e) for e in entries])


def end_records(count: int, cd_offset: int, cd_size: int) -> bytes:
    """The end records for a directory of ``count`` entries at ``cd_offset``.

    Adds the ZIP64 end record and its locator when a field does not fit the classic one.
    """
    if count <= COUNT_LIMIT and cd_offset <= ZIP64_LIMIT and cd_size <= ZIP64_LIMIT:
        return _EOCD.pack(_EOCD_SIG, 0, 0, count, count, cd_size, cd_offset, 0)
    rec64 = _EOCD64.pack(_EOCD64_SIG, _EOCD64.size - 12, _MADE_BY, 45, 0, 0, count, count,
                         cd_size, cd_offset)
    locator = _LOCATOR.pack(_LOCATOR_SIG, 0, cd_offset + cd_size, 1)
    eocd = _EOCD.pack(_EOCD_SIG, 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                      min(cd_size, 0xFFFFFFFF), min(cd_offset, 0xFFFFFFFF), 0)
    return rec64 + locator + eocd


def entry_for_write(name: str, crc: int, size: int, when: tuple[int, int],
                    offset: int = 0) -> ZipEntry:
    """A new STORED entry named ``name`` (UTF-8 flagged when not ASCII)."""
    raw = name.encode("utf-8")
    flags = 0 if raw.isascii() else FLAG_UTF8
    return ZipEntry(name, raw, flags, STORED, when[0], when[1], crc, size, size, offset)


def header_size(entry: ZipEntry) -> int:
    """Bytes of the local header `local_header` builds for ``entry``."""
    big = entry.size > ZIP64_LIMIT or entry.compressed_size > ZIP64_LIMIT
    return _LOCAL.size + len(entry.raw_name) + (20 if big else 0)


def unsupported_reason(entry: ZipEntry) -> str | None:
    """Why the data of ``entry`` cannot be read, or ``None`` when it can."""
    if entry.flags & FLAG_ENCRYPTED:
        return "it is encrypted"
    if entry.method not in METHOD_NAMES or entry.method == LZMA:
        name = METHOD_NAMES.get(entry.method, "unknown")
        return (f"compression method {entry.method} ({name}) is not supported (stored, "
                f"deflate, bzip2 and zstd are)")
    return None
