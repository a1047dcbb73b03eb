//===- GraphTranslation.cpp - Graph <-> fuse dialect ----------------------===//
//
// Both directions are driven by the op table (runtime/ir/Ops.def): an op's
// mnemonic names its `fuse.` op and its attribute specs say how each
// attribute converts, so a new op in the table needs no code here unless it
// brings a new attribute kind.
//
//===----------------------------------------------------------------------===//

#include "compiler/common/GraphTranslation.h"

#include "dialect/FuseDims.h"
#include "runtime/ir/Verifier.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"

#include <cstring>

using namespace mlir;

namespace fuse {

using GraphAttr = ::fuse::Attribute;

void loadTranslationDialects(MLIRContext &context) {
  context.loadDialect<mlir::fuse::FuseDialect, func::FuncDialect>();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static Type toMlirElementType(MLIRContext &context, ElementType type) {
  Builder b(&context);
  switch (type) {
  case ElementType::F32:
    return b.getF32Type();
  case ElementType::F16:
    return b.getF16Type();
  case ElementType::BF16:
    return b.getBF16Type();
  case ElementType::F64:
    return b.getF64Type();
  case ElementType::I1:
    return b.getI1Type();
  case ElementType::I8:
    return b.getI8Type();
  case ElementType::I32:
    return b.getI32Type();
  case ElementType::I64:
    return b.getI64Type();
  case ElementType::I16:
    return b.getI16Type();
  case ElementType::UI8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case ElementType::UI16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case ElementType::UI32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case ElementType::UI64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case ElementType::F8E4M3FN:
    return b.getType<Float8E4M3FNType>();
  case ElementType::F8E4M3FNUZ:
    return b.getType<Float8E4M3FNUZType>();
  case ElementType::F8E5M2:
    return b.getType<Float8E5M2Type>();
  case ElementType::F8E5M2FNUZ:
    return b.getType<Float8E5M2FNUZType>();
  case ElementType::F8E8M0FNU:
    return b.getType<Float8E8M0FNUType>();
  case ElementType::F4E2M1FN:
    return b.getType<Float4E2M1FNType>();
  case ElementType::I4:
    return b.getIntegerType(4);
  case ElementType::UI4:
    return b.getIntegerType(4, /*isSigned=*/false);
  case ElementType::I2:
    return b.getIntegerType(2);
  case ElementType::UI2:
    return b.getIntegerType(2, /*isSigned=*/false);
  }
  llvm_unreachable("unknown element type");
}

static std::optional<ElementType> fromMlirElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF64())
    return ElementType::F64;
  if (type.isSignlessInteger(1))
    return ElementType::I1;
  if (type.isSignlessInteger(8))
    return ElementType::I8;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  if (type.isSignlessInteger(16))
    return ElementType::I16;
  if (type.isUnsignedInteger(8))
    return ElementType::UI8;
  if (type.isUnsignedInteger(16))
    return ElementType::UI16;
  if (type.isUnsignedInteger(32))
    return ElementType::UI32;
  if (type.isUnsignedInteger(64))
    return ElementType::UI64;
  if (isa<Float8E4M3FNType>(type))
    return ElementType::F8E4M3FN;
  if (isa<Float8E4M3FNUZType>(type))
    return ElementType::F8E4M3FNUZ;
  if (isa<Float8E5M2Type>(type))
    return ElementType::F8E5M2;
  if (isa<Float8E5M2FNUZType>(type))
    return ElementType::F8E5M2FNUZ;
  if (isa<Float8E8M0FNUType>(type))
    return ElementType::F8E8M0FNU;
  if (isa<Float4E2M1FNType>(type))
    return ElementType::F4E2M1FN;
  if (type.isSignlessInteger(4))
    return ElementType::I4;
  if (type.isUnsignedInteger(4))
    return ElementType::UI4;
  if (type.isSignlessInteger(2))
    return ElementType::I2;
  if (type.isUnsignedInteger(2))
    return ElementType::UI2;
  return std::nullopt;
}

/// A static type, or with `dims` (a symbolic graph's table) one whose
/// symbolic dims become `?` named by a #fuse.dims encoding.
static RankedTensorType toMlirType(MLIRContext &context, const TensorType &type,
                                   const DimTable *dims = nullptr) {
  Type element = toMlirElementType(context, type.elementType);
  if (!dims || type.isStatic())
    return RankedTensorType::get(type.shape, element);
  SmallVector<DimExpr> shape;
  for (int64_t dim : type.shape)
    shape.push_back(dims->expr(dim));
  return mlir::fuse::tensorTypeOf(shape, element);
}

/// With `dims`, a `?` named by the type's encoding is interned there;
/// without, only static types convert.
static std::optional<TensorType> fromMlirType(Type type,
                                              DimTable *dims = nullptr) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !mlir::fuse::isFuseShaped(tensor) ||
      (!dims && !tensor.hasStaticShape()))
    return std::nullopt;
  std::optional<ElementType> element =
      fromMlirElementType(tensor.getElementType());
  if (!element)
    return std::nullopt;
  TensorType result{*element, {}};
  for (unsigned i = 0; i < unsigned(tensor.getRank()); ++i) {
    if (!tensor.isDynamicDim(i)) {
      result.shape.push_back(tensor.getDimSize(i));
      continue;
    }
    Expected<int64_t> code = dims->intern(mlir::fuse::dimExpr(tensor, i));
    if (!code.ok())
      return std::nullopt;
    result.shape.push_back(*code);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Dense values
//===----------------------------------------------------------------------===//

static DenseElementsAttr toMlirDense(MLIRContext &context,
                                     const DenseValue &value) {
  RankedTensorType type = toMlirType(context, value.type());
  int64_t width = byteSize(value.elementType);
  int64_t count = value.splat ? 1 : value.type().numElements();
  auto loadBits = [&](int64_t i) {
    uint64_t bits = 0;
    std::memcpy(&bits, value.bytes.data() + i * width, width);
    return bits;
  };
  if (isFloat(value.elementType)) {
    const llvm::fltSemantics &semantics =
        cast<FloatType>(type.getElementType()).getFloatSemantics();
    // f4E2M1FN: the low four bits of its byte.
    unsigned bits = APFloat::semanticsSizeInBits(semantics);
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < count; ++i)
      values.emplace_back(semantics, APInt(64, loadBits(i)).trunc(bits));
    return DenseElementsAttr::get(type, values);
  }
  unsigned bits = integerBitWidth(value.elementType);
  SmallVector<APInt> values;
  for (int64_t i = 0; i < count; ++i)
    values.emplace_back(bits, loadBits(i) &
                                  (bits == 64 ? ~0ull : ((1ull << bits) - 1)));
  return DenseElementsAttr::get(type, values);
}

static std::optional<DenseValue> fromMlirDense(mlir::Attribute attr) {
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  std::optional<TensorType> type = fromMlirType(dense.getType());
  if (!type)
    return std::nullopt;
  DenseValue value;
  value.elementType = type->elementType;
  value.shape = type->shape;
  value.splat = dense.isSplat();
  int64_t width = byteSize(value.elementType);
  auto storeBits = [&](uint64_t bits) {
    size_t offset = value.bytes.size();
    value.bytes.resize(offset + width);
    std::memcpy(value.bytes.data() + offset, &bits, width);
  };
  if (isFloat(value.elementType)) {
    if (value.splat)
      storeBits(dense.getSplatValue<APFloat>().bitcastToAPInt().getZExtValue());
    else
      for (const APFloat &f : dense.getValues<APFloat>())
        storeBits(f.bitcastToAPInt().getZExtValue());
  } else {
    // i4 and i2 are sign-extended to their byte, the others' bits fill it.
    bool signExtend = value.elementType == ElementType::I4 ||
                      value.elementType == ElementType::I2;
    auto bitsOf = [&](const APInt &i) {
      return signExtend ? uint64_t(i.getSExtValue()) : i.getZExtValue();
    };
    if (value.splat)
      storeBits(bitsOf(dense.getSplatValue<APInt>()));
    else
      for (const APInt &i : dense.getValues<APInt>())
        storeBits(bitsOf(i));
  }
  return value;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// The MLIR attribute for a Graph attribute; a null mlir::Attribute for a false
/// flag (an absent unit attribute).
static FailureOr<mlir::Attribute> toMlirAttr(MLIRContext &context, OpKind kind,
                                             const AttrSpec &spec,
                                             const GraphAttr &attr) {
  Builder b(&context);
  switch (spec.kind) {
  case AttrKind::I64:
    return mlir::Attribute(b.getI64IntegerAttr(attr.getI64()));
  case AttrKind::I64Array:
    return mlir::Attribute(b.getDenseI64ArrayAttr(attr.getI64Array()));
  case AttrKind::F64:
    return mlir::Attribute(b.getF64FloatAttr(attr.getF64()));
  case AttrKind::Bool:
    return attr.getFlag() ? mlir::Attribute(b.getUnitAttr())
                          : mlir::Attribute();
  case AttrKind::Type:
    return mlir::Attribute(
        TypeAttr::get(toMlirElementType(context, attr.getElementType())));
  case AttrKind::Dense:
    return mlir::Attribute(toMlirDense(context, attr.getDense()));
  case AttrKind::Enum: {
    std::optional<uint64_t> value;
    if (kind == OpKind::Compare) {
      if (auto p = mlir::fuse::symbolizeComparePredicate(attr.getEnumName()))
        value = static_cast<uint64_t>(*p);
    } else if (kind == OpKind::Reduce || kind == OpKind::Pool) {
      if (auto k = mlir::fuse::symbolizeReduceKind(attr.getEnumName()))
        value = static_cast<uint64_t>(*k);
    } else if (kind == OpKind::Cast) {
      if (auto m = mlir::fuse::symbolizeRoundMode(attr.getEnumName()))
        value = static_cast<uint64_t>(*m);
    } else if (kind == OpKind::Scatter) {
      if (auto r = mlir::fuse::symbolizeScatterReduction(attr.getEnumName()))
        value = static_cast<uint64_t>(*r);
    }
    if (!value)
      return failure();
    return mlir::Attribute(b.getI64IntegerAttr(*value));
  }
  }
  return failure();
}

static FailureOr<GraphAttr> fromMlirAttr(OpKind kind, const AttrSpec &spec,
                                         mlir::Attribute attr) {
  switch (spec.kind) {
  case AttrKind::I64:
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return GraphAttr::i64(i.getInt());
    break;
  case AttrKind::I64Array:
    if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
      return GraphAttr::i64Array(
          std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
    break;
  case AttrKind::F64:
    if (auto f = dyn_cast<FloatAttr>(attr))
      return GraphAttr::f64(f.getValueAsDouble());
    break;
  case AttrKind::Bool:
    if (isa<UnitAttr>(attr))
      return GraphAttr::flag(true);
    break;
  case AttrKind::Type:
    if (auto t = dyn_cast<TypeAttr>(attr))
      if (auto e = fromMlirElementType(t.getValue()))
        return GraphAttr::elementType(*e);
    break;
  case AttrKind::Dense:
    if (auto d = fromMlirDense(attr))
      return GraphAttr::dense(std::move(*d));
    break;
  case AttrKind::Enum: {
    auto i = dyn_cast<IntegerAttr>(attr);
    if (!i)
      break;
    if (kind == OpKind::Compare)
      if (auto p = mlir::fuse::symbolizeComparePredicate(i.getInt()))
        return GraphAttr::enumName(
            mlir::fuse::stringifyComparePredicate(*p).str());
    if (kind == OpKind::Reduce || kind == OpKind::Pool)
      if (auto k = mlir::fuse::symbolizeReduceKind(i.getInt()))
        return GraphAttr::enumName(mlir::fuse::stringifyReduceKind(*k).str());
    if (kind == OpKind::Cast)
      if (auto m = mlir::fuse::symbolizeRoundMode(i.getInt()))
        return GraphAttr::enumName(mlir::fuse::stringifyRoundMode(*m).str());
    if (kind == OpKind::Scatter)
      if (auto r = mlir::fuse::symbolizeScatterReduction(i.getInt()))
        return GraphAttr::enumName(
            mlir::fuse::stringifyScatterReduction(*r).str());
    break;
  }
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// Graph -> MLIR
//===----------------------------------------------------------------------===//

FailureOr<OwningOpRef<ModuleOp>>
graphToModule(MLIRContext &context, const Graph &graph, StringRef funcName) {
  loadTranslationDialects(context);
  Location unknown = UnknownLoc::get(&context);
  // Symbolic dims (Graph.h) become `?` named by #fuse.dims encodings;
  // the function keeps the graph's table (kDimSymbolsAttr, kDimTableAttr) so
  // that the way back rebuilds it as it was.
  const DimTable *dims = graph.isSymbolic() ? &graph.dims : nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(unknown);
  OpBuilder builder(&context);
  builder.setInsertionPointToEnd(module->getBody());

  SmallVector<Type> argTypes, resultTypes;
  for (TensorId input : graph.inputs)
    argTypes.push_back(toMlirType(context, graph.typeOf(input), dims));
  for (const GraphOutput &output : graph.outputs)
    resultTypes.push_back(
        toMlirType(context, graph.typeOf(output.tensor), dims));
  auto func =
      func::FuncOp::create(builder, unknown, funcName,
                           builder.getFunctionType(argTypes, resultTypes));
  if (dims) {
    SmallVector<mlir::Attribute> symbols;
    for (const std::string &symbol : dims->symbols)
      symbols.push_back(builder.getStringAttr(symbol));
    func->setAttr(kDimSymbolsAttr, builder.getArrayAttr(symbols));
    func->setAttr(kDimTableAttr,
                  mlir::fuse::dimsAttrOf(
                      &context, SmallVector<DimExpr>(dims->exprs.begin(),
                                                     dims->exprs.end())));
  }
  for (auto [i, input] : llvm::enumerate(graph.inputs))
    if (!graph.tensors[input].name.empty())
      func.setArgAttr(i, kTensorNameAttr,
                      builder.getStringAttr(graph.tensors[input].name));
  for (auto [i, output] : llvm::enumerate(graph.outputs))
    if (!output.name.empty())
      func.setResultAttr(i, kTensorNameAttr,
                         builder.getStringAttr(output.name));

  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  llvm::DenseMap<TensorId, Value> values;
  for (auto [i, input] : llvm::enumerate(graph.inputs))
    values[input] = body->getArgument(i);

  for (auto [index, op] : llvm::enumerate(graph.ops)) {
    const OpInfo &info = opInfo(op.kind);
    StringRef mnemonic(info.mnemonic.data(), info.mnemonic.size());
    const std::string &name = graph.tensors[op.result()].name;
    Location loc = name.empty()
                       ? unknown
                       : Location(NameLoc::get(builder.getStringAttr(name)));
    OperationState state(loc, "fuse." + std::string(info.mnemonic));
    for (TensorId operand : op.operands) {
      Value v = values.lookup(operand);
      if (!v)
        return emitError(unknown)
               << "graph op " << index << " (" << mnemonic << ") uses tensor "
               << operand << " before it is defined";
      state.addOperands(v);
    }
    state.addTypes(toMlirType(context, graph.typeOf(op.result()), dims));
    if (op.kind == OpKind::Constant && !graph.typeOf(op.result()).isStatic())
      return emitError(unknown)
             << "graph op " << index << " (constant) is a splat of symbolic "
             << "shape " << graph.typeString(graph.typeOf(op.result()))
             << ", which the fuse dialect cannot express yet; bind the dims "
                "(bindDims)";
    for (const auto &[attrName, attr] : op.attributes) {
      // Attributes in the shape encoding: dim_value's dim is a #fuse.dims;
      // a slice's symbolic size is -1, the result type's dim.
      if (op.kind == OpKind::DimValue && attrName == "dim") {
        DimExpr dim =
            dims ? dims->expr(attr.getI64()) : DimExpr::constant(attr.getI64());
        state.addAttribute(attrName, mlir::fuse::dimsAttrOf(&context, {dim}));
        continue;
      }
      if (dims && op.kind == OpKind::Slice && attrName == "sizes") {
        std::vector<int64_t> sizes = attr.getI64Array();
        for (int64_t &size : sizes)
          size = size < 0 ? -1 : size;
        state.addAttribute(attrName, builder.getDenseI64ArrayAttr(sizes));
        continue;
      }
      const AttrSpec *spec = findAttrSpec(op.kind, attrName);
      FailureOr<mlir::Attribute> converted =
          spec ? toMlirAttr(context, op.kind, *spec, attr)
               : FailureOr<mlir::Attribute>(failure());
      if (failed(converted))
        return emitError(unknown)
               << "graph op " << index << " (" << mnemonic
               << ") has attribute '" << attrName << "' = " << attr.toString()
               << ", which the fuse dialect cannot express";
      if (*converted)
        state.addAttribute(attrName, *converted);
    }
    Operation *created = builder.create(state);
    values[op.result()] = created->getResult(0);
  }

  SmallVector<Value> results;
  for (const GraphOutput &output : graph.outputs)
    results.push_back(values.lookup(output.tensor));
  func::ReturnOp::create(builder, unknown, results);
  if (failed(verify(*module)))
    return failure();
  return module;
}

//===----------------------------------------------------------------------===//
// MLIR -> Graph
//===----------------------------------------------------------------------===//

namespace {

class GraphExporter {
public:
  explicit GraphExporter(Graph &graph) : graph(graph) {}

  LogicalResult addInput(BlockArgument arg, StringRef name) {
    std::optional<TensorType> type = fromMlirType(arg.getType(), &graph.dims);
    if (!type)
      return emitError(arg.getLoc())
             << "argument " << arg.getArgNumber() << " has type "
             << arg.getType()
             << ", expected a tensor of a Fuse element type "
                "(runtime/ir/Ops.def), its dims static or named by "
                "#fuse.dims";
    // Graph::addInput takes any type; an op's operands are checked when the
    // op is added, but an argument no op reads (returned as it is) is not.
    if (Status status = checkTensorType(
            *type, "argument " + std::to_string(arg.getArgNumber()),
            graph.isSymbolic() ? &graph.dims : nullptr);
        !status.ok())
      return emitError(arg.getLoc()) << status.message();
    values[arg] = graph.addInput(*type, name.str());
    return success();
  }

  LogicalResult addBlock(Block &block) {
    for (Operation &op : block) {
      if (isa<func::ReturnOp, mlir::fuse::YieldOp>(op))
        continue;
      if (auto fusion = dyn_cast<mlir::fuse::FusionOp>(op)) {
        if (failed(addFusion(fusion)))
          return failure();
        continue;
      }
      if (failed(addOp(op)))
        return failure();
    }
    return success();
  }

  FailureOr<TensorId> lookup(Value value, Location loc) {
    auto it = values.find(value);
    if (it == values.end())
      return emitError(loc) << "value is not defined by a fuse op or a "
                               "function argument";
    return it->second;
  }

private:
  /// The attributes in the shape encoding (Graph.h): dim_value's dim, a
  /// #fuse.dims here, and a slice's sizes, where -1 is the result's
  /// symbolic dim. True when `named` was one of them.
  FailureOr<bool> addShapeAttr(Operation &op, OpKind kind, NamedAttribute named,
                               AttrMap &attributes) {
    StringRef attrName = named.getName().strref();
    if (kind == OpKind::DimValue && attrName == "dim") {
      auto dims = dyn_cast<mlir::fuse::DimsAttr>(named.getValue());
      if (!dims || dims.size() != 1)
        return op.emitError() << "attribute 'dim' is not a #fuse.dims of one "
                                 "dim";
      Expected<int64_t> code =
          graph.dims.intern(mlir::fuse::dimsEntry(dims, 0));
      if (!code.ok())
        return op.emitError() << code.message();
      attributes.emplace("dim", GraphAttr::i64(*code));
      return true;
    }
    if (kind != OpKind::Slice || attrName != "sizes")
      return false;
    auto sizes = dyn_cast<DenseI64ArrayAttr>(named.getValue());
    auto result = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    if (!sizes || !result || sizes.size() != result.getRank())
      return false;
    std::vector<int64_t> codes(sizes.asArrayRef().begin(),
                               sizes.asArrayRef().end());
    for (auto [i, size] : llvm::enumerate(codes)) {
      if (size != -1 || !result.isDynamicDim(i))
        continue;
      Expected<int64_t> code =
          graph.dims.intern(mlir::fuse::dimExpr(result, unsigned(i)));
      if (!code.ok())
        return op.emitError() << code.message();
      size = *code;
    }
    attributes.emplace("sizes", GraphAttr::i64Array(std::move(codes)));
    return true;
  }

  LogicalResult addFusion(mlir::fuse::FusionOp fusion) {
    Block &body = fusion.getBody().front();
    for (auto [arg, input] :
         llvm::zip(body.getArguments(), fusion.getInputs())) {
      FailureOr<TensorId> id = lookup(input, fusion.getLoc());
      if (failed(id))
        return failure();
      values[arg] = *id;
    }
    if (failed(addBlock(body)))
      return failure();
    auto yield = cast<mlir::fuse::YieldOp>(body.getTerminator());
    for (auto [result, yielded] :
         llvm::zip(fusion.getResults(), yield.getValues())) {
      FailureOr<TensorId> id = lookup(yielded, yield.getLoc());
      if (failed(id))
        return failure();
      values[result] = *id;
    }
    return success();
  }

  LogicalResult addOp(Operation &op) {
    std::optional<OpKind> kind;
    if (op.getDialect() && op.getDialect()->getNamespace() == "fuse")
      kind = parseOpKind(op.getName().stripDialect());
    if (!kind)
      return op.emitError() << "is not a fuse tensor op; a graph holds only "
                               "the ops of the op table";
    std::vector<TensorId> operands;
    for (Value operand : op.getOperands()) {
      FailureOr<TensorId> id = lookup(operand, op.getLoc());
      if (failed(id))
        return failure();
      operands.push_back(*id);
    }
    AttrMap attributes;
    for (NamedAttribute named : op.getAttrDictionary()) {
      StringRef attrName = named.getName().strref();
      if (FailureOr<bool> special = addShapeAttr(op, *kind, named, attributes);
          failed(special) || *special) {
        if (failed(special))
          return failure();
        continue;
      }
      const AttrSpec *spec = findAttrSpec(*kind, attrName);
      FailureOr<GraphAttr> converted =
          spec ? fromMlirAttr(*kind, *spec, named.getValue())
               : FailureOr<GraphAttr>(failure());
      if (failed(converted))
        return op.emitError()
               << "attribute '" << attrName << "' has no Graph equivalent";
      // A scatter's default reduction is no attribute in the Graph (the
      // dialect's default-valued attribute is always present).
      if (*kind == OpKind::Scatter && attrName == "reduction" &&
          converted->getEnumName() == "none")
        continue;
      attributes.emplace(attrName.str(), std::move(*converted));
    }
    std::optional<TensorType> resultType =
        fromMlirType(op.getResult(0).getType(), &graph.dims);
    if (!resultType)
      return op.emitError() << "result type " << op.getResult(0).getType()
                            << " is not a Graph tensor type";
    Expected<TensorId> id = graph.addOp(*kind, std::move(operands),
                                        std::move(attributes), *resultType);
    if (!id.ok())
      return op.emitError() << id.message();
    if (auto nameLoc = dyn_cast<NameLoc>(op.getLoc()))
      graph.tensors[*id].name = nameLoc.getName().str();
    values[op.getResult(0)] = *id;
    return success();
  }

  Graph &graph;
  llvm::DenseMap<Value, TensorId> values;
};

} // namespace

FailureOr<Graph> funcToGraph(func::FuncOp func) {
  if (func.isExternal())
    return func.emitError() << "has no body to translate into a graph";
  Graph graph;
  // The table of a translated symbolic graph, rebuilt in its order first.
  if (auto symbols = func->getAttrOfType<ArrayAttr>(kDimSymbolsAttr))
    for (mlir::Attribute symbol : symbols)
      if (auto name = dyn_cast<StringAttr>(symbol))
        graph.dims.symbol(name.getValue());
  if (auto table = func->getAttrOfType<mlir::fuse::DimsAttr>(kDimTableAttr))
    for (unsigned i = 0; i < table.size(); ++i)
      if (Expected<int64_t> code =
              graph.dims.intern(mlir::fuse::dimsEntry(table, i));
          !code.ok())
        return func.emitError() << code.message();
  GraphExporter exporter(graph);
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kTensorNameAttr);
    if (failed(exporter.addInput(arg, name ? name.getValue() : "")))
      return failure();
  }
  if (failed(exporter.addBlock(body)))
    return failure();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    FailureOr<TensorId> id = exporter.lookup(value, ret.getLoc());
    if (failed(id))
      return failure();
    auto name = func.getResultAttrOfType<StringAttr>(i, kTensorNameAttr);
    Status status = graph.markOutput(*id, name ? name.str() : "");
    if (!status.ok())
      return ret.emitError() << status.message();
  }
  return graph;
}

FailureOr<Graph> moduleToGraph(ModuleOp module, StringRef funcName) {
  func::FuncOp found;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!funcName.empty() && func.getSymName() != funcName)
      continue;
    if (found)
      return module.emitError()
             << "holds more than one function; name the one to run";
    found = func;
  }
  if (!found)
    return module.emitError()
           << (funcName.empty() ? Twine("holds no function with a body")
                                : "has no function @" + funcName);
  return funcToGraph(found);
}

} // namespace fuse
