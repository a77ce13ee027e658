"""What a node's writes cost RocksDB, read from its write-ahead log: how many RocksDB writes (WAL records: write
batches) and memtable inserts (batch entries) each record write made, and how many WAL bytes. Any build of the node
can be measured this way, without asking it anything: the WAL is RocksDB's own account of every write.

The format (RocksDB's log_format.h and write_batch.cc): the file is a run of 32 KiB blocks, each holding physical
records (crc32c 4 bytes, length 2, type 1, data; the recyclable types add a 4-byte log number to the header) that
reassemble into logical records; a logical record is one write batch: sequence (8 bytes), count (4), then its
entries, each a tag byte (a put, a delete, ..., in the default column family or, with a varint id first, another)
and length-prefixed key and value. A block's tail too short for a header is padding. Read while the node writes, the
last record may be cut short: it is left out.

Standard library only; `python -m harness.walstats DATA_DIR` prints the figures of a data directory.
"""
import glob
import json
import os
import struct
import sys

BLOCK = 32768
HEADER, RECYCLABLE_HEADER = 7, 11
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
RECYCLABLE_OFFSET = 4  # kRecyclableFullType = 5 ... kRecyclableLastType = 8
# Entry tags: key (+ value) strings after the tag (and the column family id for the ColumnFamily variants).
PUT, CF_PUT, DELETE, CF_DELETE, SINGLE_DELETE, CF_SINGLE_DELETE, MERGE, CF_MERGE = 0x1, 0x5, 0x0, 0x4, 0x7, 0x8, \
    0x2, 0x6
LOG_DATA, NOOP = 0x3, 0xD
WITH_VALUE = {PUT, CF_PUT, MERGE, CF_MERGE}
WITH_CF = {CF_PUT, CF_DELETE, CF_SINGLE_DELETE, CF_MERGE}
KNOWN = WITH_VALUE | WITH_CF | {DELETE, SINGLE_DELETE}


def varint(buf, at):
    """(value, next offset) of a varint32/64 at buf[at]; raises IndexError past the end."""
    shift = value = 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, at
        shift += 7


def logical_records(data):
    """The logical records (bytes) of a WAL file's content, in order; a record cut short at the end is left out,
    and so are records of types this reader does not know (RocksDB marks those it may add as ignorable)."""
    out, pending, at = [], None, 0
    while at < len(data):
        room = BLOCK - at % BLOCK
        if room < HEADER:
            at += room  # a block's padding
            continue
        if at + HEADER > len(data):
            break
        length, kind = struct.unpack_from("<HB", data, at + 4)
        header = HEADER
        if RECYCLABLE_OFFSET < kind <= RECYCLABLE_OFFSET + LAST:
            header, kind = RECYCLABLE_HEADER, kind - RECYCLABLE_OFFSET
        if kind == 0 and length == 0:
            at += room  # a preallocated, never written block (zeros)
            continue
        if at + header + length > len(data):
            break  # the node is still writing it
        payload = data[at + header:at + header + length]
        at += header + length
        if kind == FULL:
            out.append(payload)
            pending = None
        elif kind == FIRST:
            pending = bytearray(payload)
        elif kind == MIDDLE and pending is not None:
            pending += payload
        elif kind == LAST and pending is not None:
            pending += payload
            out.append(bytes(pending))
            pending = None
    return out


def batch_entries(rec):
    """[(column family id, tag, key bytes, value bytes)] of one write batch; stops at an entry it cannot read."""
    entries, at = [], 12
    count = struct.unpack_from("<I", rec, 8)[0] if len(rec) >= 12 else 0
    try:
        while at < len(rec) and len(entries) < count:
            tag = rec[at]
            at += 1
            if tag in (LOG_DATA,):
                n, at = varint(rec, at)
                at += n
                continue
            if tag == NOOP:
                continue
            if tag not in KNOWN:
                break
            cf = 0
            if tag in WITH_CF:
                cf, at = varint(rec, at)
            n, at = varint(rec, at)
            key = rec[at:at + n]
            at += n
            value = b""
            if tag in WITH_VALUE:
                n, at = varint(rec, at)
                value = rec[at:at + n]
                at += n
            entries.append((cf, tag, key, value))
    except IndexError:
        pass
    return entries


def wal_files(data_dir):
    """The data directory's WAL files (NNNNNN.log), oldest first."""
    return sorted(glob.glob(os.path.join(data_dir, "*.log")), key=lambda p: int(os.path.basename(p).split(".")[0]))


def stats(data_dir, records_family=0):
    """Figures per record write (an entry of records_family: the default column family holds the records) over every
    WAL file the directory holds now (one that a flush deletes while this reads is skipped), counting the write batches that hold a record write: RocksDB writes and
    memtable inserts (entries, of any family) per record write, WAL bytes of those batches (payload and one header)
    per record write, the entries of each family in them; and the batches without a record write (a node's own
    bookkeeping: repair, hints), apart. None when the WAL holds no record write."""
    files = wal_files(data_dir)
    writes = batches = entries = wal_bytes = other_batches = other_entries = 0
    per_family = {}
    read = 0
    for path in files:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue  # RocksDB deleted it (its memtable was flushed) after the listing: its writes are gone
        read += 1
        for rec in logical_records(data):
            found = batch_entries(rec)
            mine = sum(1 for cf, *_ in found if cf == records_family)
            if not mine:
                other_batches += 1
                other_entries += len(found)
                continue
            writes += mine
            batches += 1
            entries += len(found)
            wal_bytes += len(rec) + HEADER
            for cf, *_ in found:
                per_family[cf] = per_family.get(cf, 0) + 1
    if not writes:
        return None
    return {
        "wal_files": read, "record_writes": writes, "batches": batches, "entries": entries,
        "entries_per_family": {str(k): v for k, v in sorted(per_family.items())},
        "wal_bytes_per_write": wal_bytes / writes, "batches_per_write": batches / writes,
        "memtable_inserts_per_write": entries / writes,
        "other_batches": other_batches, "other_entries": other_entries,
    }

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m harness.walstats DATA_DIR")
    json.dump(stats(sys.argv[1]), sys.stdout, indent=2)
    sys.stdout.write("\n")
