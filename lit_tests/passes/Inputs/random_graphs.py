"""Prints random graphs of fuse ops as one module of functions, for the
fusion passes' tests: elementwise ops, reductions over any dims, broadcasts
of their results back (following the rows or not), transposes, reshapes,
slices and matmuls, mixed so that every schedule kind and many refusals
occur. Deterministic for a seed."""

import argparse
import itertools
import random

SHAPES = [(4, 6, 8), (8, 6, 4), (6, 8), (48,)]
UNARY = ["exp", "neg", "tanh", "abs"]
BINARY = ["add", "mul", "max", "sub"]


def tensor(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


class Graph:
    def __init__(self, rng, consecutive):
        self.rng = rng
        self.consecutive = consecutive
        self.lines = []
        self.values = []  # (name, shape)
        self.count = 0

    def new(self, shape, text):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        self.values.append((name, shape))
        return name, shape

    def pick(self, pred=lambda s: True):
        candidates = [v for v in self.values if pred(v[1])]
        # Recent values more often, so that chains form.
        return self.rng.choice(candidates[-6:] if self.rng.random() < 0.7 else candidates)

    def step(self):
        rng = self.rng
        kind = rng.choice(["unary", "binary", "binary", "reduce", "reduce", "broadcast",
                           "broadcast", "transpose", "reshape", "slice", "matmul"])
        if kind == "unary":
            name, shape = self.pick()
            return self.new(shape, f"fuse.{rng.choice(UNARY)} {name} : {tensor(shape)}")
        if kind == "binary":
            a, shape = self.pick()
            b, _ = self.pick(lambda s: s == shape)
            return self.new(shape, f"fuse.{rng.choice(BINARY)} {a}, {b} : {tensor(shape)}")
        if kind == "reduce":
            name, shape = self.pick(lambda s: len(s) >= 1)
            k = rng.randint(1, len(shape))
            if self.consecutive:
                first = rng.randint(0, len(shape) - k)
                dims = list(range(first, first + k))
            else:
                dims = sorted(rng.sample(range(len(shape)), k))
            out = tuple(d for i, d in enumerate(shape) if i not in dims)
            op = rng.choice(["sum", "max", "mean"])
            return self.new(out, f"fuse.reduce {op} {name} dims = {list(dims)} : "
                                 f"{tensor(shape)} -> {tensor(out)}")
        if kind == "broadcast":
            name, shape = self.pick(lambda s: len(s) <= 2)
            # Into a shape of higher rank whose dims at `dims` match.
            targets = []
            for full in SHAPES + [(4, 6, 8, 2), (2, 4, 6, 8)]:
                for dims in itertools.combinations(range(len(full)), len(shape)):
                    if len(full) > len(shape) and all(full[d] == s for d, s in zip(dims, shape)):
                        targets.append((full, dims))
            if not targets:
                return None
            full, dims = rng.choice(targets)
            return self.new(full, f"fuse.broadcast {name}, dims = {list(dims)} : "
                                  f"{tensor(shape)} -> {tensor(full)}")
        if kind == "transpose":
            name, shape = self.pick(lambda s: len(s) >= 2)
            perm = list(range(len(shape)))
            rng.shuffle(perm)
            out = tuple(shape[p] for p in perm)
            return self.new(out, f"fuse.transpose {name}, permutation = {perm} : "
                                 f"{tensor(shape)} -> {tensor(out)}")
        if kind == "reshape":
            name, shape = self.pick()
            n = 1
            for d in shape:
                n *= d
            outs = [s for s in SHAPES + [(n,), (2, n // 2)] if _count(s) == n and s != shape]
            if not outs:
                return None
            out = rng.choice(outs)
            return self.new(out, f"fuse.reshape {name} : {tensor(shape)} -> {tensor(out)}")
        if kind == "slice":
            name, shape = self.pick(lambda s: len(s) >= 1 and max(s) >= 2)
            d = rng.choice([i for i, s in enumerate(shape) if s >= 2])
            sizes = list(shape)
            sizes[d] = shape[d] // 2
            offsets = [0] * len(shape)
            offsets[d] = rng.choice([0, shape[d] - sizes[d]])
            out = tuple(sizes)
            return self.new(out, f"fuse.slice {name} offsets = {offsets} sizes = {sizes} "
                                 f"strides = {[1] * len(shape)} : {tensor(shape)} -> {tensor(out)}")
        # matmul of two rank-2 values
        a, sa = self.pick(lambda s: len(s) == 2)
        bs = [v for v in self.values if len(v[1]) == 2 and v[1][0] == sa[1]]
        if not bs:
            return None
        b, sb = rng.choice(bs)
        out = (sa[0], sb[1])
        return self.new(out, f"fuse.matmul {a}, {b} : {tensor(sa)}, {tensor(sb)} -> {tensor(out)}")


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--ops", type=int, default=24)
    parser.add_argument("--consecutive-dims", action="store_true",
                        help="reduce consecutive dims only (the GPU's column reductions)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for f in range(args.count):
        graph = Graph(rng, args.consecutive_dims)
        inputs = [(f"%a{i}", rng.choice(SHAPES)) for i in range(rng.randint(1, 3))]
        inputs.append(("%m", (6, 8)))
        graph.values.extend(inputs)
        for _ in range(args.ops):
            graph.step()
        results = [graph.values[-1]]
        results += rng.sample(graph.values[len(inputs):-1], min(2, graph.count - 1))
        params = ", ".join(f"{n}: {tensor(s)}" for n, s in inputs)
        types = ", ".join(tensor(s) for _, s in results)
        print(f"func.func @g{f}({params}) -> ({types}) {{")
        print("\n".join(graph.lines))
        print(f"  return {', '.join(n for n, _ in results)} : {types}")
        print("}")


if __name__ == "__main__":
    main()
