#!/usr/bin/env python3
"""Measures how wide strings really render in the chart's font stack.

Reads JSON {"font": FONT-FAMILY, "size": PX, "texts": [...]} from INPUT, draws each text on its own
row of an SVG, renders it with rsvg-convert (the same renderer the golden pictures are made with) to
PNG, decodes the PNG with zlib (no imaging library needed) and finds each row's leftmost and rightmost
inked pixel. Prints JSON {text: width_in_px}.
Usage: measure_text.py INPUT.json WORKDIR
"""
import json
import os
import struct
import subprocess
import sys
import zlib
from xml.sax.saxutils import escape, quoteattr

ROW = 40
LEFT = 20


def decode_png(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position = 8
    chunks = []
    width = height = None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color == 6 and interlace == 0, "expected 8-bit RGBA, not interlaced"
        elif kind == b"IDAT":
            chunks.append(body)
    raw = zlib.decompress(b"".join(chunks))
    stride = width * 4
    rows = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - 4] if i >= 4 else 0
            up = previous[i]
            upper_left = previous[i - 4] if i >= 4 else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - upper_left
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 255
        rows.append(line)
        previous = line
    return width, height, rows


def main(input_path, workdir):
    with open(input_path, encoding="utf-8") as handle:
        spec = json.load(handle)
    texts = spec["texts"]
    size = spec["size"]
    width = 1200
    height = ROW * len(texts) + ROW
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family=%s font-size="%s">'
             % (width, height, quoteattr(spec["font"]), size)]
    for index, text in enumerate(texts):
        parts.append('<text x="%d" y="%d" fill="#000">%s</text>' % (LEFT, ROW * (index + 1), escape(text)))
    parts.append("</svg>")
    svg_path = os.path.join(workdir, "measure.svg")
    png_path = os.path.join(workdir, "measure.png")
    with open(svg_path, "w", encoding="utf-8") as handle:
        handle.write("".join(parts))
    subprocess.run(["rsvg-convert", "-o", png_path, svg_path], check=True)
    with open(png_path, "rb") as handle:
        w, h, rows = decode_png(handle.read())
    result = {}
    for index, text in enumerate(texts):
        baseline = ROW * (index + 1)
        lowest, highest = None, None
        for y in range(max(0, baseline - ROW + 8), min(h, baseline + 12)):
            line = rows[y]
            for x in range(w):
                if line[x * 4 + 3] > 40:
                    lowest = x if lowest is None or x < lowest else lowest
                    highest = x if highest is None or x > highest else highest
        # Width from the text's anchor (its left edge) to the last inked pixel: what a centred label
        # occupies on each side is half of this at most.
        result[text] = 0 if highest is None else highest + 1 - LEFT
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
