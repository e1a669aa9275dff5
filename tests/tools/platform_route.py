#!/usr/bin/env python3
"""Reads a SimGrid platform of angara-route simulate --platform independently
of its writer and computes, from its links and routes, what a message takes
in SimGrid's CM02 flow model: the sum of the route's link latencies plus
bytes over the smallest link bandwidth on it.

usage: platform_route.py FILE hosts
         the number of hosts
       platform_route.py FILE time SRC DST BYTES
         "CHANNELS_THERE CHANNELS_BACK SECONDS": the channel links (the
         links other than the hosts' own "-nic") of both routes, and the
         mean of the two directions' times (a ping-pong's one way)
       platform_route.py FILE longest
         "SRC DST": the pair with the most channel links there and back
         (the first such in document order)
       platform_route.py FILE neighbour SRC
         "DST": the first host one channel from SRC both ways
"""
import sys
import xml.etree.ElementTree as ET

UNITS = {"Bps": 1.0, "kBps": 1e3, "MBps": 1e6, "GBps": 1e9, "s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def quantity(text):
    for unit in sorted(UNITS, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * UNITS[unit]
    raise SystemExit(f"platform_route: '{text}' has no unit I know")


def load(path):
    zone = ET.parse(path).getroot().find("zone")
    links = {l.get("id"): (quantity(l.get("bandwidth")), quantity(l.get("latency", "0s"))) for l in zone.iter("link")}
    hosts = [h.get("id") for h in zone.iter("host")]
    routes = {}
    for r in zone.iter("route"):
        if r.get("symmetrical", "YES").upper() != "NO":
            raise SystemExit("platform_route: a symmetrical route; the exporter writes one per direction")
        routes[(r.get("src"), r.get("dst"))] = [c.get("id") for c in r.iter("link_ctn")]
    return hosts, links, routes


def channels(route):
    return sum(1 for link in route if not link.endswith("-nic"))


def seconds(links, route, size):
    return sum(links[l][1] for l in route) + size / min(links[l][0] for l in route)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    hosts, links, routes = load(sys.argv[1])
    what, args = sys.argv[2], sys.argv[3:]
    if what == "hosts":
        print(len(hosts))
    elif what == "time":
        src, dst, size = args[0], args[1], float(args[2])
        there, back = routes[(src, dst)], routes[(dst, src)]
        mean = (seconds(links, there, size) + seconds(links, back, size)) / 2
        print(channels(there), channels(back), f"{mean:.12g}")
    elif what == "longest":
        best = max(((channels(routes[(s, d)]) + channels(routes[(d, s)]), s, d) for s, d in routes if s < d),
                   key=lambda t: t[0])
        print(best[1], best[2])
    elif what == "neighbour":
        src = args[0]
        for dst in hosts:
            if dst != src and channels(routes[(src, dst)]) == 1 and channels(routes[(dst, src)]) == 1:
                print(dst)
                return
        raise SystemExit(f"platform_route: {src} has no neighbour")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
