# Writes a .npy file whose header claims 2^64 f32 elements and holds no data;
# with the argument 'long', one whose first dimension has 19 digits (2^62).
import struct
import sys

dims = b"4611686018427387904, 4" if sys.argv[1:] == ["long"] else b"4294967296, 4294967296"
header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + b"), }"
header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)
