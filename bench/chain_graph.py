#!/usr/bin/env python3
"""Writes a graph of one long chain of tensor ops, for compile-time tests.

    chain_graph.py N [--ops mixed|max] [--reduce-every K] [-o FILE]

The chain is N ops long on tensor<64x64xf32>. --ops mixed (the default):
unary (exp, tanh, neg, abs) and binary ops (add, mul, sub, max with an
argument) in blocks of 8: a tanh, which keeps the numerics finite, then the 7
others in an order drawn from a fixed seed, so that the kernels a long chain is
split into are not identical (those would compile once); LLVM's time on the
kernels then dominates. --ops max: every op is the maximum with the
second argument, which LLVM folds to one maximum, so that what is timed is
Fuse's own work (import, fusion, code generation, lowering). With --reduce-every K, every K-th op is a
row reduction (the maximum of each row, kept as 64x1) that is broadcast back and
added to the chain, so that the chain forms reduction kernels too. The
fusion pipeline is free to make one kernel of it or several. Standard
library only.
"""

import argparse
import random
import sys

SHAPE = "tensor<64x64xf32>"
ROWS = "tensor<64x1xf32>"
# The elementwise steps by kind, applied to the chain so far (%s): kind 0
# (tanh) opens each block of 8, kind 7 (max) is the whole of --ops max.
STEPS = ["fuse.tanh %s", "fuse.add %s, %%y", "fuse.mul %s, %%y", "fuse.neg %s",
         "fuse.exp %s", "fuse.sub %s, %%x", "fuse.abs %s", "fuse.max %s, %%y"]


def chain(n, ops="mixed", reduce_every=0):
    """The graph's text, as lines."""
    lines = ["func.func @chain(%%x: %s, %%y: %s) -> %s {" % (SHAPE, SHAPE, SHAPE)]
    current = "%x"
    emitted = 0
    step = 0
    draw = random.Random(0)
    order = []
    while emitted < n:
        name = "%%v%d" % emitted
        if reduce_every and (emitted + 1) % reduce_every == 0 and n - emitted >= 3:
            # tanh keeps |v| <= 1, and so does the row maximum.
            bound = "fuse.max %s, %%y" if ops == "max" else "fuse.tanh %s"
            lines.append("  %%t%d = %s : %s" % (emitted, bound % current, SHAPE))
            lines.append("  %%r%d = fuse.reduce max %%t%d dims = [1] keep_dims : %s -> %s"
                         % (emitted, emitted, SHAPE, ROWS))
            lines.append("  %%b%d = fuse.broadcast %%r%d, dims = [0, 1] : %s -> %s"
                         % (emitted, emitted, ROWS, SHAPE))
            combine = "max" if ops == "max" else "mul"
            lines.append("  %s = fuse.%s %%t%d, %%b%d : %s"
                         % (name, combine, emitted, emitted, SHAPE))
            emitted += 4
        else:
            if step % 8 == 0:
                order = [0] + draw.sample(range(1, 8), 7)
            kind = 7 if ops == "max" else order[step % 8]
            step += 1
            lines.append("  %s = %s : %s" % (name, STEPS[kind] % current, SHAPE))
            emitted += 1
        current = name
    lines.append("  return %s : %s" % (current, SHAPE))
    lines.append("}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="ops in the chain")
    parser.add_argument("--ops", choices=["mixed", "max"], default="mixed",
                        help="the chain's ops (default: mixed)")
    parser.add_argument("--reduce-every", type=int, default=0, metavar="K",
                        help="make every K-th op a row reduction (0: none)")
    parser.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = parser.parse_args()
    if args.n < 1:
        parser.error("N must be at least 1")
    text = "\n".join(chain(args.n, args.ops, args.reduce_every)) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
