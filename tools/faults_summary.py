#!/usr/bin/env python3
"""Summary tables of fault campaigns (bench/angara_faults.cpp --csv), several runs together.

usage: tools/faults_summary.py FILE.csv[:FIRST:END] ...
Counts the scenarios FIRST <= id < END of each file (all when not given): for every
generator and chain, by dimension count and over all, scenarios run, routed, missed (the
oracle joins every pair but no table came out), deadlocks, mean stretch over the shortest
encodable route weighted by pairs (max), mean detour over the fault-free distance (max),
mean max-gamma over the fault-free balanced table's (max), mean CPU seconds per table
(max); then the chains by allocation size, and the chain misses.  A chain's name holds
commas, which the campaign writes unquoted; they are put back together here.
"""
import collections
import csv
import sys


def read(spec):
    path, _, bounds = spec.partition(':')
    first, end = (int(b) for b in bounds.split(':')) if bounds else (0, 1 << 30)
    with open(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        for fields in reader:
            extra = len(fields) - len(header)
            if extra < 0:
                continue  # a torn last line
            fields = fields[:7] + [','.join(fields[7:8 + extra])] + fields[8 + extra:]
            row = dict(zip(header, fields))
            row['source'] = path
            if first <= int(row['scenario']) < end:
                yield row


def dims(machine):
    return f"{sum(1 for s in machine.split('x') if int(s) > 1)}D"


def size_class(nodes):
    for limit in (64, 128, 256, 512):
        if nodes <= limit:
            return f"<= {limit}"
    return "> 512"


def new_summary():
    return dict(ran=0, routed=0, missed=0, deadlocks=0, stretch=0.0, max_stretch=0.0, pairs=0, detour=0.0,
                max_detour=0.0, gamma=0.0, max_gamma=0.0, gammas=0, seconds=0.0, max_seconds=0.0)


def add(s, r):
    s['ran'] += 1
    seconds = float(r['seconds'])
    s['seconds'] += seconds
    s['max_seconds'] = max(s['max_seconds'], seconds)
    s['deadlocks'] += int(r['deadlock'])
    if r['ok'] != '1':
        s['missed'] += r['oracle_all'] == '1'
        return
    s['routed'] += 1
    n = int(r['nodes'])
    pairs = n * (n - 1)
    s['pairs'] += pairs
    s['stretch'] += float(r['mean_stretch']) * pairs
    s['max_stretch'] = max(s['max_stretch'], float(r['max_stretch']))
    s['detour'] += float(r['mean_detour']) * pairs
    s['max_detour'] = max(s['max_detour'], float(r['max_detour']))
    if int(r['ff_gamma']) > 0:
        ratio = int(r['max_gamma']) / int(r['ff_gamma'])
        s['gamma'] += ratio
        s['max_gamma'] = max(s['max_gamma'], ratio)
        s['gammas'] += 1


def line(label, name, s):
    pairs = max(1, s['pairs'])
    return (f"| {label} | {name} | {s['ran']} | {s['routed']} | {s['missed']} | {s['deadlocks']} | "
            f"{s['stretch'] / pairs:.4f} ({s['max_stretch']:.1f}) | {s['detour'] / pairs:.3f} ({s['max_detour']:.0f}) | "
            f"{s['gamma'] / max(1, s['gammas']):.2f} ({s['max_gamma']:.2f}) | "
            f"{s['seconds'] / max(1, s['ran']):.3f} ({s['max_seconds']:.2f}) |")


def main():
    rows = [r for spec in sys.argv[1:] for r in read(spec)]
    scenarios = {(r['source'], r['scenario']): r for r in rows}
    routable = sum(1 for r in scenarios.values() if r['oracle_all'] == '1')
    print(f"{len(scenarios)} scenarios, the oracle joins every pair in {routable}; by dimensions",
          dict(sorted(collections.Counter(dims(r['machine']) for r in scenarios.values()).items())),
          "; by size", dict(sorted(collections.Counter(size_class(int(r['nodes'])) for r in scenarios.values()).items())))
    header = ("| dims | algorithm | ran | routed | missed | deadlocks | stretch (max) | detour (max) | gamma/ff (max) "
              "| CPU s (max) |\n|---|---|---|---|---|---|---|---|---|---|")
    by = collections.defaultdict(new_summary)
    for r in rows:
        for key in ('all', dims(r['machine'])):
            add(by[(key, r['algorithm'])], r)
    print(header)
    for key, name in sorted(by, key=lambda k: (k[0] != 'all', k[0], not k[1].startswith('chain'), k[1])):
        print(line(key, name, by[(key, name)]))
    print("\nchains by allocation size\n" + header.replace('dims', 'nodes'))
    sized = collections.defaultdict(new_summary)
    for r in rows:
        if r['algorithm'].startswith('chain'):
            add(sized[(size_class(int(r['nodes'])), r['algorithm'])], r)
    for key in sorted(sized, key=lambda k: (int(k[0].split()[-1]), k[1])):
        print(line(key[0], key[1], sized[key]))
    print("\nchain misses (the oracle joins every pair):")
    for r in rows:
        if r['algorithm'].startswith('chain') and r['ok'] != '1' and r['oracle_all'] == '1':
            print(f"  {r['source']} scenario {r['scenario']}: {r['machine']} {r['faults']} {r['allocation']} "
                  f"({r['nodes']} nodes), {r['algorithm']}")


if __name__ == '__main__':
    main()
