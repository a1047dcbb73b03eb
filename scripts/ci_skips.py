"""Lists the skipped and unsupported tests of a CI run, with their reasons,
from CTest's and lit's JUnit files, and fails (exit 1) when a test was skipped
for any reason other than the ones allowed: a missing ptxas, CUDA toolkit or
GPU (CUDA driver), a check that needs root on a machine that is not, a CPU
without AVX-512 BF16 (the bf16 matmul runs of --matmul-precision=bf16) or
without AMX (their AMX tile runs), or
(in the AddressSanitizer build) a lit test that needs an address space limit.

    ci_skips.py CTEST_JUNIT.xml LIT_JUNIT.xml [MORE_JUNIT.xml ...]

A file that is missing is an error: the run that should have written it
did not happen.
"""

import re
import sys
import xml.etree.ElementTree as ET

# address-space-limit: a lit test run under `ulimit -v`, which an
# AddressSanitizer build cannot start under (lit_tests/lit.cfg.py); the
# regular build runs it.
ALLOWED = re.compile(
    r"ptxas|CUDA toolkit|libdevice|CUDA driver|no CUDA|GPU|needs root"
    r"|address-space-limit|avx512bf16|amxbf16",
    re.IGNORECASE)


def gtest_reason(output):
    """The message GoogleTest prints after a `Skipped` line."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.rstrip().endswith("Skipped") and i + 1 < len(lines):
            reason = []
            for follow in lines[i + 1:]:
                if follow.startswith("["):
                    break
                reason.append(follow.strip())
            text = " ".join(r for r in reason if r)
            if text:
                return text
    return "(no reason given)"


def skips(path):
    """(suite, test name, reason) of each skipped test case in a JUnit file."""
    found = []
    for case in ET.parse(path).getroot().iter("testcase"):
        skipped = case.find("skipped")
        status = case.get("status", "")
        if skipped is None and status not in ("skipped", "notrun", "disabled"):
            continue
        name = case.get("name", "?")
        classname = case.get("classname", "")
        message = skipped.get("message", "") if skipped is not None else ""
        out = case.find("system-out")
        output = out.text if out is not None and out.text else ""
        reason = message
        # CTest's own message says only that GoogleTest printed SKIPPED; the
        # reason is what GoogleTest printed after "Skipped".
        if (not reason or reason.lower() in ("skipped", "disabled")
                or reason == "SKIP_REGULAR_EXPRESSION_MATCHED"):
            reason = gtest_reason(output)
        full = f"{classname}.{name}" if classname and classname != name else name
        found.append((full, reason))
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    total = 0
    disallowed = 0
    for path in sys.argv[1:]:
        try:
            cases = skips(path)
        except (OSError, ET.ParseError) as error:
            print(f"  {path}: cannot be read ({error}): the tests that should "
                  "have written it did not run")
            disallowed += 1
            continue
        for name, reason in cases:
            total += 1
            ok = bool(ALLOWED.search(reason))
            disallowed += not ok
            mark = "" if ok else "  <- not an allowed reason"
            print(f"  {name}: {reason}{mark}")
    print(f"ci: {total} skipped or unsupported, {disallowed} of them not for "
          "a missing ptxas, CUDA toolkit, GPU or CPU feature")
    return 1 if disallowed else 0


if __name__ == "__main__":
    sys.exit(main())
