//===- FuseDialect.cpp - The fuse dialect ---------------------------------===//

#include "dialect/FuseDims.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuse;

#include "dialect/FuseDialect.cpp.inc"
#include "dialect/FuseEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/FuseAttrs.cpp.inc"

void FuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/FuseOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/FuseAttrs.cpp.inc"
      >();
}

Operation *FuseDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

//===----------------------------------------------------------------------===//
// #fuse.dims
//===----------------------------------------------------------------------===//

// Storage: one ArrayAttr per polynomial, of its canonical terms, each an
// ArrayAttr [coefficient (i64), symbol names (strings)...].

static ArrayAttr storeExpr(MLIRContext *context, const ::fuse::DimExpr &expr) {
  Builder b(context);
  SmallVector<Attribute> terms;
  for (const ::fuse::DimExpr::Term &term : expr.terms()) {
    SmallVector<Attribute> parts{b.getI64IntegerAttr(term.coefficient)};
    for (const std::string &symbol : term.symbols)
      parts.push_back(b.getStringAttr(symbol));
    terms.push_back(b.getArrayAttr(parts));
  }
  return b.getArrayAttr(terms);
}

/// The polynomial of stored terms; an error for a malformed storage.
static ::fuse::Expected<::fuse::DimExpr> loadExpr(Attribute stored) {
  auto terms = dyn_cast<ArrayAttr>(stored);
  if (!terms)
    return ::fuse::Status::error("an entry is not an array of terms");
  ::fuse::DimExpr sum;
  for (Attribute termAttr : terms) {
    auto parts = dyn_cast<ArrayAttr>(termAttr);
    auto coefficient =
        parts && !parts.empty() ? dyn_cast<IntegerAttr>(parts[0]) : nullptr;
    if (!coefficient)
      return ::fuse::Status::error("a term is not [coefficient, symbols...]");
    ::fuse::DimExpr term = ::fuse::DimExpr::constant(coefficient.getInt());
    for (Attribute symbolAttr : parts.getValue().drop_front()) {
      auto symbol = dyn_cast<StringAttr>(symbolAttr);
      if (!symbol)
        return ::fuse::Status::error("a term's symbol is not a string");
      ::fuse::Expected<::fuse::DimExpr> product = ::fuse::DimExpr::mul(
          term, ::fuse::DimExpr::symbol(symbol.getValue().str()));
      if (!product.ok())
        return product.status();
      term = *product;
    }
    ::fuse::Expected<::fuse::DimExpr> added = ::fuse::DimExpr::add(sum, term);
    if (!added.ok())
      return added.status();
    sum = *added;
  }
  return sum;
}

DimsAttr mlir::fuse::dimsAttrOf(MLIRContext *context,
                                ArrayRef<::fuse::DimExpr> exprs) {
  SmallVector<Attribute> stored;
  for (const ::fuse::DimExpr &expr : exprs)
    stored.push_back(storeExpr(context, expr));
  return DimsAttr::get(context, ArrayAttr::get(context, stored));
}

::fuse::DimExpr mlir::fuse::dimsEntry(DimsAttr dims, unsigned index) {
  // Verified canonical storage: loading cannot fail.
  return *loadExpr(dims.getExprs()[index]);
}

LogicalResult DimsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayAttr exprs) {
  for (auto [i, stored] : llvm::enumerate(exprs)) {
    ::fuse::Expected<::fuse::DimExpr> expr = loadExpr(stored);
    if (!expr.ok())
      return emitError() << "#fuse.dims entry " << i << ": "
                         << expr.status().message();
    if (storeExpr(stored.getContext(), *expr) != stored)
      return emitError() << "#fuse.dims entry " << i
                         << " is not in canonical form (" << expr->toString()
                         << ")";
  }
  return success();
}

/// term := factor ('*' factor)*, factor := integer | symbol.
static FailureOr<::fuse::DimExpr> parseTerm(AsmParser &parser) {
  ::fuse::DimExpr term = ::fuse::DimExpr::constant(1);
  do {
    ::fuse::DimExpr factor;
    int64_t value;
    std::string symbol;
    OptionalParseResult integer = parser.parseOptionalInteger(value);
    if (integer.has_value()) {
      if (failed(*integer))
        return failure();
      factor = ::fuse::DimExpr::constant(value);
    } else if (succeeded(parser.parseOptionalKeywordOrString(&symbol))) {
      factor = ::fuse::DimExpr::symbol(symbol);
    } else {
      return parser.emitError(parser.getCurrentLocation(),
                              "expected a dim symbol or an integer");
    }
    ::fuse::Expected<::fuse::DimExpr> product =
        ::fuse::DimExpr::mul(term, factor);
    if (!product.ok())
      return parser.emitError(parser.getCurrentLocation(),
                              product.status().message());
    term = *product;
  } while (succeeded(parser.parseOptionalStar()));
  return term;
}

/// expr := ['-'] term (('+' | '-') term)*.
static FailureOr<::fuse::DimExpr> parseExpr(AsmParser &parser) {
  ::fuse::DimExpr sum;
  bool negate = succeeded(parser.parseOptionalMinus());
  while (true) {
    FailureOr<::fuse::DimExpr> term = parseTerm(parser);
    if (failed(term))
      return failure();
    ::fuse::Expected<::fuse::DimExpr> next =
        negate ? ::fuse::DimExpr::sub(sum, *term)
               : ::fuse::DimExpr::add(sum, *term);
    if (!next.ok())
      return parser.emitError(parser.getCurrentLocation(),
                              next.status().message());
    sum = *next;
    if (succeeded(parser.parseOptionalPlus()))
      negate = false;
    else if (succeeded(parser.parseOptionalMinus()))
      negate = true;
    else
      return sum;
  }
}

Attribute DimsAttr::parse(AsmParser &parser, Type) {
  SmallVector<::fuse::DimExpr> exprs;
  if (parser.parseLess())
    return {};
  if (failed(parser.parseOptionalGreater())) {
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          FailureOr<::fuse::DimExpr> expr = parseExpr(parser);
          if (failed(expr))
            return failure();
          exprs.push_back(*expr);
          return success();
        }) ||
        parser.parseGreater())
      return {};
  }
  return dimsAttrOf(parser.getContext(), exprs);
}

/// `sequence*12 + 1`: DimExpr's canonical order, symbols bare when they are
/// keywords and quoted otherwise.
static void printExpr(AsmPrinter &printer, const ::fuse::DimExpr &expr) {
  if (expr.terms().empty()) {
    printer << "0";
    return;
  }
  for (auto [i, term] : llvm::enumerate(expr.terms())) {
    // INT64_MIN has no positive magnitude: printed as a plain number.
    bool negative = term.coefficient < 0 && term.coefficient != INT64_MIN;
    int64_t magnitude = negative ? -term.coefficient : term.coefficient;
    if (i > 0)
      printer << (negative ? " - " : " + ");
    else if (negative)
      printer << "-";
    for (auto [j, symbol] : llvm::enumerate(term.symbols)) {
      if (j > 0)
        printer << "*";
      printer.printKeywordOrString(symbol);
    }
    if (term.symbols.empty())
      printer << magnitude;
    else if (magnitude != 1)
      printer << "*" << magnitude;
  }
}

void DimsAttr::print(AsmPrinter &printer) const {
  printer << "<";
  for (unsigned i = 0; i < size(); ++i) {
    if (i > 0)
      printer << ", ";
    printExpr(printer, dimsEntry(*this, i));
  }
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Fuse tensor types
//===----------------------------------------------------------------------===//

bool mlir::fuse::isFuseShaped(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  if (tensor.hasStaticShape())
    return !tensor.getEncoding();
  auto dims = dyn_cast_or_null<DimsAttr>(tensor.getEncoding());
  if (!dims || dims.size() != unsigned(tensor.getNumDynamicDims()))
    return false;
  for (unsigned i = 0; i < dims.size(); ++i) {
    ::fuse::DimExpr entry = dimsEntry(dims, i);
    if (entry.isConstant() || !canBeSize(entry))
      return false;
  }
  return true;
}

bool mlir::fuse::canBeSize(const ::fuse::DimExpr &expr) {
  if (std::optional<int64_t> value = expr.constantValue())
    return *value >= 0;
  return llvm::any_of(expr.terms(), [](const ::fuse::DimExpr::Term &term) {
    return term.coefficient > 0;
  });
}

bool mlir::fuse::isStaticTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

::fuse::DimExpr mlir::fuse::dimExpr(RankedTensorType type, unsigned index) {
  if (!type.isDynamicDim(index))
    return ::fuse::DimExpr::constant(type.getDimSize(index));
  return dimsEntry(cast<DimsAttr>(type.getEncoding()),
                   unsigned(type.getDynamicDimIndex(index)));
}

SmallVector<::fuse::DimExpr> mlir::fuse::shapeExprs(RankedTensorType type) {
  SmallVector<::fuse::DimExpr> shape;
  for (unsigned i = 0; i < unsigned(type.getRank()); ++i)
    shape.push_back(dimExpr(type, i));
  return shape;
}

RankedTensorType mlir::fuse::tensorTypeOf(ArrayRef<::fuse::DimExpr> shape,
                                          Type elementType) {
  SmallVector<int64_t> sizes;
  SmallVector<::fuse::DimExpr> named;
  for (const ::fuse::DimExpr &dim : shape) {
    if (std::optional<int64_t> value = dim.constantValue()) {
      sizes.push_back(*value);
    } else {
      sizes.push_back(ShapedType::kDynamic);
      named.push_back(dim);
    }
  }
  Attribute encoding;
  if (!named.empty())
    encoding = dimsAttrOf(elementType.getContext(), named);
  return RankedTensorType::get(sizes, elementType, encoding);
}

std::string mlir::fuse::dimString(RankedTensorType type, unsigned index) {
  return dimExpr(type, index).toString();
}

std::string mlir::fuse::firstSymbolicDim(Operation *op) {
  auto describe = [](Type type) -> std::string {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.hasStaticShape() || !isFuseShaped(tensor))
      return {};
    for (unsigned i = 0; i < unsigned(tensor.getRank()); ++i)
      if (tensor.isDynamicDim(i)) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << "dim " << i << " (" << dimString(tensor, i) << ") of " << tensor;
        return text;
      }
    return {};
  };
  for (Type type : op->getOperandTypes())
    if (std::string text = describe(type); !text.empty())
      return text;
  for (Type type : op->getResultTypes())
    if (std::string text = describe(type); !text.empty())
      return text;
  return {};
}
