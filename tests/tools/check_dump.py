#!/usr/bin/env python3
"""Independent checker for angara-routes v1 dumps (doc/model.md, "Route dump format").

A second implementation of the rules, sharing no code with the C++ verifier:
completeness, walkability over live channels (a single-cabled size-2
dimension, single_cable=YZK in the header, has only its +D port cabled at
coordinate 0 and its -D port at coordinate 1), Angara encodability (unless the
header says rules=general), minimality and deadlock freedom (no turn inside a
strongly connected component of a virtual channel's channel dependency graph;
with flow_control=none in the header, no dependency inside one).

usage: check_dump.py DUMP [--failed-node C]... [--failed-link "C DIR"]... [--allow-non-minimal]
Prints one summary line; exits 0 when every check passes, 1 otherwise.
"""
import argparse
import itertools
import sys

ORDER = ["+X", "+Y", "+Z", "+K", "-X", "-Y", "-Z", "-K"]
RANK = {d: i for i, d in enumerate(ORDER)}
DIM = {d: "XYZK".index(d[1]) for d in ORDER}


def step(coord, direction, sizes):
    c = list(coord)
    dim = DIM[direction]
    c[dim] = (c[dim] + (1 if direction[0] == "+" else -1)) % sizes[dim]
    return tuple(c)


def is_dor(hops):
    used = set()
    for i, h in enumerate(hops):
        if i and RANK[h] < RANK[hops[i - 1]]:
            return False
        opposite = ("-" if h[0] == "+" else "+") + h[1]
        if opposite in used:
            return False
        used.add(h)
    return True


def encodable(hops):
    for fs in (0, 1):
        if fs and not (hops and hops[0][0] == "+"):
            continue
        for ls in (0, 1):
            if ls and not (len(hops) > fs and hops[-1][0] == "-"):
                continue
            if is_dor(hops[fs:len(hops) - ls]):
                return True
    return False


def ring(a, b, size):
    f = (b - a) % size
    return min(f, size - f)


def sccs(vertices, edges):
    """Iterative Tarjan; returns a component id per vertex."""
    index, low, comp, on_stack = {}, {}, {}, set()
    stack, counter, ncomp = [], 0, 0
    for root in vertices:
        if root in index:
            continue
        work = [(root, iter(edges.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
    return comp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--failed-node", action="append", default=[])
    ap.add_argument("--failed-link", action="append", default=[])
    ap.add_argument("--allow-non-minimal", action="store_true")
    args = ap.parse_args()

    with open(args.dump) as f:
        lines = f.read().splitlines()
    head = lines[0].split()
    if head[:3] != ["#", "angara-routes", "v1"] or not head[3].startswith("dims="):
        print("FAIL: bad header %r" % lines[0])
        return 1
    words = dict(w.split("=", 1) for w in head[4:] if "=" in w)
    rules = words.get("rules", "angara")            # general: any path over live channels
    flow_control = words.get("flow_control", "bubble")  # none: every CDG cycle is a deadlock
    sizes = [int(s) for s in head[3][5:].split("x")]
    ndims = len(sizes)
    sizes += [1] * (4 - ndims)
    single = set()  # single-cabled dimensions
    for letter in words.get("single_cable", ""):
        if letter not in "XYZK" or sizes["XYZK".index(letter)] != 2:
            print("FAIL: bad header word single_cable=%s" % words["single_cable"])
            return 1
        single.add("XYZK".index(letter))

    def parse(text):
        c = tuple(int(v) for v in text.split(","))
        assert len(c) == ndims, text
        return c + (0,) * (4 - ndims)

    dead_nodes = {parse(c) for c in args.failed_node}
    dead_channels = set()
    for spec in args.failed_link:
        c, d = spec.split()
        c = parse(c)
        dead_channels.add((c, d))
        opposite = ("-" if d[0] == "+" else "+") + d[1]
        dead_channels.add((step(c, d, sizes), opposite))

    errors = []
    routes = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        src, dst, layer, hops = parse(fields[0]), parse(fields[1]), int(fields[2]), fields[3:]
        if (src, dst) in routes:
            errors.append("line %d: duplicate pair" % number)
        routes[(src, dst)] = (layer, hops)

    nodes = sorted({s for s, _ in routes} | {d for _, d in routes})
    for s, d in itertools.permutations(nodes, 2):
        if (s, d) not in routes:
            errors.append("missing route %s -> %s" % (s, d))

    non_minimal = 0
    cdg = {}  # layer -> {channel: set(channel)}
    for (s, d), (layer, hops) in routes.items():
        here = s
        previous = None
        for h in hops:
            if h[1] not in "XYZK"[:4] or sizes[DIM[h]] < 2:
                errors.append("%s -> %s: hop %s in an absent dimension" % (s, d, h))
                break
            if DIM[h] in single and here[DIM[h]] != (0 if h[0] == "+" else 1):
                errors.append("%s -> %s: leaves %s through %s, which has no cable" % (s, d, here, h))
            if (here, h) in dead_channels or here in dead_nodes:
                errors.append("%s -> %s: uses failed channel %s %s" % (s, d, here, h))
            channel = (here, h)
            if previous is not None:
                cdg.setdefault(layer, {}).setdefault(previous, set()).add(channel)
            previous = channel
            here = step(here, h, sizes)
        if here != d:
            errors.append("%s -> %s: walk ends at %s" % (s, d, here))
        if here in dead_nodes:
            errors.append("%s -> %s: destination failed" % (s, d))
        if rules == "angara" and not encodable(hops):
            errors.append("%s -> %s: not Angara-encodable: %s" % (s, d, " ".join(hops)))
        if len(hops) > sum(ring(a, b, n) for a, b, n in zip(s, d, sizes)):
            non_minimal += 1

    turns_in_cycles = 0
    for layer, edges in cdg.items():
        vertices = set(edges) | {w for ws in edges.values() for w in ws}
        comp = sccs(sorted(vertices), edges)
        for a, targets in edges.items():
            for b in targets:
                if comp[a] == comp[b] and (a[1] != b[1] or flow_control == "none"):
                    turns_in_cycles += 1
                    if turns_in_cycles == 1:
                        errors.append("layer %d: turn %s %s -> %s %s lies on a cycle" % (layer, a[0], a[1], b[0], b[1]))
    if non_minimal and not args.allow_non_minimal:
        errors.append("%d non-minimal routes" % non_minimal)

    verdict = "OK" if not errors else "FAIL"
    print("%s: %d routes over %d nodes, non-minimal %d, turns on cycles %d, problems %d"
          % (verdict, len(routes), len(nodes), non_minimal, turns_in_cycles, len(errors)))
    for e in errors[:10]:
        print("  " + e)
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
