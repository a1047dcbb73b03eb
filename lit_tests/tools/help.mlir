// Each tool's --help shows its own options, not the hundreds LLVM registers
// (backends such as AMDGPU, ARM and X86, code generation: NOBACKEND checks
// the whole text); --help-hidden still lists those. fuse-opt's --help is
// mlir-opt's: its own options and every pass with theirs (passes of the
// amdgpu and arm dialects among them, indented under "Passes:"), but no
// backend option at the top level (OPT-NOBACKEND).

// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run --help > %t/run.txt
// RUN: FileCheck %s --check-prefix=RUNHELP < %t/run.txt
// RUN: FileCheck %s --check-prefix=NOBACKEND < %t/run.txt
// RUN: fuse-run --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: fuse-compile --help > %t/compile.txt
// RUN: FileCheck %s --check-prefix=COMPILE < %t/compile.txt
// RUN: FileCheck %s --check-prefix=NOBACKEND < %t/compile.txt
// RUN: fuse-compile --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: fuse-opt --help > %t/opt.txt
// RUN: FileCheck %s --check-prefix=OPT < %t/opt.txt
// RUN: FileCheck %s --check-prefix=OPT-NOBACKEND --strict-whitespace < %t/opt.txt
// RUN: fuse-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN
// RUN: fuse-cache --help 2>&1 | FileCheck %s --check-prefix=CACHE

// NOBACKEND-NOT: {{--(amdgpu|arm-|x86-)}}
// OPT-NOBACKEND-NOT: {{^  --(amdgpu|arm-|x86-)}}

// HIDDEN: --x86-asm-syntax

// RUNHELP-DAG: fuse-run options:
// RUNHELP-DAG: --bench=<uint>
// RUNHELP-DAG: --threads=<uint>
// RUNHELP-DAG: --cache-dir=<dir>
// RUNHELP-DAG: --check
// RUNHELP-DAG: --dim=<NAME=VALUE>
// RUNHELP-DAG: --input=<NAME=PATH>
// RUNHELP-DAG: --json
// RUNHELP-DAG: --print-plan
// RUNHELP-DAG: --runtime=<string>
// RUNHELP-DAG: Generic Options:
// RUNHELP-DAG: --help-hidden

// COMPILE-DAG: fuse-compile options:
// COMPILE-DAG: --emit=<string>
// COMPILE-DAG: --target=<string>
// COMPILE-DAG: --timings
// COMPILE-DAG: MLIR options (IR dumps):
// COMPILE-DAG: --mlir-print-ir-after-all

// OPT-DAG: --fuse-form-fusions
// OPT-DAG: --canonicalize
// OPT-DAG: --mlir-print-ir-after-all
// OPT-DAG: --split-input-file

// CACHE: usage: fuse-cache list | stats | show KEY | verify | clear [--cache-dir DIR]
