//===- FuseOps.td - Operations of the fuse dialect ---------*- tablegen -*-===//
//
// Every op has an entry in runtime/ir/Ops.def; keep the two in step (the
// op-table test fails otherwise).
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_OPS_TD
#define FUSE_OPS_TD

include "dialect/FuseDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class Fuse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fuse_Dialect, mnemonic, traits>;

// Every tensor operand and result has one shape, symbolic dims included:
// MLIR's Elementwise takes a `?` for any size. For the elementwise ops whose
// types may differ (verifySameDims in FuseOps.cpp); listed after Elementwise,
// whose message a static mismatch keeps.
def Fuse_SameDims : NativeOpTrait<"SameDims"> {
  let cppNamespace = "::mlir::fuse::FuseOpTrait";
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Fuse_UnaryOp<string mnemonic, Type tensorType, string what,
                   string extra = "">
    : Fuse_Op<mnemonic, [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "elementwise " # what;
  let description = "Computes " # what # " of every element." # extra # [{

    Example:
    ```mlir
    %y = fuse.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins tensorType:$operand);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Fuse_NegOp : Fuse_UnaryOp<"neg", Fuse_NumericTensor, "negation",
    " Integers wrap around.">;
def Fuse_AbsOp : Fuse_UnaryOp<"abs", Fuse_NumericTensor, "absolute value",
    " Integers wrap around (abs of the minimum value is itself); on the ui "
    "types it is the identity.">;
def Fuse_ExpOp : Fuse_UnaryOp<"exp", Fuse_FloatTensor, "e raised to the element">;
def Fuse_LogOp : Fuse_UnaryOp<"log", Fuse_FloatTensor, "the natural logarithm">;
def Fuse_SqrtOp : Fuse_UnaryOp<"sqrt", Fuse_FloatTensor, "the square root">;
def Fuse_RsqrtOp : Fuse_UnaryOp<"rsqrt", Fuse_FloatTensor,
    "the reciprocal square root (1 / sqrt(x))">;
def Fuse_ReciprocalOp : Fuse_UnaryOp<"reciprocal", Fuse_FloatTensor, "1 / x">;
def Fuse_TanhOp : Fuse_UnaryOp<"tanh", Fuse_FloatTensor, "the hyperbolic tangent">;
def Fuse_SigmoidOp : Fuse_UnaryOp<"sigmoid", Fuse_FloatTensor,
    "the logistic function 1 / (1 + exp(-x))">;
def Fuse_ErfOp : Fuse_UnaryOp<"erf", Fuse_FloatTensor, "the error function">;
def Fuse_SinOp : Fuse_UnaryOp<"sin", Fuse_FloatTensor, "the sine">;
def Fuse_CosOp : Fuse_UnaryOp<"cos", Fuse_FloatTensor, "the cosine">;
def Fuse_TanOp : Fuse_UnaryOp<"tan", Fuse_FloatTensor, "the tangent">;
def Fuse_AsinOp : Fuse_UnaryOp<"asin", Fuse_FloatTensor, "the arcsine">;
def Fuse_AcosOp : Fuse_UnaryOp<"acos", Fuse_FloatTensor, "the arccosine">;
def Fuse_AtanOp : Fuse_UnaryOp<"atan", Fuse_FloatTensor, "the arctangent">;
def Fuse_SinhOp : Fuse_UnaryOp<"sinh", Fuse_FloatTensor, "the hyperbolic sine">;
def Fuse_CoshOp : Fuse_UnaryOp<"cosh", Fuse_FloatTensor, "the hyperbolic cosine">;
def Fuse_AsinhOp : Fuse_UnaryOp<"asinh", Fuse_FloatTensor,
    "the inverse hyperbolic sine">;
def Fuse_AcoshOp : Fuse_UnaryOp<"acosh", Fuse_FloatTensor,
    "the inverse hyperbolic cosine">;
def Fuse_AtanhOp : Fuse_UnaryOp<"atanh", Fuse_FloatTensor,
    "the inverse hyperbolic tangent">;
def Fuse_FloorOp : Fuse_UnaryOp<"floor", Fuse_FloatTensor, "the floor">;
def Fuse_CeilOp : Fuse_UnaryOp<"ceil", Fuse_FloatTensor, "the ceiling">;
def Fuse_RoundOp : Fuse_UnaryOp<"round", Fuse_FloatTensor,
    "the nearest integer", " Halfway cases round to even, as in ONNX Round.">;
def Fuse_SignOp : Fuse_UnaryOp<"sign", Fuse_NumericTensor, "the sign",
    " The result is -1, 0 or 1 (0 or 1 on the ui types); NaN stays NaN.">;
def Fuse_NotOp : Fuse_UnaryOp<"not", Fuse_IntegerTensor, "the complement",
    " Logical not on i1, bitwise not on wider integers.">;

// inferReturnTypes of an op whose result is i1 of its first operand's shape
// (inferPredicateType in FuseOps.cpp).
defvar Fuse_BoolResultOfOperandShape = [{
  ::llvm::LogicalResult $cppClass::inferReturnTypes(
      ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
      ::mlir::ValueRange operands, ::mlir::DictionaryAttr,
      ::mlir::OpaqueProperties, ::mlir::RegionRange,
      ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
    return inferPredicateType(location, operands, inferred);
  }
}];

class Fuse_FloatPredicateOp<string mnemonic, string what>
    : Fuse_Op<mnemonic, [Pure, Elementwise, Fuse_SameDims,
                         DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "elementwise test for " # what;
  let description = "Yields true (i1) where the element is " # what # [{.
    The result has the operand's shape.

    Example:
    ```mlir
    %m = fuse.}] # mnemonic # [{ %x : tensor<4xf32>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$operand);
  let results = (outs Fuse_BoolTensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
  let extraClassDefinition = Fuse_BoolResultOfOperandShape;
}

def Fuse_IsInfOp : Fuse_FloatPredicateOp<"isinf", "an infinity of either sign">;
def Fuse_IsNaNOp : Fuse_FloatPredicateOp<"isnan", "NaN">;

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

class Fuse_BinaryOp<string mnemonic, Type tensorType, string what,
                    string extra = "", list<Trait> traits = []>
    : Fuse_Op<mnemonic, !listconcat([Pure, Elementwise,
                                     SameOperandsAndResultType], traits)> {
  let summary = "elementwise " # what;
  let description = "Computes " # what # " of every pair of elements. The "
      # "operands have equal shapes: broadcast them explicitly first."
      # extra # [{

    Example:
    ```mlir
    %z = fuse.}] # mnemonic # [{ %x, %y : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Fuse_AddOp : Fuse_BinaryOp<"add", Fuse_NumericTensor, "the sum",
    " Integers wrap around.", [Commutative]>;
def Fuse_SubOp : Fuse_BinaryOp<"sub", Fuse_NumericTensor, "the difference",
    " Integers wrap around.">;
def Fuse_MulOp : Fuse_BinaryOp<"mul", Fuse_NumericTensor, "the product",
    " Integers wrap around.", [Commutative]>;
def Fuse_PowOp : Fuse_BinaryOp<"pow", Fuse_NumericTensor, "lhs raised to rhs",
    " For integers the power is exact (wrapping); a negative exponent gives 0 "
    "unless the base is 1 or -1.">;
def Fuse_MaxOp : Fuse_BinaryOp<"max", Fuse_NumericTensor, "the maximum",
    " NaN propagates: if either element is NaN the result is NaN.",
    [Commutative]>;
def Fuse_MinOp : Fuse_BinaryOp<"min", Fuse_NumericTensor, "the minimum",
    " NaN propagates: if either element is NaN the result is NaN.",
    [Commutative]>;
def Fuse_AndOp : Fuse_BinaryOp<"and", Fuse_IntegerTensor, "the conjunction",
    " Logical on i1, bitwise on wider integers.", [Commutative]>;
def Fuse_OrOp : Fuse_BinaryOp<"or", Fuse_IntegerTensor, "the disjunction",
    " Logical on i1, bitwise on wider integers.", [Commutative]>;
def Fuse_XorOp : Fuse_BinaryOp<"xor", Fuse_IntegerTensor, "the exclusive or",
    " Logical on i1, bitwise on wider integers.", [Commutative]>;

def Fuse_DivOp : Fuse_BinaryOp<"div", Fuse_NumericTensor, "the quotient", [{
    Integer division truncates toward zero (as ONNX Div); with `is_unsigned`,
    or for the ui types, the integer operands are read as unsigned. An integer division by zero gives
    0. Floating-point division follows IEEE 754.}]> {
  let arguments = (ins Fuse_NumericTensor:$lhs, Fuse_NumericTensor:$rhs,
                       UnitAttr:$is_unsigned);
  let hasVerifier = 1;
}

def Fuse_RemOp : Fuse_BinaryOp<"rem", Fuse_NumericTensor, "the remainder", [{
    By default the floor-mod: the result has the sign of the divisor (ONNX Mod
    with fmod = 0, Python's %). With `fmod` it is C's fmod: the result has
    the sign of the dividend (ONNX Mod with fmod = 1). With `is_unsigned`, or
    for the ui types, the integer operands are read as unsigned. An integer remainder by zero gives
    0.}]> {
  let arguments = (ins Fuse_NumericTensor:$lhs, Fuse_NumericTensor:$rhs,
                       UnitAttr:$fmod, UnitAttr:$is_unsigned);
  let hasVerifier = 1;
}

def Fuse_CompareOp : Fuse_Op<"compare", [Pure, Elementwise, Fuse_SameDims,
    SameTypeOperands,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "elementwise comparison";
  let description = [{
    Compares every pair of elements with `predicate` and yields i1 of the
    operands' shape. `eq ne lt le gt ge` read integers as signed, `ult ule ugt
    uge` as unsigned (integers only); the ui types and i1 read unsigned under
    every predicate (for i1, false < true), as in ONNX. Floating-point comparisons are
    ordered (false when either element is NaN), except `ne`, which is true
    then.

    Example:
    ```mlir
    %m = fuse.compare lt, %x, %y : tensor<4xf32>
    ```
  }];
  let arguments = (ins Fuse_ComparePredicate:$predicate, Fuse_Tensor:$lhs,
                       Fuse_Tensor:$rhs);
  let results = (outs Fuse_BoolTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDefinition = Fuse_BoolResultOfOperandShape;
}

def Fuse_SelectOp : Fuse_Op<"select", [Pure, Elementwise, Fuse_SameDims,
    AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "elementwise choice";
  let description = [{
    Yields `true_value` where `condition` is true, `false_value` elsewhere.
    All three have one shape.

    Example:
    ```mlir
    %z = fuse.select %m, %x, %y : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Fuse_BoolTensor:$condition, Fuse_Tensor:$true_value,
                       Fuse_Tensor:$false_value);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Conversion and constants
//===----------------------------------------------------------------------===//

def Fuse_CastOp : Fuse_Op<"cast", [Pure, Elementwise, Fuse_SameDims]> {
  let summary = "element type conversion";
  let description = [{
    Converts every element to the result's element type; the shape is kept.
    Float to integer truncates toward zero and saturates out-of-range values
    to the integer type's limits (as PTX `cvt.rzi.sat`; 0 .. 2^n - 1 for the
    ui types); NaN gives 0. Integer to float rounds to nearest even. To i1
    means "not zero" (NaN gives true); from i1 gives 0 or 1. Integer to
    integer wraps. With `is_unsigned`, or from a ui type, an integer operand
    is read as unsigned (zero-extended). Conversions to f16 and bf16 round to
    nearest even.

    The narrow integers i4, ui4, i2 and ui2 wrap: float to them truncates
    toward zero and keeps the low bits (as ONNX's reference), NaN, infinities
    and values of 2^31 or more in magnitude give 0.

    Conversions to the f8 and f4 types round the operand's exact value once
    to nearest even (an f64 too). A value out of range gives infinity
    (f8E5M2), NaN (f8E4M3FN and the FNUZ types) or, with `saturate` (f8
    results only), the largest finite value of its sign; f4E2M1FN always
    saturates. NaN keeps its sign where the type has a signed NaN; the FNUZ
    types have one NaN (0x80, which reads as a negative NaN) and no negative
    zero; f4E2M1FN, which has no NaN, follows ml_dtypes (NaN gives a zero of
    the opposite sign). Conversions from them are exact. To f8E8M0FNU (a
    power of two, 2^-127 .. 2^127, no sign, 0xFF is NaN) the operand is
    first rounded to f32, then its exponent field is kept and rounded by
    `round_mode` (ONNX Cast-24, as ONNX's reference): `up` (the default)
    when any mantissa bit is set, `down` never, `nearest` on the top
    mantissa bit (ties up unless the exponent field is 0); NaN and
    infinities give NaN; `saturate` keeps 2^127 from rounding up to NaN.

    Example:
    ```mlir
    %y = fuse.cast %x : tensor<4xf32> to tensor<4xf16>
    %s = fuse.cast %x {saturate} : tensor<4xf32> to tensor<4xf8E4M3FN>
    %e = fuse.cast %x round_mode nearest : tensor<4xf32> to tensor<4xf8E8M0FNU>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$operand, UnitAttr:$is_unsigned,
                       UnitAttr:$saturate,
                       OptionalAttr<Fuse_RoundMode>:$round_mode);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $operand (`round_mode` $round_mode^)? attr-dict `:` type($operand) `to`
    type($result)
  }];
  let extraClassDeclaration = [{
    /// The rounding of a cast to f8E8M0FNU (`up` when absent).
    RoundMode getEffectiveRoundMode() {
      return getRoundMode().value_or(RoundMode::up);
    }
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuse_ConstantOp : Fuse_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "constant tensor";
  let description = [{
    A tensor of the given dense or splat values. Large constants (weights) are
    better passed as function arguments, so that a compiled kernel serves any
    weights.

    Example:
    ```mlir
    %c = fuse.constant dense<1.0> : tensor<4xf32>
    %d = fuse.constant dense<[1, 2, 3]> : tensor<3xi32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Fuse_BroadcastOp : Fuse_Op<"broadcast", [Pure]> {
  let summary = "explicit broadcast";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; `dims` has one
    entry per operand dimension and is strictly increasing. Each operand
    dimension is 1 (it is repeated) or equal to its result dimension. Result
    dimensions not named in `dims` are new.

    Example (a bias row broadcast over 3 rows):
    ```mlir
    %b = fuse.broadcast %bias, dims = [1] : tensor<4xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `dims` `=` $dims attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuse_ReshapeOp : Fuse_Op<"reshape", [Pure]> {
  let summary = "reshape in row-major order";
  let description = [{
    The same elements in row-major order under another shape with the same
    number of elements.

    Example:
    ```mlir
    %y = fuse.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$operand);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuse_TransposeOp : Fuse_Op<"transpose", [Pure]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is operand dimension `permutation[i]`.

    Example:
    ```mlir
    %y = fuse.transpose %x, permutation = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `permutation` `=` $permutation attr-dict `:` type($operand)
    `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Fuse_SliceOp : Fuse_Op<"slice", [Pure]> {
  let summary = "static strided slice";
  let description = [{
    Takes `sizes[i]` elements of dimension `i` starting at `offsets[i]` with
    step `strides[i]` (at least 1). The result shape is `sizes`.

    Example:
    ```mlir
    %y = fuse.slice %x offsets = [0, 1] sizes = [2, 2] strides = [1, 2]
        : tensor<4x6xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$operand, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$strides);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $operand `offsets` `=` $offsets `sizes` `=` $sizes `strides` `=` $strides
    attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuse_ConcatOp : Fuse_Op<"concat", [Pure]> {
  let summary = "concatenate along one axis";
  let description = [{
    Joins the operands along `axis`. All operands have the result's rank and
    element type and equal sizes in every other dimension.

    Example:
    ```mlir
    %y = fuse.concat %a, %b axis = 1 : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$operands, I64Attr:$axis);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $operands `axis` `=` $axis attr-dict `:` type($operands) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Fuse_ReduceOp : Fuse_Op<"reduce", [Pure]> {
  let summary = "reduce over a set of dimensions";
  let description = [{
    Combines the elements along `dims` (strictly increasing) with `kind`:
    sum, prod, max, min (NaN propagates) or mean (integer mean truncates).
    Without `keep_dims` the reduced dimensions are removed; with it they stay
    with size 1. A sum over zero elements is 0, a product 1, a floating-point
    mean NaN; max and min over zero elements are rejected.

    Example (row sums):
    ```mlir
    %s = fuse.reduce sum %x dims = [1] : tensor<4x8xf32> -> tensor<4xf32>
    %m = fuse.reduce max %x dims = [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Fuse_ReduceKind:$kind, Fuse_NumericTensor:$operand,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keep_dims);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $operand `dims` `=` $dims (`keep_dims` $keep_dims^)? attr-dict `:`
    type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuse_PoolOp : Fuse_Op<"pool", [Pure]> {
  let summary = "window reduction (pooling) over the trailing dimensions";
  let description = [{
    Reduces a window that slides over the last `window.size()` dimensions
    with `kind` max (NaN propagates; positions in the padding never count)
    or mean (float only; divided by the window's positions inside the
    operand, or with `count_include_pad` inside the padded operand). Per
    window dim d of n: `strides[d]`, `dilations[d]` >= 1, `pads[d]` (begin)
    and `pads[n + d]` (end) >= 0. The output size of each window dim is
    (in + begin + end - ((window - 1) * dilation + 1)) / stride + 1, rounded
    down, or up with `ceil_mode` (less a last window that would start past
    the operand and the begin padding). An empty max window gives the
    type's lowest value. Leading dimensions are independent.

    Example (ResNet's stem pooling):
    ```mlir
    %y = fuse.pool max %x window = [3, 3] strides = [2, 2] dilations = [1, 1]
        pads = [1, 1, 1, 1] : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Fuse_ReduceKind:$kind, Fuse_NumericTensor:$operand,
                       DenseI64ArrayAttr:$window, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$pads,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = [{
    $kind $operand `window` `=` $window `strides` `=` $strides
    `dilations` `=` $dilations `pads` `=` $pads
    (`ceil_mode` $ceil_mode^)? (`count_include_pad` $count_include_pad^)?
    attr-dict `:` type($operand) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuse_Im2colOp : Fuse_Op<"im2col", [Pure]> {
  let summary = "the windows of the trailing dimensions as columns";
  let description = [{
    The column matrix of a convolution: for each of the window's offsets k
    (row-major over the window dims) and each output position p (row-major
    over the windowed dims, sized as `fuse.pool`'s without ceil mode), the
    operand's element at p * stride - begin pad + k * dilation, or zero in
    the padding. Leading dimensions are independent: an operand
    [L..., S1..Sn] gives [L..., prod(window), prod(output sizes)].
    fuse-lower-convolutions makes it; a matmul with the weights follows.

    Example (a 3x3 convolution's columns, padding 1):
    ```mlir
    %c = fuse.im2col %x window = [3, 3] strides = [1, 1] dilations = [1, 1]
        pads = [1, 1, 1, 1] : tensor<1x64x56x56xf32> -> tensor<1x64x9x3136xf32>
    ```
  }];
  let arguments = (ins Fuse_NumericTensor:$operand,
                       DenseI64ArrayAttr:$window, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations, DenseI64ArrayAttr:$pads);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = [{
    $operand `window` `=` $window `strides` `=` $strides
    `dilations` `=` $dilations `pads` `=` $pads attr-dict `:` type($operand)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

class Fuse_ArgOp<string mnemonic, string what>
    : Fuse_Op<mnemonic, [Pure]> {
  let summary = "index of the " # what # " along an axis";
  let description = "Yields the i64 index of the " # what # [{ element along
    `axis`. Ties give the first index, or the last with `select_last_index`.
    Without `keep_dims` the axis is removed; with it it stays with size 1.

    Example:
    ```mlir
    %i = fuse.}] # mnemonic # [{ %x axis = 1 : tensor<4x8xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Fuse_NumericTensor:$operand, I64Attr:$axis,
                       UnitAttr:$keep_dims, UnitAttr:$select_last_index);
  let results = (outs Fuse_IndexTensor:$result);
  let assemblyFormat = [{
    $operand `axis` `=` $axis (`keep_dims` $keep_dims^)?
    (`select_last_index` $select_last_index^)? attr-dict `:` type($operand)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuse_ArgMaxOp : Fuse_ArgOp<"argmax", "largest">;
def Fuse_ArgMinOp : Fuse_ArgOp<"argmin", "smallest">;

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

def Fuse_MatmulOp : Fuse_Op<"matmul", [Pure]> {
  let summary = "batched matrix multiplication";
  let description = [{
    `lhs` is [batch..., M, K] ([batch..., K, M] with `transpose_a`), `rhs` is
    [batch..., K, N] ([batch..., N, K] with `transpose_b`); the result is
    [batch..., M, N]. Batch dimensions are equal, or one operand is rank 2
    and is shared across the other's batch (a weight). Operands and result
    have one element type; f16 and bf16 accumulate in f32.

    Example:
    ```mlir
    %y = fuse.matmul %x, %w : tensor<8x16x32xf32>, tensor<32x64xf32> -> tensor<8x16x64xf32>
    %s = fuse.matmul %q, %k transpose_b : tensor<12x64x32xf32>, tensor<12x64x32xf32> -> tensor<12x64x64xf32>
    ```
  }];
  let arguments = (ins Fuse_NumericTensor:$lhs, Fuse_NumericTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

def Fuse_ConvOp : Fuse_Op<"conv", [Pure]> {
  let summary = "1-D or 2-D convolution, channels first";
  let description = [{
    `input` is [N, C, spatial...] with one or two spatial dims, `weight` is
    [M, C / group, kernel...] and the optional `bias` [M]; all have one
    float element type, the result's, and f16 and bf16 accumulate in f32.
    `strides` and `dilations` (>= 1) have one entry per spatial dim, `pads`
    (>= 0) a begin pad for every spatial dim, then an end pad for every one
    (ONNX's order). `group` divides C and M; output channel m reads the
    input channels of group m / (M / group). The result is [N, M, out...]
    with out = (in + begin + end - dilation * (kernel - 1) - 1) / stride + 1,
    rounded down; the padded input must hold one dilated kernel. Padding
    reads zeros.

    Example (a 3x3 convolution with bias, and a depthwise one):
    ```mlir
    %y = fuse.conv %x, %w, %b strides = [1, 1] dilations = [1, 1] pads = [1, 1, 1, 1] group = 1
        : tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32> -> tensor<1x16x8x8xf32>
    %d = fuse.conv %y, %k strides = [2, 2] dilations = [1, 1] pads = [1, 1, 1, 1] group = 16
        : tensor<1x16x8x8xf32>, tensor<16x1x3x3xf32> -> tensor<1x16x4x4xf32>
    ```
  }];
  let arguments = (ins Fuse_FloatTensor:$input, Fuse_FloatTensor:$weight,
                       Optional<Fuse_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads, I64Attr:$group);
  let results = (outs Fuse_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` `=` $strides `dilations` `=`
    $dilations `pads` `=` $pads `group` `=` $group attr-dict `:` type($input)
    `,` type($weight) (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

def Fuse_GatherOp : Fuse_Op<"gather", [Pure]> {
  let summary = "gather slices along one axis at run-time indices";
  let description = [{
    ONNX's Gather: `indices` (i32 or i64, any shape, rank 0 included) select
    slices of `data` along `axis`; the result is `data`'s dims before
    `axis`, then the indices' dims, then `data`'s dims after `axis`, of
    `data`'s element type:
    result[o..., i..., n...] = data[o..., k, n...] with k = indices[i...],
    plus the axis' size when negative. An index outside [-size, size) is an
    error of the run; it is never read.

    Example (an embedding lookup of token ids):
    ```mlir
    %e = fuse.gather %table[%ids] axis = 0
        : tensor<30522x256xf32>, tensor<2x128xi64> -> tensor<2x128x256xf32>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$data, Fuse_Tensor:$indices,
                       I64Attr:$axis);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `axis` `=` $axis attr-dict `:` type($data) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fuse_ScatterOp : Fuse_Op<"scatter", [Pure]> {
  let summary = "write or combine rows at run-time indices";
  let description = [{
    ONNX's ScatterND and ScatterElements, which the importer flattens to it:
    `data` is [N, inner...]; `indices` (i32 or i64, any shape Q) select rows
    of it; `updates` are Q ++ `data`'s dims after the first, of its element
    type. The result is `data` with, for every index position q in
    row-major order, row k = indices[q] (plus N when negative) combined
    with updates[q]: replaced (`none`, the default: of duplicate indices
    the last in that order wins), or the `add`, `mul`, `max` or `min` of the
    row and the update. An index outside [-N, N) is an error of the run; no
    row is written for it. A scatter is a kernel of its own (the `scatter`
    schedule).

    Example (a row of a cache written at a run-time position):
    ```mlir
    %c = fuse.scatter %cache[%position] = %row
        : tensor<128x64xf32>, tensor<1xi64>, tensor<1x64xf32> -> tensor<128x64xf32>
    %s = fuse.scatter %x[%i] = %u reduction = add
        : tensor<10xf32>, tensor<4xi32>, tensor<4xf32> -> tensor<10xf32>
    ```
  }];
  let arguments = (ins Fuse_Tensor:$data, Fuse_Tensor:$indices,
                       Fuse_Tensor:$updates,
                       DefaultValuedAttr<Fuse_ScatterReduction,
                           "::mlir::fuse::ScatterReduction::none">:$reduction);
  let results = (outs Fuse_Tensor:$result);
  let assemblyFormat = [{
    $data `[` $indices `]` `=` $updates (`reduction` `=` $reduction^)?
    attr-dict `:` type($data) `,` type($indices) `,` type($updates) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Ops of symbolic dims (issue 22)
//===----------------------------------------------------------------------===//

def Fuse_IotaOp : Fuse_Op<"iota", [Pure]> {
  let summary = "index along one axis";
  let description = [{
    `result[i0, ..., in] = i_axis`, converted to the element type; the
    result's dims static or named (ONNX Range over a symbolic dim). Binding
    the dims turns it into a constant.

    Example:
    ```mlir
    %i = fuse.iota axis = 0 : tensor<?xi64, #fuse.dims<sequence>>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = "`axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Fuse_DimValueOp : Fuse_Op<"dim_value", [Pure]> {
  let summary = "the value of a dim";
  let description = [{
    Every element is the value of `dim` (one polynomial over dim symbols, or
    a constant): shape arithmetic that reaches tensor data. Binding the dims
    turns it into a constant.

    Example:
    ```mlir
    %n = fuse.dim_value {dim = #fuse.dims<sequence>} : tensor<i64>
    ```
  }];
  let arguments = (ins Fuse_DimsAttr:$dim);
  let results = (outs Fuse_NumericTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused kernels
//===----------------------------------------------------------------------===//

def Fuse_FusionOp : Fuse_Op<"fusion", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "one fused kernel";
  let description = [{
    The region is one kernel: its block arguments are the `inputs` (in order),
    and `fuse.yield` returns the kernel's results. It captures nothing from
    above, so it can be compiled alone. `kind` is the schedule that code
    generation uses (pointwise, row_reduction, column_reduction,
    full_reduction, matmul, window_reduction, scatter, attention,
    horizontal).

    A `horizontal` fusion holds only `fuse.fusion` ops (its members, which
    read its block arguments and none of each other's results) and the
    yield: one launch runs every member, their iteration spaces laid end to
    end (the projections of attention that share their input).

    Example:
    ```mlir
    %r = fuse.fusion pointwise (%x, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %c: tensor<4x8xf32>):
      %s = fuse.add %a, %c : tensor<4x8xf32>
      %t = fuse.tanh %s : tensor<4x8xf32>
      fuse.yield %t : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Fuse_ScheduleKind:$kind, Variadic<Fuse_Tensor>:$inputs);
  let results = (outs Variadic<Fuse_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict-with-keyword `:`
    functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

def Fuse_YieldOp : Fuse_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"FusionOp">]> {
  let summary = "results of a fused kernel";
  let description = [{
    Terminates a `fuse.fusion` body; its operands become the fusion's results.

    Example:
    ```mlir
    fuse.yield %t : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<Fuse_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // FUSE_OPS_TD
