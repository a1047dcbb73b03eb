// fuse-run --check says per output which tolerance decided: the element
// nearest its bound atol + rtol * |expected|, and the larger term there.
// tanh's values lie in (-1, 1), where atol (8 eps) >= rtol (8 eps) * |y|:
// atol decides. exp(x) + 100 lies in [100.1, 107.4] on the seeded inputs
// (|x| <= 2), where rtol (10 eps) * |y| > atol (8 eps + the smallest normal,
// times the output's scale, at most 107.4): rtol decides. Integers compare exactly, and the reference runtime matches
// itself bit for bit: exact.
// VALID checks that the JSON's numbers agree with what it says.

// RUN: rm -rf %t && split-file %s %t
// RUN: fuse-run %t/tanh.mlir --check --json --cache-dir %t/cache | FileCheck %s --check-prefix=ATOL
// RUN: fuse-run %t/exp.mlir --check --json --cache-dir %t/cache | FileCheck %s --check-prefix=RTOL
// RUN: fuse-run %t/int.mlir --check --json --cache-dir %t/cache | FileCheck %s --check-prefix=INT
// RUN: fuse-run %t/tanh.mlir --check --json --runtime reference | FileCheck %s --check-prefix=REFERENCE
// RUN: fuse-run %t/tanh.mlir --check --json --cache-dir %t/cache | tail -n 1 > %t/tanh.json
// RUN: fuse-run %t/exp.mlir --check --json --cache-dir %t/cache | tail -n 1 > %t/exp.json
// RUN: %python %t/valid.py %t/tanh.json %t/exp.json | FileCheck %s --check-prefix=VALID

// ATOL: check y: max abs error {{.*}}, max rel error {{.*}} (rtol 9.54e-07, atol 9.54e-07): ok, decided by atol at element {{[0-9]+}} (expected {{.*}}, abs error {{.*}}, bound {{.*}})
// ATOL: "checks": {"y": {"ok": true, "max_abs_error": {{.*}}, "max_rel_error": {{.*}}, "rtol": 9.53674e-07, "atol": 9.53674e-07, "decided_by": "atol", "nearest": {"index": {{[0-9]+}}, "expected": {{.*}}, "actual": {{.*}}, "abs_error": {{.*}}, "rel_error": {{.*}}, "bound": {{.*}}}}},

// RTOL: check y: {{.*}}: ok, decided by rtol at element {{[0-9]+}}
// RTOL: "decided_by": "rtol", "nearest": {"index": {{[0-9]+}},

// INT: check y: max abs error 0, max rel error 0 (rtol 0, atol 0): ok, decided by exact{{$}}
// INT: "checks": {"y": {"ok": true, "max_abs_error": 0, "max_rel_error": 0, "rtol": 0, "atol": 0, "decided_by": "exact", "nearest": null}},

// REFERENCE: check y: max abs error 0, max rel error 0 (rtol 9.54e-07, atol 9.54e-07): ok, decided by exact{{$}}
// REFERENCE: "decided_by": "exact", "nearest": null}},

// VALID: tanh.json: atol decided, abs error within bound = atol + rtol * |expected|
// VALID: exp.json: rtol decided, abs error within bound = atol + rtol * |expected|

//--- tanh.mlir
func.func @tanh(%x: tensor<64x64xf32>) -> (tensor<64x64xf32> {fuse.name = "y"}) {
  %y = fuse.tanh %x : tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

//--- exp.mlir
func.func @exp(%x: tensor<64x64xf32>) -> (tensor<64x64xf32> {fuse.name = "y"}) {
  %c = fuse.constant dense<100.0> : tensor<64x64xf32>
  %e = fuse.exp %x : tensor<64x64xf32>
  %y = fuse.add %e, %c : tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

//--- int.mlir
func.func @int(%x: tensor<64xi32>) -> (tensor<64xi32> {fuse.name = "y"}) {
  %y = fuse.add %x, %x : tensor<64xi32>
  return %y : tensor<64xi32>
}

//--- valid.py
import json
import sys

for path in sys.argv[1:]:
    check = json.load(open(path))["checks"]["y"]
    nearest = check["nearest"]
    expected = abs(nearest["expected"])
    bound = check["atol"] + check["rtol"] * expected
    # The numbers have 6 significant digits.
    assert abs(nearest["bound"] - bound) <= 1e-4 * bound, (path, check)
    assert nearest["abs_error"] > 0, (path, check)
    assert nearest["abs_error"] <= nearest["bound"], (path, check)
    assert check["max_abs_error"] >= nearest["abs_error"], (path, check)
    larger = "atol" if check["atol"] >= check["rtol"] * expected else "rtol"
    assert check["decided_by"] == larger, (path, check)
    print("%s: %s decided, abs error within bound = atol + rtol * |expected|"
          % (path.split("/")[-1], larger))
