# Writes a .npy file whose header claims 2^64 f32 elements and holds no data;
# with the argument 'long', one whose first dimension has 19 digits (2^62);
# with 'empty', one of shape (2^32, 2^32, 0): no elements, no data.
import struct
import sys

dims = {"long": b"4611686018427387904, 4",
        "empty": b"4294967296, 4294967296, 0"}.get(sys.argv[1] if sys.argv[1:] else "",
                                                   b"4294967296, 4294967296")
header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + b"), }"
header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)
