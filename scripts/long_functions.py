#!/usr/bin/env python3
"""Lists C++ function bodies longer than a limit (issue 23: functions one can hold in one's head).

A brace-counting heuristic, not a parser: comments, string and character literals are blanked, then a
`{` opened directly in a namespace, class or at file scope whose header holds a `(` (and is not a
control statement, an initializer or a lambda) starts a function; its length runs from the line of
its header's name to the line of its closing `}`. Lambdas and local classes count toward the
function that holds them.

  scripts/long_functions.py                 # compiler/ passes/ tools/ runtime/, over 150 lines
  scripts/long_functions.py --limit 100 bench
Exits 1 when it lists anything, so a check can run it.
"""
import argparse
import pathlib
import re
import sys

DEFAULT_DIRS = ["compiler", "passes", "tools", "runtime"]
SUFFIXES = {".cpp", ".h", ".cc", ".hpp", ".inc"}
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else)\b")
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$")


def blank_comments_and_literals(text):
    """Same length and line breaks as `text`, with comments and literals turned to spaces."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def blank_preprocessor_lines(text):
    """`text` with preprocessor lines (and their continuations) turned to spaces: an #endif just above a
    function is no part of its header."""
    lines = text.split("\n")
    continued = False
    for i, line in enumerate(lines):
        if continued or line.lstrip().startswith("#"):
            continued = line.rstrip().endswith("\\")
            lines[i] = " " * len(line)
    return "\n".join(lines)


def function_name(header):
    """The qualified name before the parameter list of a function header, or None."""
    header = re.sub(r"\s+", " ", header).strip()
    if not header or "(" not in header or CONTROL.match(header):
        return None
    if header.startswith("#") or header.endswith("=") or re.search(r"\]\s*(\(.*\))?[^()]*$", header):
        return None  # a preprocessor line, an initializer or a lambda
    # The parameter list is the first top-level parenthesis after the name (skip template args).
    m = re.search(r"([~\w:<>,\s*&]*?)([~\w]+(?:::[~\w]+)*|operator\s*\S+)\s*\(", header)
    return m.group(2) if m else None


def long_functions(path, limit):
    text = blank_preprocessor_lines(blank_comments_and_literals(path.read_text(errors="replace")))
    stack = []  # one entry per open brace: "scope", "function" or "block"
    header_start = 0
    found = []
    starts = []  # (name, first line) for each open function
    for i, c in enumerate(text):
        if c in ";":
            header_start = i + 1
        elif c == "{":
            header = text[header_start:i]
            inside_function = "function" in stack
            kind = "block"
            if not inside_function:
                if SCOPE.search(header) or "extern" in header and "(" not in header:
                    kind = "scope"
                elif function_name(header):
                    kind = "function"
                    offset = header_start + len(header) - len(header.lstrip())
                    starts.append((function_name(header), text.count("\n", 0, offset) + 1))
                elif not header.strip() or header.strip().endswith(("=", ",", "(")):
                    kind = "block"
                else:
                    kind = "scope"
            stack.append(kind)
            header_start = i + 1
        elif c == "}":
            kind = stack.pop() if stack else "block"
            if kind == "function":
                name, first = starts.pop()
                last = text.count("\n", 0, i) + 1
                if last - first + 1 > limit:
                    found.append((last - first + 1, name, first))
            header_start = i + 1
        elif c == ":" and text[i - 1 : i + 1] != "::" and text[i : i + 2] != "::":
            # `public:` and `case X:` end a header; a constructor's init list is kept by the `(`.
            header = text[header_start:i]
            if re.search(r"\b(public|private|protected|case|default)\b\s*\w*\s*$", header):
                header_start = i + 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", help="folders or files (default: %s)" % " ".join(DEFAULT_DIRS))
    parser.add_argument("--limit", type=int, default=150, help="longest allowed function, in lines")
    args = parser.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    paths = [pathlib.Path(p) for p in args.paths] or [root / d for d in DEFAULT_DIRS]
    files = []
    for p in paths:
        files += [p] if p.is_file() else sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES)
    rows = []
    for f in files:
        for length, name, line in long_functions(f, args.limit):
            shown = f.resolve().relative_to(root) if f.resolve().is_relative_to(root) else f
            rows.append((length, "%s:%d" % (shown, line), name))
    for length, where, name in sorted(rows, reverse=True):
        print("%5d  %-60s %s" % (length, where, name))
    print("%d function(s) over %d lines in %d file(s)" % (len(rows), args.limit, len(files)))
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
