//===- ScatterKernel.cpp - What scatter kernels read ----------------------===//

#include "compiler/common/ScatterKernel.h"

#include "mlir/IR/BuiltinTypes.h"

#include <iterator>

using namespace mlir;
namespace fd = mlir::fuse;

namespace fuse::codegen {

FailureOr<ScatterKernel> scatterKernel(fd::FusionOp fusion, StringRef prefix) {
  auto scatters = fusion.getBody().getOps<fd::ScatterOp>();
  auto yield = cast<fd::YieldOp>(fusion.getBody().front().getTerminator());
  if (std::distance(scatters.begin(), scatters.end()) != 1 ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != (*scatters.begin()).getResult())
    return fusion.emitOpError()
           << "a scatter kernel computes one fuse.scatter and yields it";
  ScatterKernel kernel;
  kernel.scatter = *scatters.begin();
  ArrayRef<int64_t> dataShape =
      cast<RankedTensorType>(kernel.scatter.getData().getType()).getShape();
  kernel.rows = dataShape[0];
  for (int64_t d : dataShape.drop_front())
    kernel.inner *= d;
  for (int64_t d :
       cast<RankedTensorType>(kernel.scatter.getIndices().getType()).getShape())
    kernel.count *= d;
  kernel.name = (prefix + "_scatter").str();
  return kernel;
}

} // namespace fuse::codegen
