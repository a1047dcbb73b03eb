// The op table (runtime/ir/Ops.def) and the fuse dialect list the same ops;
// every op has an example that translates both ways (GraphTranslationTest)
// and that the reference interpreter evaluates.

#include "ExampleGraphs.h"
#include "compiler/common/GraphTranslation.h"
#include "runtime/ir/Interpreter.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace fuse {
namespace {

std::set<std::string> dialectOps() {
  mlir::MLIRContext context;
  loadTranslationDialects(context);
  std::set<std::string> names;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() == "fuse")
      names.insert(name.stripDialect().str());
  }
  return names;
}

// Region ops that structure kernels rather than compute tensors.
const std::set<std::string> kStructuralOps = {"fusion", "yield"};

TEST(OpTable, EveryDialectOpIsInTheTable) {
  std::set<std::string> ops = dialectOps();
  ASSERT_GT(ops.size(), 50u);
  for (const std::string &op : ops) {
    if (kStructuralOps.count(op))
      continue;
    EXPECT_TRUE(parseOpKind(op).has_value())
        << "fuse." << op << " has no entry in runtime/ir/Ops.def";
  }
}

TEST(OpTable, EveryTableOpIsInTheDialect) {
  std::set<std::string> ops = dialectOps();
  for (OpKind kind : allOpKinds())
    // iota and dim_value: symbolic graphs only, bound before compiling.
    EXPECT_TRUE(isBindTimeOp(kind) || ops.count(std::string(mnemonic(kind))))
        << mnemonic(kind) << " is in Ops.def but not in the fuse dialect";
}

TEST(OpTable, EveryOpHasAReferenceImplementation) {
  for (OpKind kind : allOpKinds()) {
    for (const Graph &graph : test::exampleGraphs(kind)) {
      std::vector<HostTensorData> inputs;
      std::vector<HostTensor> views;
      for (TensorId input : graph.inputs) {
        const TensorType &type = graph.typeOf(input);
        std::vector<double> values(type.numElements());
        for (size_t i = 0; i < values.size(); ++i)
          values[i] = 0.25 + 0.5 * double(i % 3);
        inputs.push_back(HostTensorData::fromDoubles(type, values));
      }
      for (HostTensorData &input : inputs)
        views.push_back(input.view());
      Expected<std::vector<HostTensorData>> outputs =
          evaluateGraph(graph, views);
      EXPECT_TRUE(outputs.ok()) << mnemonic(kind) << ": " << outputs.message();
    }
  }
}

} // namespace
} // namespace fuse
