# lit configuration of the Fuse lit suites.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Fuse"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fuse_obj_root, "lit_tests")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.use_default_substitutions()
# %python is the interpreter CMake found and checked (it imports numpy and
# onnx), never lit's own nor a bare `python3` from PATH.
config.substitutions = [(k, v) for (k, v) in config.substitutions
                        if k != "%python"]
config.substitutions.append(("%python", '"%s"' % config.fuse_python))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["fuse-opt"], [config.fuse_tools_dir])

# PTX checks need ptxas from the CUDA toolkit. Without it they are reported
# as UNSUPPORTED (skipped, with this note), never passed silently.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
    config.substitutions.append(("%cuda_toolkit", config.cuda_toolkit))
else:
    lit_config.note("ptxas not found: tests that REQUIRE ptxas are skipped")

# Tests that run a tool under `ulimit -v` REQUIRE address-space-limit: an
# AddressSanitizer build cannot start under such a limit (its shadow memory
# reserves terabytes of address space), so there they are reported as
# UNSUPPORTED with this feature named (scripts/ci_skips.py allows it); the
# regular build runs them.
if not config.fuse_asan:
    config.available_features.add("address-space-limit")

# bf16 matmul runs (--matmul-precision=bf16) need a CPU with AVX-512 BF16;
# elsewhere they are UNSUPPORTED, and the refusal is tested instead.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = cpuinfo.read()
        if " avx512_bf16" in flags:
            config.available_features.add("avx512bf16")
        # AMX tiles (fuse-run's bf16 matmuls use them where the CPU has them).
        if " amx_bf16" in flags and " amx_tile" in flags:
            config.available_features.add("amxbf16")
except OSError:
    pass
