"""Protobuf wire encoding for the Perfetto seed writers (perfetto_seeds.py,
perfetto_system_seeds.py, perfetto_walk_seeds.py): one field at a time,
by number, so that a seed can hold what no .proto allows."""
import struct


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(num, wire):
    return varint(num << 3 | wire)


def vi(num, v):
    """A varint field."""
    return tag(num, 0) + varint(v)


def ln(num, data):
    """A length-delimited field (a str is written as UTF-8)."""
    if isinstance(data, str):
        data = data.encode()
    return tag(num, 2) + varint(len(data)) + data


def f64(num, d):
    """A double (fixed64) field."""
    return tag(num, 1) + struct.pack("<d", d)


def fx64(num, v):
    """A fixed64 field holding an unsigned integer."""
    return tag(num, 1) + struct.pack("<Q", v)


def f32(num, x):
    """A float (fixed32) field."""
    return tag(num, 5) + struct.pack("<f", x)


def packed(num, values):
    """A packed repeated varint field."""
    return ln(num, b"".join(varint(v) for v in values))
