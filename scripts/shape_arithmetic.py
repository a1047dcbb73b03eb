#!/usr/bin/env python3
"""Lists raw int64 shape arithmetic in the layers that compute shapes from a user's model or file
(issue 19): the ONNX importer, the Graph IR's verifier and builder, the `fuse` dialect's verifiers and
the `.mlir` front door (and fuse-run's .npy reader). There, every dim, element count and byte size is computed through CheckedInt
(runtime/ir/CheckedInt.h), whose +, -, * and / catch overflow; C++ cannot stop a raw `int64_t * int64_t`
from compiling, so this check, run by ctest, does.

A pattern check, not a parser: comments and literals are blanked (as scripts/long_functions.py does),
then a line is listed when it
  - reads a dim (`shape[...]`, `getDimSize(...)`, `getShape()[...]`, or a local the same function
    initializes from one) as the left operand of +, - or *, or of their compound assignments: the
    left operand is a raw int64 there (a quotient or remainder of a dim, never negative, stays in
    range);
  - uses one as the right operand of such an operator whose line names no CheckedInt (nor a variable
    the same function declares as one);
  - multiplies or adds through another overflow check (`__builtin_*_overflow`, `llvm::MulOverflow`,
    `checkedMul`, `SafeInt`): one checked type, not one helper per file;
  - uses MLIR's `getNumElements()`, which wraps (16 x (2^60 + 1) read as 16): `checkedElementCount`;
  - converts a floating-point value to an integer with a cast (`std::int64_t(x)`,
    `static_cast<int64_t>(x)`, `int(x)`) where x is floating (it names `double` or `float`, a local
    the function declares `double`, a float literal or `std::floor`/`ceil`/`round`/`clamp`...): NaN,
    an infinity or a value past 2^63 makes that undefined behaviour (Resize's lengths are computed in
    double; `CheckedInt::fromDouble` is the checked conversion).
Index arithmetic on loop counters and ranks is not a dim read and is not listed.

  scripts/shape_arithmetic.py            # exits 1 when it lists anything
"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from long_functions import blank_comments_and_literals  # noqa: E402

FILES = [
    "compiler/onnx/OnnxImporter.cpp",
    "compiler/onnx/EinsumEquation.cpp",
    "compiler/common/FusionFrontEnd.cpp",
    "compiler/common/GraphTranslation.cpp",
    "runtime/ir/Graph.cpp",
    "runtime/ir/Verifier.cpp",
    "runtime/ir/WindowShape.h",
    "dialect/FuseOps.cpp",
    "tools/fuse-run/Npy.cpp",
]
DIM_READ = (r"(?:\bshape\s*\[[^\]\[]*\]|\bgetDimSize\s*\([^()]*\)|getShape\(\)\s*\[[^\]\[]*\]"
            r"|\bshapeOf\s*\([^()]*\)\s*\[[^\]\[]*\]"
            # A window's geometry, from a model's attributes as they are: as hostile as a dim.
            r"|\b(?:window|kernel|kernelShape|dilations|pads)\s*\[[^\]\[]*\])")
# What a dim read may be reached through: `x.`, `operands[0].`, `type->`.
OBJECT = r"(?:[\w\]\[]+(?:\(\))?(?:\.|->))*"
# No / and no %: a quotient or remainder of a dim (never negative) stays in range; a zero divisor
# is checked where the divisor is read.
OPERATOR = r"(?:[-+*]=?)"
OTHER_CHECKS = re.compile(
    r"__builtin_\w+_overflow|llvm::(?:Add|Sub|Mul)Overflow|\bMulOverflow\b|\bcheckedMul\b|\bSafeInt\b")
WRAPPING_COUNT = re.compile(r"\bgetNumElements\s*\(")
INT_CAST = re.compile(r"(?:\bstatic_cast\s*<\s*(?:std::)?(?:u?int(?:8|16|32|64)_t|size_t)\s*>"
                      r"|(?<![\w:])(?:std::)?(?:u?int(?:8|16|32|64)_t|size_t)|(?<![\w:])(?:long|int))"
                      r"\s*\(")
FLOAT_HINT = (r"\bdouble\b|\bfloat\b|\bstd::(?:floor|ceil|round|trunc|nearbyint|clamp|fmod|pow|sqrt)\s*\("
              r"|(?<![\w.])\d+\.\d*(?:[eE][-+]?\d+)?(?![\w.])|(?<![\w.])\.\d+|\b0x1p\d+")
DOUBLE_LOCALS = re.compile(r"\b(?:double|float)\s+(\w+)\s*(?:=[^,;]*)?((?:\s*,\s*\w+\s*(?:=[^,;]*)?)*)")
DECLARED = re.compile(r"\bCheckedInt\s+(\w+)(?:\s*=[^,;]*)?((?:\s*,\s*\w+(?:\s*=[^,;]*)?)*)")


def checked_names(text):
    names = {"CheckedInt", "checkedElementCount"}
    for match in DECLARED.finditer(text):
        names.add(match.group(1))
        names.update(re.findall(r",\s*(\w+)", match.group(2)))
    return names


def chunks(text):
    """(first line number, lines) per top-level body: LLVM style closes a function at column 0."""
    start, lines = 1, []
    for number, line in enumerate(text.splitlines(), 1):
        lines.append(line)
        if re.match(r"^}", line):
            yield start, lines
            start, lines = number + 1, []
    if lines:
        yield start, lines


def dim_pattern(body):
    """A dim read, or a local that holds one (`std::int64_t dim = shape[axis]`, `for (int64_t d : shape)`)."""
    names = set(re.findall(r"\b(\w+)\s*=\s*" + OBJECT + DIM_READ + r"\s*[;,)]", body))
    names.update(re.findall(r"\bint64_t\s+(\w+)\s*:\s*[\w.]*(?:shape|getShape\(\))\s*\)", body))
    if not names:
        return DIM_READ
    return r"(?:" + DIM_READ + r"|\b(?:" + "|".join(sorted(names)) + r")\b(?!\s*[\[(]))"


def argument(line, start):
    """The text inside the parenthesis that opens at `start` - 1, to its match on this line."""
    depth = 1
    for i in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[i], 0)
        if depth == 0:
            return line[start:i]
    return line[start:]


def float_patterns(lines):
    """Per line: floating-point hints, plus the locals declared double or float in a block still
    open there (the two branches of an if may declare one name with two types)."""
    scopes = [set()]
    for line in lines:
        for match in DOUBLE_LOCALS.finditer(line):
            scopes[-1].add(match.group(1))
            scopes[-1].update(re.findall(r",\s*(\w+)", match.group(2)))
        names = set().union(*scopes)
        yield re.compile(FLOAT_HINT + (r"|\b(?:" + "|".join(sorted(names)) + r")\b"
                                       if names else ""))
        for c in line:
            if c == "{":
                scopes.append(set())
            elif c == "}" and len(scopes) > 1:
                scopes.pop()


def float_to_int(line, floating):
    return any(floating.search(argument(line, m.end())) for m in INT_CAST.finditer(line))


def findings(root, relative):
    text = blank_comments_and_literals((root / relative).read_text())
    for start, lines in chunks(text):
        # Names declared CheckedInt in this body only: file-wide, one `CheckedInt span` let every
        # line naming a `span` (or `out`, `value`) anywhere in the file through.
        names = checked_names("\n".join(lines)) - {"const", "constexpr", "auto"}
        checked = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
        dim = dim_pattern("\n".join(lines))
        floating_per_line = list(float_patterns(lines))
        left = re.compile(dim + r"\s*" + OPERATOR + r"(?![->=])")
        right = re.compile(r"(?<![-+<>=!&|*/%^(\[,?:])\s*" + OPERATOR + r"\s*" + OBJECT + dim)
        for offset, line in enumerate(lines):
            # `->` and `++`/`--` are not arithmetic on a dim; drop them first.
            plain = line.replace("->", "  ").replace("++", "  ").replace("--", "  ")
            why = None
            if OTHER_CHECKS.search(plain):
                why = "an overflow check other than CheckedInt"
            elif WRAPPING_COUNT.search(plain):
                why = "getNumElements() wraps; use checkedElementCount"
            elif checked.search(plain):
                pass
            elif float_to_int(plain, floating_per_line[offset]):
                why = "a floating-point value cast to an integer; use CheckedInt::fromDouble"
            elif left.search(plain):
                why = "a dim is a raw int64 operand"
            elif right.search(plain):
                why = "a dim is an operand of raw int64 arithmetic"
            if why:
                yield start + offset, why, line.strip()


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    found = 0
    for relative in FILES:
        for number, why, line in findings(root, relative):
            print(f"{relative}:{number}: {why}: {line}")
            found += 1
    if found:
        print(f"{found} lines of raw shape arithmetic; count with CheckedInt (runtime/ir/CheckedInt.h)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
