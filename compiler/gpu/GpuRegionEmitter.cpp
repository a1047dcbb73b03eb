//===- GpuRegionEmitter.cpp - Region values at an index, on the GPU -------===//
//
// What GpuRegionEmitter.h declares: the GPU region emitter's own ops (a
// matmul pulled at an index, libdevice math) and the kernel scaffolding.
//
//===----------------------------------------------------------------------===//

#include "compiler/gpu/GpuRegionEmitter.h"

#include "compiler/common/FusionFrontEnd.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace fuse::ptx {

using namespace codegen;

FailureOr<ReductionInfo> classifyReduction(fd::ReduceOp reduce,
                                           StringRef schedule) {
  Type element = elementTypeOf(reduce.getResult());
  if (!isa<FloatType>(element))
    return reduce.emitOpError()
           << "cannot be generated for the GPU in a " << schedule
           << " kernel: integer reductions are not supported yet";
  return reductionInfo(reduce);
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

Value asI64(OpBuilder &b, Location loc, Value index) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

Value threadId(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
}

Value blockId(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
}

Value blockDim(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::BlockDimOp::create(b, loc, gpu::Dimension::x));
}

Value gridDim(OpBuilder &b, Location loc) {
  return asI64(b, loc, gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
}

KernelPointers createKernel(OpBuilder &b, ModuleOp module, fd::FusionOp fusion,
                            StringRef name, unsigned numOutputs, bool scratch,
                            bool scratchReadOnly, unsigned blockSize) {
  Location loc = fusion.getLoc();
  MLIRContext *context = b.getContext();
  b.setInsertionPointToEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, (name + "_module").str());
  b.setInsertionPointToStart(gpuModule.getBody());
  unsigned numInputs = fusion.getInputs().size();
  unsigned count = numInputs + numOutputs + (scratch ? 1 : 0);
  SmallVector<Operation *> checked = frontend::checkedOps(fusion);
  Type ptr = LLVM::LLVMPointerType::get(context, kGlobalAddressSpace);
  // The error record (KernelAbi.h) after the bindings, then the dims of a
  // fusion emitted for runtime dims, by value (KernelAbi.h, "Runtime
  // dims").
  SmallVector<Type> types(count + (checked.empty() ? 0 : 1), ptr);
  auto dims = fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr);
  unsigned firstDim = types.size();
  if (dims)
    types.append(dims.size(), b.getI64Type());
  auto func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(types, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  if (dims)
    func->setAttr(codegen::kDimsParameterAttr,
                  b.getI64IntegerAttr(int64_t(firstDim)));
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({int32_t(blockSize), 1, 1}));
  for (unsigned i = 0; i < count; ++i) {
    func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                    b.getUnitAttr());
    bool readOnly =
        i < numInputs || (scratch && scratchReadOnly && i + 1 == count);
    if (readOnly)
      func.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(),
                      b.getUnitAttr());
  }
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(&entry);
  KernelPointers pointers;
  pointers.func = func;
  for (BlockArgument arg : fusion.getBody().front().getArguments())
    pointers.inputs[arg] = entry.getArgument(arg.getArgNumber());
  for (unsigned k = 0; k < numOutputs; ++k)
    pointers.outputs.push_back(entry.getArgument(numInputs + k));
  if (scratch)
    pointers.scratch = entry.getArgument(count - 1);
  // A fusion with runtime dims and no input (an iota alone): its first
  // output's pointer, by the fusion's own result (which no value inside
  // names), tells the region emitter the kernel whose dims to read
  // (RegionEmitterBase::dimsKernel), as on the host.
  if (dims && numInputs == 0 && numOutputs > 0)
    pointers.inputs[fusion->getResult(0)] = pointers.outputs.front();
  if (!checked.empty()) {
    func.setArgAttr(count, LLVM::LLVMDialect::getNoAliasAttrName(),
                    b.getUnitAttr());
    Value record = entry.getArgument(count);
    for (auto [slot, op] : llvm::enumerate(checked))
      pointers.inputs[op->getResult(0)] = LLVM::GEPOp::create(
          b, loc, ptr, b.getI64Type(), record,
          ArrayRef<LLVM::GEPArg>{int32_t(slot * kErrorRecordWordsPerCheck)});
  }
  return pointers;
}

Value extentValue(OpBuilder &b, Location loc, fd::FusionOp fusion,
                  gpu::GPUFuncOp func, int64_t extent) {
  auto dims = fusion->getAttrOfType<DictionaryAttr>(kRuntimeDimsAttr);
  if (!dims || !func->hasAttr(codegen::kDimsParameterAttr))
    return i64Constant(b, loc, extent);
  return codegen::runtimeSize(b, loc, dims, func, extent);
}

FailureOr<StridedLoop>
emitStridedLoop(OpBuilder &b, Location loc, Value lo, int64_t length,
                Value thread, Value threads, bool vectorize, bool aligned,
                int64_t block, const DenseMap<Value, Value> &pointers,
                const DenseMap<Value, Value> &seeds, ValueRange vectorInit,
                ValueRange scalarInit, StepBody body) {
  return emitStridedLoop(b, loc, lo, length, Value(), thread, threads,
                         vectorize, aligned, block, pointers, seeds, vectorInit,
                         scalarInit, body);
}

FailureOr<StridedLoop> emitStridedLoop(
    OpBuilder &b, Location loc, Value lo, int64_t length, Value lengthValue,
    Value thread, Value threads, bool vectorize, bool aligned, int64_t block,
    const DenseMap<Value, Value> &pointers, const DenseMap<Value, Value> &seeds,
    ValueRange vectorInit, ValueRange scalarInit, StepBody body) {
  // A runtime length is a constant times dims, the representative `length`
  // that constant times odd primes: a multiple of the width exactly where
  // every value of it is, and past the width.
  if (lengthValue && matchPattern(lengthValue, m_Constant()))
    lengthValue = Value();
  int64_t vectorLength =
      vectorize ? length / kGpuVectorWidth * kGpuVectorWidth : 0;
  Value vectorEnd, end;
  if (!lengthValue) {
    vectorEnd =
        arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, vectorLength));
    end = arith::AddIOp::create(b, loc, lo, i64Constant(b, loc, length));
  } else {
    end = arith::AddIOp::create(b, loc, lo, lengthValue);
    vectorEnd =
        vectorLength == length
            ? end
            : Value(arith::AddIOp::create(
                  b, loc, lo,
                  arith::AndIOp::create(
                      b, loc, lengthValue,
                      i64Constant(b, loc, ~int64_t(kGpuVectorWidth - 1)))));
  }
  StridedLoop result;
  bool failedBody = false;
  auto makeLoop = [&](Value from, Value to, unsigned w, ValueRange init) {
    Value width = i64Constant(b, loc, w);
    Value first = arith::AddIOp::create(
        b, loc, from, arith::MulIOp::create(b, loc, thread, width));
    Value step = arith::MulIOp::create(b, loc, threads, width);
    auto loop = scf::ForOp::create(
        b, loc, first, to, step, init,
        [&](OpBuilder &nested, Location nestedLoc, Value iv, ValueRange args) {
          Index index{w == 1 ? Index::Uniform : Index::Contiguous, iv, block,
                      aligned};
          yieldStep<RegionEmitter>(nested, nestedLoc, w, pointers, seeds, index,
                                   args, body, failedBody);
        });
    return SmallVector<Value>(loop.getResults());
  };
  if (vectorLength > 0)
    result.vectorResults = makeLoop(lo, vectorEnd, kGpuVectorWidth, vectorInit);
  else
    result.vectorResults.assign(vectorInit.begin(), vectorInit.end());
  if (vectorLength < length)
    result.scalarResults = makeLoop(vectorEnd, end, 1, scalarInit);
  else
    result.scalarResults.assign(scalarInit.begin(), scalarInit.end());
  if (failedBody)
    return failure();
  return result;
}

void setGrid(LaunchConfig &launch, fd::FusionOp fusion, int64_t iterations,
             int64_t perBlock, uint32_t maxBlocks) {
  launch.iterations = iterations;
  if (!fusion->hasAttr(kRuntimeDimsAttr)) {
    launch.gridX = gpuGridBlocks(iterations, perBlock, maxBlocks);
    return;
  }
  launch.gridX = maxBlocks;
  launch.grain = perBlock;
}

gpu::AllReduceOperation allReduceKind(vector::CombiningKind kind) {
  switch (kind) {
  case vector::CombiningKind::ADD:
    return gpu::AllReduceOperation::ADD;
  case vector::CombiningKind::MUL:
    return gpu::AllReduceOperation::MUL;
  case vector::CombiningKind::MAXIMUMF:
    return gpu::AllReduceOperation::MAXIMUMF;
  default:
    return gpu::AllReduceOperation::MINIMUMF;
  }
}

Value reduceBlock(OpBuilder &b, Location loc, const ReductionInfo &r,
                  Value vectorAcc, Value scalarAcc) {
  Value horizontal =
      vector::ReductionOp::create(b, loc, r.combining, vectorAcc);
  Value partial = combine(b, loc, r, horizontal, scalarAcc);
  return gpu::AllReduceOp::create(
      b, loc, partial,
      gpu::AllReduceOperationAttr::get(b.getContext(),
                                       allReduceKind(r.combining)),
      /*uniform=*/true);
}

Value reduceWarp(OpBuilder &b, Location loc, const ReductionInfo &r,
                 Value vectorAcc, Value scalarAcc) {
  Value horizontal =
      vector::ReductionOp::create(b, loc, r.combining, vectorAcc);
  Value partial = combine(b, loc, r, horizontal, scalarAcc);
  return gpu::SubgroupReduceOp::create(b, loc, partial,
                                       allReduceKind(r.combining),
                                       /*uniform=*/true);
}

void onlyIf(OpBuilder &b, Location loc, Value condition,
            function_ref<void(OpBuilder &)> body) {
  auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}

void onFirstThread(OpBuilder &b, Location loc,
                   function_ref<void(OpBuilder &)> body) {
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId(b, loc),
                            i64Constant(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(b);
}

Value scratchAddress(OpBuilder &b, Location loc, Value scratch, Type element,
                     Value slot) {
  return LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace),
      element, scratch, ValueRange{slot});
}

Value sharedBuffer(OpBuilder &b, Location loc, Operation *func, StringRef name,
                   Type type) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(func);
  auto global = LLVM::GlobalOp::create(
      b, loc, type, /*isConstant=*/false, LLVM::Linkage::Internal, name,
      mlir::Attribute(), /*alignment=*/16, kSharedAddressSpace);
  b.setInsertionPointToStart(&func->getRegion(0).front());
  return LLVM::AddressOfOp::create(b, loc, global);
}

Value RegionEmitter::scaled(Value x, int64_t stride) {
  if (stride == 1)
    return x;
  Value c = isa<VectorType>(x.getType())
                ? constantVector(b.getI64Type(), stride)
                : i64(stride);
  return arith::MulIOp::create(b, loc, x, c);
}

FailureOr<Value> RegionEmitter::emitOwnOp(fd::MatmulOp op, Index index) {
  Type compute = computeType(elementTypeOf(op.getResult()));
  if (!isa<FloatType>(compute))
    return unsupported(op, "integer matmuls are not supported yet");
  ArrayRef<int64_t> c = shapeOf(op.getResult());
  ArrayRef<int64_t> lhs = shapeOf(op.getLhs()), rhs = shapeOf(op.getRhs());
  int64_t m = c[c.size() - 2], n = c.back();
  int64_t k = op.getTransposeA() ? lhs[lhs.size() - 2] : lhs.back();
  // Strides of (batch, i, k) in lhs and (batch, k, j) in rhs; a rank-2
  // operand is shared across the batch.
  int64_t lhsBatch = lhs.size() > 2 ? m * k : 0;
  int64_t lhsI = op.getTransposeA() ? 1 : k, lhsK = op.getTransposeA() ? m : 1;
  int64_t rhsBatch = rhs.size() > 2 ? k * n : 0;
  int64_t rhsK = op.getTransposeB() ? 1 : n, rhsJ = op.getTransposeB() ? k : 1;

  bool oneRow =
      width != 1 && index.kind == Index::Contiguous && n % index.block == 0;
  // Positions in the result: a scalar (one lane, or the first lane of a
  // row) or one per lane.
  Value position = index.value;
  if (width != 1 && !oneRow) {
    auto laneType = VectorType::get({width}, b.getI64Type());
    if (index.kind == Index::Uniform)
      position = vector::BroadcastOp::create(b, loc, laneType, position);
    if (index.kind == Index::Contiguous)
      position = arith::AddIOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, laneType, position),
          laneSteps());
  }
  bool isVector = isa<VectorType>(position.getType());
  auto c64 = [&](int64_t v) {
    return isVector ? constantVector(b.getI64Type(), v) : i64(v);
  };
  Value batch = arith::DivUIOp::create(b, loc, position, c64(m * n));
  Value i = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, position, c64(n)), c64(m));
  Value j = arith::RemUIOp::create(b, loc, position, c64(n));
  Value lhsBase =
      arith::AddIOp::create(b, loc, scaled(batch, lhsBatch), scaled(i, lhsI));
  Value rhsBase =
      arith::AddIOp::create(b, loc, scaled(batch, rhsBatch), scaled(j, rhsJ));
  Index::Kind lhsKind = isVector ? Index::Lanes : Index::Uniform;
  Index::Kind rhsKind = lhsKind;
  if (oneRow && rhsJ == 1) {
    rhsKind = Index::Contiguous;
  } else if (oneRow) {
    // Transposed rhs: lanes j..j+W-1 are K apart.
    auto laneType = VectorType::get({width}, b.getI64Type());
    rhsBase = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, laneType, rhsBase),
        scaled(laneSteps(), rhsJ));
    rhsKind = Index::Lanes;
  }
  bool rhsAligned = index.aligned && n % width == 0;

  Value init = constant(compute, 0.0);
  bool failedBody = false;
  auto loop = scf::ForOp::create(
      b, loc, i64(0), i64(k), i64(1), ValueRange{init},
      [&](OpBuilder &nested, Location nestedLoc, Value kk, ValueRange acc) {
        RegionEmitter inner(nested, nestedLoc, width, argPointers);
        for (auto [value, known] : seeded)
          inner.seed(value, known);
        auto at = [&](Value base, int64_t stride) -> Value {
          Value offset = inner.scaled(kk, stride);
          if (isa<VectorType>(base.getType()))
            offset = vector::BroadcastOp::create(nested, nestedLoc,
                                                 base.getType(), offset);
          return arith::AddIOp::create(nested, nestedLoc, base, offset);
        };
        FailureOr<Value> a =
            inner.emit(op.getLhs(), {lhsKind, at(lhsBase, lhsK)});
        FailureOr<Value> bv = inner.emit(
            op.getRhs(), {rhsKind, at(rhsBase, rhsK), index.block, rhsAligned});
        if (failed(a) || failed(bv)) {
          failedBody = true;
          scf::YieldOp::create(nested, nestedLoc, acc);
          return;
        }
        scf::YieldOp::create(
            nested, nestedLoc,
            Value(math::FmaOp::create(nested, nestedLoc, *a, *bv, acc[0])));
      });
  if (failedBody)
    return failure();
  return loop.getResult(0);
}

Value RegionEmitter::lowerTargetFloatOp(Operation *op, StringRef name,
                                        ArrayRef<Value> x, Type compute) {
  if (name == "exp")
    return math::ExpOp::create(b, loc, x[0]);
  if (name == "log")
    return math::LogOp::create(b, loc, x[0]);
  if (name == "sigmoid") {
    auto one = [&] { return constant(compute, 1.0); };
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x[0]));
    return arith::DivFOp::create(b, loc, one(),
                                 arith::AddFOp::create(b, loc, one(), e));
  }
  if (name == "atan")
    return math::AtanOp::create(b, loc, x[0]);
  if (name == "pow")
    return math::PowFOp::create(b, loc, x[0], x[1]);
  return {};
}

Value RegionEmitter::lowerTargetIntegerOp(Operation *op, StringRef name,
                                          ArrayRef<Value> x,
                                          Type operandElement) {
  Type compute = computeType(operandElement);
  if (name != "abs" || compute.isInteger(1))
    return {};
  if (isUnsignedElement(operandElement))
    return x[0];
  return arith::MaxSIOp::create(
      b, loc, x[0],
      arith::SubIOp::create(b, loc, constant(compute, 0.0), x[0]));
}

} // namespace fuse::ptx
