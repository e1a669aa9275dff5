#!/usr/bin/env python3
"""Checks a rendered PNG without third-party modules: the PNG signature, and
at least MIN pixels of each colour asked for (within a small tolerance, since
a renderer may blend edges).  Reads 8-bit RGB and RGBA, non-interlaced.

usage: png_colours.py FILE [--min N] [#rrggbb...]
Prints the size, the number of distinct colours and each colour's count;
exits 0 when the image has more than one colour and every colour asked for
reaches N pixels (default 20), 1 otherwise.
"""
import argparse
import struct
import sys
import zlib

TOLERANCE = 3


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG (no PNG signature)")
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError("only 8-bit RGB or RGBA, non-interlaced PNGs are read here")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 255
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b = previous[i]
                c = previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--min", type=int, default=20)
    parser.add_argument("colours", nargs="*")
    args = parser.parse_args()
    try:
        width, height, channels, rows = read_png(args.file)
    except (OSError, ValueError, zlib.error) as e:
        print(f"{args.file}: {e}")
        return 1
    histogram = {}
    for row in rows:
        for x in range(0, len(row), channels):
            pixel = row[x:x + 3]
            histogram[pixel] = histogram.get(pixel, 0) + 1
    wanted = [bytes.fromhex(c.lstrip("#")) for c in args.colours]
    counts = [sum(n for pixel, n in histogram.items()
                  if all(abs(pixel[i] - w[i]) <= TOLERANCE for i in range(3))) for w in wanted]
    found = ", ".join(f"{c} {n}" for c, n in zip(args.colours, counts))
    print(f"{args.file}: {width}x{height}, {len(histogram)} colours" + (f"; {found}" if found else ""))
    return 0 if len(histogram) > 1 and all(n >= args.min for n in counts) else 1


if __name__ == "__main__":
    sys.exit(main())
