#!/usr/bin/env python3
"""Writes the ONNX backend node tests of the installed `onnx` Python package
(its test cases, computed with NumPy; newer opsets than Debian's
libonnx-testdata) in the backend's layout: DIR/<test>/model.onnx and
test_data_set_N/{input,output}_K.pb. The conformance runner runs them when
$FUSE_ONNX_PACKAGE_NODE_TESTS names DIR (default: <build>/onnx-node-tests).

    pip install onnx numpy
    python3 test/compiler/onnx/make_onnx_node_tests.py build/onnx-node-tests

Tests with non-tensor inputs or outputs (sequences, maps, optionals) keep
their model only; the runner finds them out of scope or failing to import.
"""

import os
import shutil
import sys
import warnings

from onnx import TensorProto, numpy_helper
from onnx.backend.test.case import node


def tensor(value, name):
    if isinstance(value, TensorProto):
        return value
    return numpy_helper.from_array(value, name)


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTPUT_DIR")
    out = sys.argv[1]
    warnings.simplefilter("ignore")
    shutil.rmtree(out, ignore_errors=True)
    count = 0
    for case in node.collect_testcases(None):
        directory = os.path.join(out, case.name)
        os.makedirs(directory)
        with open(os.path.join(directory, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        graph = case.model.graph
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data = os.path.join(directory, f"test_data_set_{i}")
            os.makedirs(data)
            try:
                for j, value in enumerate(inputs):
                    if not graph.input[j].type.HasField("tensor_type"):
                        raise TypeError("not a tensor")
                    with open(os.path.join(data, f"input_{j}.pb"), "wb") as f:
                        f.write(tensor(value, graph.input[j].name)
                                .SerializeToString())
                for j, value in enumerate(outputs):
                    if not graph.output[j].type.HasField("tensor_type"):
                        raise TypeError("not a tensor")
                    with open(os.path.join(data, f"output_{j}.pb"), "wb") as f:
                        f.write(tensor(value, graph.output[j].name)
                                .SerializeToString())
            except (TypeError, ValueError):
                shutil.rmtree(data)
        count += 1
    print(f"wrote {count} node tests to {out}")


if __name__ == "__main__":
    main()
