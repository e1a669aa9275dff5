#!/usr/bin/env python3
"""Checks a load picture of angara-route analyze --svg independently of its
writer: well-formed XML, an SVG 1.1 root in the SVG namespace, the number of
channel elements (class "channel"), and the marked failed routers.

usage: check_svg.py FILE --channels N [--dead N] [--failed-cables N]
                    [--failed-router NAME]... [--job-nodes N] [--other-job-nodes N]
Prints one summary line; exits 0 when every check passes, 1 otherwise.
"""
import argparse
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def classes(element):
    return element.get("class", "").split()


def title(element):
    t = element.find(SVG + "title")
    return t.text or "" if t is not None else ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--channels", type=int, required=True)
    parser.add_argument("--dead", type=int)
    parser.add_argument("--failed-cables", type=int)
    parser.add_argument("--failed-router", action="append", default=[])
    parser.add_argument("--job-nodes", type=int)
    parser.add_argument("--other-job-nodes", type=int)
    args = parser.parse_args()
    problems = []
    try:
        root = ET.parse(args.file).getroot()
    except ET.ParseError as e:
        print(f"{args.file}: not well-formed XML: {e}")
        return 1
    if root.tag != SVG + "svg" or root.get("version") != "1.1":
        problems.append(f"root is {root.tag} version {root.get('version')}, wanted an SVG 1.1 svg element")
    elements = list(root.iter())
    channels = [e for e in elements if "channel" in classes(e)]
    routers = [e for e in elements if "router" in classes(e)]
    if len(channels) != args.channels:
        problems.append(f"{len(channels)} channel elements, wanted {args.channels}")
    untitled = [e for e in channels + routers if not title(e)]
    if untitled:
        problems.append(f"{len(untitled)} channels or routers without a tooltip")
    for cls, want in (("dead", args.dead), ("failed-cable", args.failed_cables)):
        got = sum(1 for e in channels if cls in classes(e))
        if want is not None and got != want:
            problems.append(f"{got} channels of class {cls}, wanted {want}")
    failed = [title(e) for e in routers if "failed-router" in classes(e)]
    if len(failed) != len(args.failed_router):
        problems.append(f"{len(failed)} failed routers marked ({failed}), wanted {len(args.failed_router)}")
    for name in args.failed_router:
        if not any(t.startswith(name + " ") for t in failed):
            problems.append(f"failed router {name} not marked (marked: {failed})")
    job = sum(1 for e in routers if "job-node" in classes(e))
    if args.job_nodes is not None and job != args.job_nodes:
        problems.append(f"{job} job nodes outlined, wanted {args.job_nodes}")
    other = sum(1 for e in routers if "other-job" in classes(e))
    if args.other_job_nodes is not None and other != args.other_job_nodes:
        problems.append(f"{other} routers of other jobs filled, wanted {args.other_job_nodes}")
    if problems:
        print(f"{args.file}: " + "; ".join(problems))
        return 1
    print(f"{args.file}: SVG 1.1, {len(channels)} channels, {len(routers)} routers, failed {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
