//===- SymbolicExportsCheck.cpp - Transformer exports, symbolic dims ------===//
//
// A check run by hand, not by ctest (the exports need torch and
// transformers, which CI does not install):
//
//   python bench/models/export_hf.py --out /tmp/hfdyn --dynamic
//   FUSE_HFDYN_DIR=/tmp/hfdyn build/bin/FuseSymbolicExportsCheck
//
// FUSE_HFDYN_MODELS (e.g. "bert,gpt2") limits it to some of the five.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"
#include "runtime/ir/Graph.h"
#include "runtime/ir/Interpreter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace fuse;

namespace fuse::onnximport {
namespace {

// The dynamic-axes exports of bench/models/export_hf.py --dynamic, in the
// folder FUSE_HFDYN_DIR names: each imported once with symbolic dims,
// bound at batch 1 and several sequence lengths, against the static import
// at the same dims on the same random ids and mask, within 1e-5 of the
// output's largest magnitude.
TEST(OnnxImporter, SymbolicDimsOfTransformerExports) {
  const char *dir = std::getenv("FUSE_HFDYN_DIR");
  ASSERT_NE(dir, nullptr) << "set FUSE_HFDYN_DIR to the folder of "
                             "export_hf.py --dynamic's models";
  const char *only = std::getenv("FUSE_HFDYN_MODELS");
  for (std::string name : {"bert", "distilbert", "gpt2", "llama", "t5enc"}) {
    if (only && std::string(only).find(name) == std::string::npos)
      continue;
    SCOPED_TRACE(name);
    const std::string file = std::string(dir) + "/" + name + "_dynamic.onnx";
    ImportOptions symbolic;
    symbolic.symbolicDims = true;
    Expected<ImportedModel> model = importModelFile(file, symbolic);
    if (!model.ok()) {
      ADD_FAILURE() << model.message();
      continue;
    }
    std::cout << name << ": " << model->graph.ops.size() << " ops, "
              << model->graph.dims.exprs.size() << " dim expressions\n";
    for (std::int64_t sequence : {1, 64, 77, 128}) {
      Expected<Graph> bound =
          bindDims(model->graph, {{"batch", 1}, {"sequence", sequence}});
      ASSERT_TRUE(bound.ok()) << bound.message();
      ImportOptions fixed;
      fixed.dims = {{"batch", 1}, {"sequence", sequence}};
      Expected<ImportedModel> reference = importModelFile(file, fixed);
      ASSERT_TRUE(reference.ok()) << reference.message();
      std::mt19937 rng{unsigned(sequence)};
      std::vector<std::int64_t> ids, mask;
      for (std::int64_t i = 0; i < sequence; ++i) {
        ids.push_back(std::int64_t(rng() % 100));
        mask.push_back(i == 0 || rng() % 4 != 0);
      }
      HostTensorData idsData =
          HostTensorData::fromInts({ElementType::I64, {1, sequence}}, ids);
      HostTensorData maskData =
          HostTensorData::fromInts({ElementType::I64, {1, sequence}}, mask);
      auto run = [&](ImportedModel &m,
                     const Graph &g) -> Expected<std::vector<HostTensorData>> {
        std::vector<HostTensor> views;
        // The weights are shared and read-only: the views are of copies.
        std::vector<HostTensorData> weights;
        weights.reserve(g.inputs.size());
        for (std::size_t i = 0; i < g.inputs.size(); ++i) {
          if (m.weights[i]) {
            views.push_back(weights.emplace_back(*m.weights[i]).view());
            continue;
          }
          const std::string &input = g.tensors[g.inputs[i]].name;
          views.push_back(input == "input_ids" ? idsData.view()
                                               : maskData.view());
        }
        return evaluateGraph(g, views);
      };
      Expected<std::vector<HostTensorData>> got = run(*model, *bound);
      Expected<std::vector<HostTensorData>> want =
          run(*reference, reference->graph);
      ASSERT_TRUE(got.ok()) << got.message();
      ASSERT_TRUE(want.ok()) << want.message();
      const std::vector<double> a = got->front().toDoubles(),
                                c = want->front().toDoubles();
      ASSERT_EQ(a.size(), c.size());
      double largest = 0, worst = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        largest = std::max(largest, std::abs(c[i]));
        worst = std::max(worst, std::abs(a[i] - c[i]));
      }
      std::cout << name << " sequence " << sequence << ": max |diff| " << worst
                << ", max |out| " << largest << "\n";
      EXPECT_LE(worst, 1e-5 * largest);
    }
  }
}

} // namespace
} // namespace fuse::onnximport
