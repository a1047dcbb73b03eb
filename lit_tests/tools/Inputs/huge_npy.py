# Writes a .npy file whose header claims 2^64 f32 elements and holds no data.
import struct
import sys

header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"
header += b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)
