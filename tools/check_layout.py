#!/usr/bin/env python3
"""Checks the include rules of the source tree (doc/design.md, "Layout").

The layers and what each may include (besides the C++ and system headers):

  angara/               angara/
  routing/common/       angara/, routing/common/
  routing/generators/   angara/, routing/common/, routing/generator.hpp, and
                        files of its own engine only (generators/X.hpp for
                        generators/X.cpp, or its own folder generators/X/)
  routing/check/        angara/, routing/common/, routing/check/
  routing/ (manager)    angara/, routing/
  placement/            angara/, routing/, placement/
  select/               angara/, routing/, placement/, select/ (its C file,
                        select_angara.c, includes Slurm's source headers and
                        select/block_filter.h only; not checked here)
  slurm/                angara/, slurm/
  spank/                angara/, routing/, slurm/, spank/
  simulation/           angara/, routing/, simulation/
  cli/                  everything but tests/ and bench/

A generator also never names another: no make_generator() in an engine.
Finally, no two project files include each other, directly or through
others (an include cycle).

Usage: check_layout.py [SOURCE_TOP].  Prints one line per violation, with the
file and line, and exits 1 when there is any.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

ALLOWED = [
    # (prefix of the including file, allowed include prefixes)
    ("angara/", ["angara/"]),
    ("routing/common/", ["angara/", "routing/common/"]),
    ("routing/generators/", ["angara/", "routing/common/", "routing/generator.hpp"]),
    ("routing/check/", ["angara/", "routing/common/", "routing/check/"]),
    ("routing/", ["angara/", "routing/"]),
    ("placement/", ["angara/", "routing/", "placement/"]),
    ("select/", ["angara/", "routing/", "placement/", "select/"]),
    ("slurm/", ["angara/", "slurm/"]),
    ("spank/", ["angara/", "routing/", "slurm/", "spank/"]),
    ("simulation/", ["angara/", "routing/", "simulation/"]),
    ("cli/", ["angara/", "routing/", "placement/", "slurm/", "spank/", "simulation/", "cli/"]),
]
# config.h is autoconf's, allowed everywhere.
ALWAYS = {"config.h"}


def engine_of(path):
    """'routing/generators/balanced/x.cpp' -> 'balanced'; 'routing/generators/sssp.hpp' -> 'sssp'."""
    rest = path[len("routing/generators/"):]
    first = rest.split("/")[0]
    return first.split(".")[0]


def source_files(top):
    for layer in ("angara", "routing", "placement", "select", "slurm", "spank", "cli"):
        for root, _, files in os.walk(os.path.join(top, layer)):
            for name in sorted(files):
                if name.endswith((".cpp", ".hpp")):
                    full = os.path.join(root, name)
                    yield os.path.relpath(full, top), full


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    problems = []
    graph = {}
    for rel, full in source_files(top):
        rel = rel.replace(os.sep, "/")
        graph.setdefault(rel, [])
        rules = next(allowed for prefix, allowed in ALLOWED if rel.startswith(prefix))
        with open(full, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if rel.startswith("routing/generators/") and "make_generator(" in line:
                    problems.append(f"{rel}:{number}: an engine names another generator (make_generator): "
                                    "starting tables and fallbacks come from the chain")
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if target in ALWAYS or target.startswith("tests/"):
                    continue
                graph[rel].append((target, number))
                if rel.startswith("routing/generators/") and target.startswith("routing/generators/"):
                    if engine_of(target) != engine_of(rel):
                        problems.append(f"{rel}:{number}: includes {target}, another engine")
                elif not any(target.startswith(p) for p in rules):
                    problems.append(f"{rel}:{number}: includes {target}, outside what its layer may include "
                                    f"({', '.join(rules)})")
    # Include cycles among project files (a header and its .cpp count as one unit).
    def unit(path):
        return re.sub(r"\.(cpp|hpp)$", "", path)
    edges = {}
    for rel, targets in graph.items():
        for target, number in targets:
            if unit(target) != unit(rel):
                edges.setdefault(unit(rel), {}).setdefault(unit(target), (rel, number))
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt, where in sorted(edges.get(node, {}).items()):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                problems.append(f"{where[0]}:{where[1]}: include cycle " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_layout: {len(problems)} violation(s)", file=sys.stderr)
        return 1
    print(f"check_layout: {len(graph)} files follow the include rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
