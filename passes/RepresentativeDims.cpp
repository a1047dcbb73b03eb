//===- RepresentativeDims.cpp - Sizes of symbolic dims for fusion ---------===//

#include "passes/RepresentativeDims.h"

#include "dialect/FuseDims.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::fuse;

namespace {
thread_local const RepresentativeDimsScope *current = nullptr;

bool isPrime(int64_t n) {
  if (n < 2)
    return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0)
      return false;
  return true;
}

/// Records the symbols of `type`'s dims and the constants that multiply in
/// its element counts (static dims, coefficients).
void collect(Type type, std::set<std::string> &symbols,
             std::set<int64_t> &constants) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isFuseShaped(tensor))
    return;
  for (unsigned i = 0; i < unsigned(tensor.getRank()); ++i) {
    if (!tensor.isDynamicDim(i)) {
      constants.insert(tensor.getDimSize(i));
      continue;
    }
    ::fuse::DimExpr dim = dimExpr(tensor, i);
    for (const ::fuse::DimExpr::Term &term : dim.terms()) {
      constants.insert(term.coefficient < 0 ? -term.coefficient
                                            : term.coefficient);
      symbols.insert(term.symbols.begin(), term.symbols.end());
    }
    // A sum (past_sequence + sequence) counts as a symbol of its own.
    if (dim.terms().size() > 1)
      symbols.insert(dim.toString());
  }
}
} // namespace

RepresentativeDimsScope::RepresentativeDimsScope(Operation *root)
    : previous(current) {
  std::set<std::string> symbols;
  std::set<int64_t> constants;
  std::map<std::string, int64_t, std::less<>> hints;
  root->walk([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (Type type : func.getArgumentTypes())
        collect(type, symbols, constants);
      if (auto declared = func->getAttrOfType<DictionaryAttr>(kDimHintsAttr))
        for (NamedAttribute hint : declared)
          if (auto value = dyn_cast<IntegerAttr>(hint.getValue()))
            hints[hint.getName().str()] = value.getInt();
    }
    for (Type type : op->getResultTypes())
      collect(type, symbols, constants);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          collect(arg.getType(), symbols, constants);
  });
  // Symbols in sorted order each take the first prime at or above their
  // hint that no constant has as a factor and no other symbol took.
  std::set<int64_t> taken;
  for (const std::string &symbol : symbols) {
    auto hint = hints.find(symbol);
    int64_t candidate = std::max<int64_t>(
        2, hint == hints.end() ? kDefaultDimHint : hint->second);
    auto usable = [&](int64_t p) {
      if (!isPrime(p) || taken.count(p))
        return false;
      for (int64_t c : constants)
        if (c != 0 && c % p == 0)
          return false;
      return true;
    };
    while (!usable(candidate))
      ++candidate;
    taken.insert(candidate);
    table[symbol] = candidate;
  }
  current = this;
}

RepresentativeDimsScope::~RepresentativeDimsScope() { current = previous; }

/// The representative of a symbolic dim, or nothing (a sum of terms, an
/// unknown symbol, an overflow).
static std::optional<int64_t> representative(const ::fuse::DimExpr &expr) {
  if (std::optional<int64_t> value = expr.constantValue())
    return value;
  if (!current)
    return std::nullopt;
  if (expr.terms().size() > 1) {
    auto sum = current->sizes().find(expr.toString());
    if (sum == current->sizes().end())
      return std::nullopt;
    return sum->second;
  }
  ::fuse::Expected<int64_t> value = expr.evaluate(current->sizes());
  if (!value.ok() || *value <= 0)
    return std::nullopt;
  return *value;
}

int64_t mlir::fuse::dimSize(Type type, unsigned index) {
  auto tensor = cast<RankedTensorType>(type);
  if (!tensor.isDynamicDim(index))
    return tensor.getDimSize(index);
  if (!current)
    llvm::report_fatal_error("a symbolic dim was counted outside a "
                             "RepresentativeDimsScope");
  return representative(dimExpr(tensor, index)).value_or(0);
}

SmallVector<int64_t> mlir::fuse::shapeOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  if (tensor.hasStaticShape())
    return SmallVector<int64_t>(tensor.getShape());
  SmallVector<int64_t> shape;
  for (unsigned i = 0; i < unsigned(tensor.getRank()); ++i)
    shape.push_back(dimSize(tensor, i));
  return shape;
}

int64_t mlir::fuse::numElementsOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  // Checked, static shapes too: ShapedType::getNumElements wraps
  // (undefined behaviour) for a shape whose count passes 2^63.
  int64_t count = 1;
  for (int64_t size : shapeOf(tensor))
    if (__builtin_mul_overflow(count, size, &count))
      return 0;
  return count;
}

int64_t mlir::fuse::bytesOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return 0;
  int64_t bytes = (shaped.getElementTypeBitWidth() + 7) / 8;
  int64_t total = 0;
  if (__builtin_mul_overflow(numElementsOf(type), bytes, &total))
    return 0;
  return total;
}

/// The most bytes a tensor may hold, as the runtime's verifier counts
/// them (checkTensorType, runtime/ir/Verifier.cpp).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

bool mlir::fuse::tooLargeForKernels(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      llvm::is_contained(tensor.getShape(), 0))
    return false;
  // bytesOf is 0 for a count that wraps; this tensor is not empty.
  int64_t bytes = bytesOf(tensor);
  return bytes == 0 || bytes > kMaxTensorBytes;
}

std::string mlir::fuse::unrepresentableDim(Operation *op) {
  auto check = [&](Type type) -> std::string {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.hasStaticShape() || !isFuseShaped(tensor))
      return {};
    std::string text;
    llvm::raw_string_ostream os(text);
    for (unsigned i = 0; i < unsigned(tensor.getRank()); ++i) {
      if (!tensor.isDynamicDim(i))
        continue;
      ::fuse::DimExpr dim = dimExpr(tensor, i);
      if (dim.terms().size() != 1 && !representative(dim)) {
        os << "dim " << i << " (" << dim.toString() << ") of " << tensor
           << " is a sum of terms, which fusion cannot compare at "
              "representative sizes";
        return text;
      }
    }
    if (numElementsOf(tensor) <= 0) {
      os << "the elements of " << tensor
         << " pass 2^63 at representative sizes";
      return text;
    }
    return {};
  };
  for (Type type : op->getOperandTypes())
    if (std::string text = check(type); !text.empty())
      return text;
  for (Type type : op->getResultTypes())
    if (std::string text = check(type); !text.empty())
      return text;
  return {};
}

RankedTensorType mlir::fuse::permutedType(RankedTensorType type,
                                          ArrayRef<int64_t> permutation) {
  SmallVector<::fuse::DimExpr> shape;
  for (int64_t d : permutation)
    shape.push_back(dimExpr(type, unsigned(d)));
  return tensorTypeOf(shape, type.getElementType());
}
