#!/usr/bin/env python3
"""Checks that node sets are blocks of a torus, independently of the C++ code.

A block is a box taken with wrap-around: in every dimension its nodes use a
cyclic run of coordinates, and it holds every node of the product of those
runs.  It is isolated when every minimal route between two of its nodes stays
inside it: per dimension the run is 1 long, the whole ring, or so short that
the way inside is strictly shorter than the way round (2 * (run - 1) < size).

usage: check_blocks.py --torus 4x2x2x2 --prefix desmos --digits 2 HOSTLIST...
Node i is PREFIX + i zero-padded to DIGITS, laid X-fastest (angara.yaml's
default order xyzk).  Prints one line per hostlist, "HOSTLIST: isolated
2x2x2x1 block" or why not; exits 0 when every set is an isolated block.
"""
import argparse
import re
import sys


def expand(hostlist):
    """'desmos[00-03,08],desmos10' -> names, keeping zero padding."""
    names = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", hostlist):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\]", part)
        if not m:
            names.append(part)
            continue
        prefix, ranges = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            hi = hi or lo
            for i in range(int(lo), int(hi) + 1):
                names.append(prefix + str(i).zfill(len(lo)))
    return names


def cyclic_run(used, size):
    """Length of the cyclic run covering `used`, or None when it has gaps."""
    if len(used) == size:
        return size
    start = next(c for c in range(size) if c in used and (c - 1) % size not in used)
    length = 0
    while (start + length) % size in used:
        length += 1
    return length if length == len(used) else None


def classify(names, sizes, prefix, digits):
    coords = []
    for name in names:
        if not name.startswith(prefix) or len(name) != len(prefix) + digits or not name[len(prefix):].isdigit():
            return f"{name} is not a node of the machine"
        index = int(name[len(prefix):])
        c = []
        for size in sizes:
            c.append(index % size)
            index //= size
        if index:
            return f"{name} is not a node of the machine"
        coords.append(tuple(c))
    if len(set(coords)) != len(coords):
        return "a node twice"
    shape = []
    for dim, size in enumerate(sizes):
        run = cyclic_run({c[dim] for c in coords}, size)
        if run is None:
            return f"not a block: gaps in dimension {'XYZK'[dim]}"
        shape.append(run)
    volume = 1
    for run in shape:
        volume *= run
    if volume != len(coords):
        return f"not a block: {len(coords)} nodes in a {'x'.join(map(str, shape))} box"
    isolated = all(run == 1 or run == size or 2 * (run - 1) < size for run, size in zip(shape, sizes))
    return ("isolated " if isolated else "not isolated: ") + "x".join(map(str, shape)) + " block"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--torus", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--digits", type=int, required=True)
    parser.add_argument("hostlists", nargs="+")
    args = parser.parse_args()
    sizes = [int(s) for s in args.torus.split("x")]
    ok = True
    for hostlist in args.hostlists:
        verdict = classify(expand(hostlist), sizes, args.prefix, args.digits)
        print(f"{hostlist}: {verdict}")
        ok = ok and verdict.startswith("isolated ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
