#!/usr/bin/env python3
"""Decodes a PNG with the standard library only (zlib + the five PNG row filters; 8-bit grey, RGB,
RGBA, grey+alpha, non-interlaced — what Chromium and rsvg-convert write) and reports what is painted:
size, the share of pixels that are not near-white, and how many pixels are close to given colours.
Usage: png_stats.py FILE.png [RRGGBB ...]
"""
import json
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("not a PNG")
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit("unsupported PNG: depth %d colour %d interlace %d" % (depth, colour, interlace))
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, position = [], bytearray(stride), 0
    for _ in range(height):
        kind = raw[position]
        line = bytearray(raw[position + 1:position + 1 + stride])
        position += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + predictor) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main(path, colours):
    width, height, channels, rows = decode(path)
    targets = [tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c in colours]
    painted = 0
    near = [0] * len(targets)
    for line in rows:
        for x in range(width):
            pixel = line[x * channels:x * channels + channels]
            rgb = (pixel[0],) * 3 if channels <= 2 else tuple(pixel[:3])
            if min(rgb) < 235:
                painted += 1
            for index, target in enumerate(targets):
                if all(abs(rgb[k] - target[k]) <= 24 for k in range(3)):
                    near[index] += 1
    print(json.dumps({"width": width, "height": height, "paintedShare": painted / float(width * height),
                      "near": dict(zip(colours, near))}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
