#!/usr/bin/env python3
"""Hashes of every generated kernel, so that a change to the code generators can show what it changed.

For every .mlir input under lit_tests/ and examples/ (each `// -----` chunk on its own), for each pinned target
(two host ISAs, two GPU architectures), runs `fuse-compile --emit=llvm` (host) or `--emit=ptx` (GPU), splits the
output into kernels and prints one line per kernel:

    <input>[#chunk] <target> <kernel> <sha256 prefix>

An input that does not compile gets one line `<input> <target> error <hash of the first line of the message>`, so
refusals are tracked too. The committed table is scripts/codegen-hashes.txt:

    scripts/codegen_hashes.py --build build > scripts/codegen-hashes.txt    # record
    scripts/codegen_hashes.py --build build --check scripts/codegen-hashes.txt  # compare, exit 1 on a change

The hashes depend on the LLVM build (Debian's llvm-22 package): record and check with the same one. Only the
Python standard library is used.
"""

import argparse
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys
import tempfile

TARGETS = {
    "host-x86-64-v4": "llvm",
    "host-x86-64-v3": "llvm",
    "sm_80": "ptx",
    "sm_90": "ptx",
}

LLVM_DEFINE = re.compile(r"^define .*@([A-Za-z0-9_.$]+)\(")
PTX_KERNEL = re.compile(r"^// kernel (\S+)$")


def digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def split_llvm(text):
    """Each `define ... { ... }` body by function name; the rest of the module (globals, declarations,
    attributes) as `<module>`, so a change there shows too."""
    kernels, rest, name, body = {}, [], None, []
    for line in text.splitlines():
        if name is None:
            match = LLVM_DEFINE.match(line)
            if match:
                name, body = match.group(1), [line]
            elif not line.startswith("; ModuleID"):
                rest.append(line)
        else:
            body.append(line)
            if line == "}":
                kernels[name] = "\n".join(body)
                name = None
    kernels["<module>"] = "\n".join(rest)
    return kernels


def split_ptx(text):
    kernels, name = {}, None
    for line in text.splitlines():
        match = PTX_KERNEL.match(line)
        if match:
            name = match.group(1)
            kernels[name] = []
        elif name is not None:
            kernels[name].append(line)
    return {k: "\n".join(v) for k, v in kernels.items()}


def inputs(root):
    for folder in ("examples", "lit_tests"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for filename in sorted(filenames):
                if filename.endswith(".mlir"):
                    path = os.path.join(dirpath, filename)
                    yield os.path.relpath(path, root)


def chunks(root, relpath):
    with open(os.path.join(root, relpath), encoding="utf-8") as f:
        text = f.read()
    parts = re.split(r"^// -----\s*$", text, flags=re.M)
    if len(parts) == 1:
        return [(relpath, text)]
    return [(f"{relpath}#{i}", part) for i, part in enumerate(parts)]


def hash_one(compiler, name, source, target):
    emit = TARGETS[target]
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(source)
        path = f.name
    try:
        result = subprocess.run([compiler, f"--emit={emit}", f"--target={target}", path],
                                capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(path)
    if result.returncode != 0:
        first = (result.stderr.strip().splitlines() or [""])[0].replace(path, "<input>")
        return [f"{name} {target} error {digest(first)}"]
    kernels = split_llvm(result.stdout) if emit == "llvm" else split_ptx(result.stdout)
    return [f"{name} {target} {kernel} {digest(text)}" for kernel, text in sorted(kernels.items())]


def table(root, build, jobs):
    compiler = os.path.join(build, "bin", "fuse-compile")
    if not os.access(compiler, os.X_OK):
        sys.exit(f"codegen_hashes: {compiler} is not built (ninja -C {build} fuse-compile)")
    work = [(name, source, target) for relpath in inputs(root) for name, source in chunks(root, relpath)
            for target in TARGETS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = pool.map(lambda w: hash_one(compiler, *w), work)
        return [line for lines in results for line in lines]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(root, "build"))
    parser.add_argument("--check", metavar="TABLE", help="compare with a recorded table; exit 1 on a change")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    lines = table(root, args.build, args.jobs)
    if not args.check:
        print("\n".join(lines))
        return 0
    with open(args.check, encoding="utf-8") as f:
        recorded = {" ".join(l.split()[:3]): l for l in f.read().splitlines() if l.strip()}
    now = {" ".join(l.split()[:3]): l for l in lines}
    changed = sorted(k for k in recorded.keys() & now.keys() if recorded[k] != now[k])
    gone = sorted(recorded.keys() - now.keys())
    new = sorted(now.keys() - recorded.keys())
    for label, keys in (("changed", changed), ("gone", gone), ("new", new)):
        for key in keys:
            print(f"{label}: {key}")
    print(f"codegen_hashes: {len(now)} kernels, {len(changed)} changed, {len(gone)} gone, {len(new)} new")
    return 1 if changed or gone or new else 0


if __name__ == "__main__":
    sys.exit(main())
