#!/usr/bin/env python3
"""Writes the plain dimension-order table of a whole fault-free torus as a
route dump (doc/model.md, "Route dump format"): in each dimension the shorter
way round, + on a tie, positive hops first, then negative ones; a
single-cabled size-2 dimension through its one cable (+ from 0, - from 1).
The same routes as angara::dimension_order_table, for `angara-route analyze
--dump` (e.g. to time the adaptive channel's check on a table that passes it).

usage: dor_dump.py SIZES [SINGLE_CABLE_LETTERS] > FILE    e.g. dor_dump.py 8x8x8
"""
import itertools
import sys

LETTERS = "XYZK"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1].strip())
    sizes = [int(s) for s in sys.argv[1].split("x")]
    single = sys.argv[2] if len(sys.argv) == 3 else ""
    dims = len(sizes)
    header = f"# angara-routes v1 dims={sys.argv[1]} algorithm=dor rules=angara flow_control=bubble virtual_channels=1"
    if single:
        header += f" single_cable={single}"
    out = [header]
    # X varies fastest: itertools.product varies the last element fastest.
    nodes = [tuple(reversed(c)) for c in itertools.product(*[range(s) for s in reversed(sizes)])]
    for src in nodes:
        for dst in nodes:
            if src == dst:
                continue
            positive, negative = [], []
            for d in range(dims):
                size, offset = sizes[d], (dst[d] - src[d]) % sizes[d]
                if offset == 0:
                    continue
                if size == 2 and LETTERS[d] in single:
                    (positive if src[d] == 0 else negative).append(("+" if src[d] == 0 else "-") + LETTERS[d])
                elif offset <= size - offset:
                    positive += ["+" + LETTERS[d]] * offset
                else:
                    negative += ["-" + LETTERS[d]] * (size - offset)
            coord = lambda c: ",".join(map(str, c))
            out.append(f"{coord(src)} {coord(dst)} 0 {' '.join(positive + negative)}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
