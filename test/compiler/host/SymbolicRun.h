// The harness of the host tests of symbolic dims (issue 22): a symbolic
// bundle compiled once is run at several values of its dims (runBundle binds
// it through the inputs' shapes), each run against the reference interpreter
// on the graph bound to the same values.

#ifndef FUSE_TEST_COMPILER_HOST_SYMBOLICRUN_H
#define FUSE_TEST_COMPILER_HOST_SYMBOLICRUN_H

#include "HostCodegenTest.h"

#include "runtime/cache/SymbolicBundle.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace fuse {

/// `text` with every occurrence of each placeholder (such as "$T") replaced
/// by its text (a type), the placeholders taken in order. The tests write
/// their modules with short placeholders for the long symbolic types.
inline std::string withPlaceholders(
    std::string text,
    const std::vector<std::pair<std::string, std::string>> &placeholders) {
  for (const auto &[from, to] : placeholders)
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

class SymbolicRun : public HostCodegen {
protected:
  /// Binds `bundle` to `dims` (through the inputs' shapes), runs it on
  /// random inputs (in `domains` per input where given) and compares every
  /// output with the reference interpreter.
  /// `adjust` may change the random inputs before both runs.
  void
  checkAt(const Bundle &bundle, const DimBindings &dims,
          std::vector<Domain> domains = {},
          std::function<void(std::vector<HostTensorData> &)> adjust = nullptr) {
    std::string where;
    for (const auto &[name, value] : dims)
      where += name + "=" + std::to_string(value) + " ";
    SCOPED_TRACE(where + "random seed " + std::to_string(seed));
    Expected<Graph> graph = bindDims(bundle.graph, dims);
    ASSERT_TRUE(graph.ok()) << graph.message();
    std::vector<HostTensorData> inputs;
    std::vector<HostTensor> views;
    std::vector<TensorBytes> bytes;
    std::vector<std::vector<std::int64_t>> shapes;
    for (size_t i = 0; i < graph->inputs.size(); ++i)
      inputs.push_back(
          randomTensor(graph->typeOf(graph->inputs[i]),
                       i < domains.size() ? domains[i] : Domain{}));
    if (adjust)
      adjust(inputs);
    for (HostTensorData &input : inputs) {
      views.push_back(input.view());
      shapes.push_back(input.type.shape);
      const auto *p = reinterpret_cast<const std::byte *>(input.bytes.data());
      bytes.emplace_back(p, p + input.bytes.size());
    }
    Expected<std::vector<HostTensorData>> expected =
        evaluateGraph(*graph, views);
    ASSERT_TRUE(expected.ok()) << expected.message();
    // The dims come from the inputs' shapes.
    device::DeviceResult<std::vector<TensorBytes>> actual =
        device::runBundle(runtime, bundle, bytes, shapes);
    ASSERT_TRUE(actual.ok()) << actual.error().message;
    ASSERT_EQ(actual->size(), graph->outputs.size());
    for (size_t k = 0; k < graph->outputs.size(); ++k) {
      HostTensorData &want = (*expected)[k];
      ASSERT_EQ((*actual)[k].size(), want.bytes.size()) << "output " << k;
      HostTensor got{want.type, (*actual)[k].data()};
      Comparison c = compare(
          want.view(), got,
          toleranceForOutput(*graph, graph->outputs[k].tensor, want.view()));
      EXPECT_TRUE(c.ok) << "output " << k << ": " << c.message;
    }
  }
};

} // namespace fuse

#endif // FUSE_TEST_COMPILER_HOST_SYMBOLICRUN_H
