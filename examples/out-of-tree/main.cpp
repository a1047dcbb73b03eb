//===- main.cpp - An out-of-tree program on the installed runtime ---------===//
//
// Links only the installed FuseRuntime: records softmax and layernorm
// through the lazy tensor API on the reference runtime (with the runtime's
// ReferenceCompiler, which makes reference bundles), and checks softmax's
// rows sum to one.
//
//===----------------------------------------------------------------------===//

#include "runtime/engine/Engine.h"

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  fuse::ReferenceCompiler compiler;
  fuse::engine::SessionOptions options;
  options.device = fuse::engine::DeviceChoice::Reference;
  options.compiler = &compiler;
  fuse::Expected<fuse::engine::Session> session =
      fuse::engine::Session::open(options);
  if (!session.ok()) {
    std::fprintf(stderr, "error: %s\n", session.message().c_str());
    return 1;
  }
  const int rows = 3, columns = 4;
  std::vector<double> values;
  for (int i = 0; i < rows * columns; ++i)
    values.push_back(0.25 * (i + 1) * (i % 2 ? -1 : 1));
  fuse::engine::Tensor x =
      session->upload({fuse::ElementType::F32, {rows, columns}}, values);
  fuse::engine::Tensor y = fuse::engine::softmax(fuse::engine::layerNorm(x));
  fuse::Expected<std::vector<double>> result = y.readDoubles();
  if (!result.ok()) {
    std::fprintf(stderr, "error: %s\n", result.message().c_str());
    return 1;
  }
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < columns; ++c)
      sum += (*result)[r * columns + c];
    if (std::fabs(sum - 1.0) > 1e-5) {
      std::fprintf(stderr, "error: row %d sums to %f\n", r, sum);
      return 1;
    }
  }
  std::printf("out-of-tree: softmax(layerNorm(x)) rows sum to 1; %llu "
              "block(s)\n",
              (unsigned long long)session->counters().blocks);
  return 0;
}
