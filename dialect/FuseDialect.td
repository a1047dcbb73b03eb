//===- FuseDialect.td - The fuse dialect -------------------*- tablegen -*-===//
//
// The `fuse` dialect: tensor operations on statically shaped tensors, and the
// `fuse.fusion` region op that holds one fused kernel. Every op here has an
// entry in runtime/ir/Ops.def (the one op table); the op-table test checks it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_DIALECT_TD
#define FUSE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fuse_Dialect : Dialect {
  let name = "fuse";
  let cppNamespace = "::mlir::fuse";
  let summary = "Tensor operations and fused kernels of the Fuse compiler";
  let description = [{
    Ops on ranked tensors, static or with named symbolic dims
    (`tensor<?x64xf32, #fuse.dims<sequence>>`), with element types f32, f16,
    bf16, f64, i1, i8, i16, i32, i64, the unsigned ui8, ui16, ui32, ui64, the
    low-precision floats f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU
    and f4E2M1FN, and the narrow integers i4, ui4, i2, ui2 (rank 0 and
    zero-sized dimensions are allowed). Signedness lives in the
    element type: every op reads ui elements as unsigned (compare under every
    predicate, max, min, div, rem, casts, reductions, argmax, argmin; abs is
    the identity and sign 0 or 1), and add, sub, mul and neg wrap modulo 2^n.
    The other integers are signless; ops where signedness matters for them
    (compare, div, rem, cast) say how they read them. f16 and bf16 are
    storage types: arithmetic on them is carried out in f32. The f8 and f4
    types are storage types too, for casts and data movement only (no
    arithmetic): a value of one converts exactly to f32. The narrow integers
    take one byte per element in memory (as i1 does; packing is the ONNX
    importer's business) and wrap to their width. Elementwise ops
    require operands of equal shape: broadcasting is always explicit
    (`fuse.broadcast`).
    Semantics follow ONNX wherever ONNX defines them.

    `fuse.fusion` is a region op isolated from above: one fused kernel with
    explicit operands and results, and a schedule kind that the fusion passes
    set and code generation reads.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// The named dims of a symbolic tensor (issue 22): the encoding of a
// `tensor<?x..>` type, one polynomial over dim symbols per `?` in order
// (runtime/ir/DimExpr.h). Types with equal dims are equal types, so the
// SameOperandsAndResultType-style traits compare symbolic shapes exactly as
// static ones. A static shape carries no encoding.
def Fuse_DimsAttr : AttrDef<Fuse_Dialect, "Dims"> {
  let mnemonic = "dims";
  let summary = "polynomials over named dims, one per dynamic dimension";
  let description = [{
    `#fuse.dims<batch, sequence*12 + 1>`: each entry a sum of terms, a term a
    product of dim symbols (bare identifiers or quoted strings) and at most
    one integer coefficient. Stored in DimExpr's canonical form, so equal
    polynomials are one attribute. As a tensor type's encoding the entries
    are never constant, each has a positive coefficient (`-sequence - 1` is
    no size) and there is one per `?`; `fuse.dim_value` takes one entry that
    may be constant.
  }];
  let parameters = (ins "::mlir::ArrayAttr":$exprs);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of polynomials. The polynomials themselves (DimExpr):
    /// dialect/FuseDims.h.
    unsigned size() const { return getExprs().size(); }
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// The f8 and f4 floats: storage types for casts and data movement.
defvar Fuse_LowPrecisionFloats = [F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ,
                                  F8E8M0FNU, F4E2M1FN];
defvar Fuse_NarrowIntegers = [I<4>, UI<4>, I<2>, UI<2>];

// A ranked tensor whose dims are static, or `?` named by a #fuse.dims
// encoding (isFuseShaped, FuseOps.h).
def Fuse_ShapePred : CPred<"::mlir::fuse::isFuseShaped($_self)">;
class Fuse_TensorOf<list<Type> allowedTypes>
    : RankedTensorOf<allowedTypes, [Fuse_ShapePred],
                     "static or named-dim tensor">;

def Fuse_Tensor : Fuse_TensorOf<!listconcat([F32, F16, BF16, F64, I1, I8,
    I16, I32, I64, UI8, UI16, UI32, UI64], Fuse_LowPrecisionFloats,
    Fuse_NarrowIntegers)>;
def Fuse_FloatTensor : Fuse_TensorOf<[F32, F16, BF16, F64]>;
def Fuse_NumericTensor : Fuse_TensorOf<!listconcat([F32, F16, BF16, F64,
    I8, I16, I32, I64, UI8, UI16, UI32, UI64], Fuse_NarrowIntegers)>;
def Fuse_IntegerTensor : Fuse_TensorOf<!listconcat([I1, I8, I16, I32, I64,
    UI8, UI16, UI32, UI64], Fuse_NarrowIntegers)>;
def Fuse_BoolTensor : Fuse_TensorOf<[I1]>;
def Fuse_IndexTensor : Fuse_TensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fuse_ComparePredicate : I64EnumAttr<"ComparePredicate",
    "comparison predicate", [
      I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
      I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
      I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>,
      I64EnumAttrCase<"ult", 6>, I64EnumAttrCase<"ule", 7>,
      I64EnumAttrCase<"ugt", 8>, I64EnumAttrCase<"uge", 9>]> {
  let cppNamespace = "::mlir::fuse";
}

def Fuse_ReduceKind : I64EnumAttr<"ReduceKind", "reduction kind", [
      I64EnumAttrCase<"sum", 0>, I64EnumAttrCase<"prod", 1>,
      I64EnumAttrCase<"max", 2>, I64EnumAttrCase<"min", 3>,
      I64EnumAttrCase<"mean", 4>]> {
  let cppNamespace = "::mlir::fuse";
}

def Fuse_RoundMode : I64EnumAttr<"RoundMode",
    "rounding of a cast to f8E8M0FNU", [
      I64EnumAttrCase<"up", 0>, I64EnumAttrCase<"down", 1>,
      I64EnumAttrCase<"nearest", 2>]> {
  let cppNamespace = "::mlir::fuse";
}

def Fuse_ScatterReduction : I64EnumAttr<"ScatterReduction",
    "how a scatter combines an update with its row", [
      I64EnumAttrCase<"none", 0>, I64EnumAttrCase<"add", 1>,
      I64EnumAttrCase<"mul", 2>, I64EnumAttrCase<"max", 3>,
      I64EnumAttrCase<"min", 4>]> {
  let cppNamespace = "::mlir::fuse";
}

def Fuse_ScheduleKind : I64EnumAttr<"ScheduleKind", "kernel schedule kind", [
      I64EnumAttrCase<"pointwise", 0>,
      I64EnumAttrCase<"row_reduction", 1>,
      I64EnumAttrCase<"column_reduction", 2>,
      I64EnumAttrCase<"full_reduction", 3>,
      I64EnumAttrCase<"matmul", 4>,
      I64EnumAttrCase<"window_reduction", 5>,
      I64EnumAttrCase<"scatter", 6>,
      I64EnumAttrCase<"attention", 7>,
      I64EnumAttrCase<"horizontal", 8>]> {
  let cppNamespace = "::mlir::fuse";
}

#endif // FUSE_DIALECT_TD
