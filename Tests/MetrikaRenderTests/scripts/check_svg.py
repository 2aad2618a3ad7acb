#!/usr/bin/env python3
"""Independent checks of an SVG file written by metrika's SVGLineChart.

Parses the file with Python's own XML parser (xml.etree.ElementTree, i.e. expat) and checks that it is
a safe, self-contained SVG document. Prints one JSON object:
  {"ok": bool, "problems": [...], "texts": [...], "title": str, "desc": str,
   "elements": {tag: count}, "viewBox": str}
Exit status 0 when the file parsed (even with problems, so the caller sees them), 2 when it did not.
Usage: check_svg.py FILE.svg
"""
import json
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def local(tag):
    return tag[len(SVG):] if tag.startswith(SVG) else tag


def main(path):
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        print(json.dumps({"ok": False, "problems": ["not well-formed: %s" % error]}))
        return 2
    problems = []
    if root.tag != SVG + "svg":
        problems.append("root is %r, not an SVG element" % root.tag)
    view_box = root.get("viewBox") or ""
    if len(view_box.split()) != 4:
        problems.append("no usable viewBox")
    font = root.get("font-family") or ""
    if not font.strip().endswith(("sans-serif", "serif", "monospace")):
        problems.append("font stack has no generic fallback: %r" % font)
    counts = {}
    texts = []
    for element in root.iter():
        name = local(element.tag)
        counts[name] = counts.get(name, 0) + 1
        if not element.tag.startswith(SVG):
            problems.append("element outside the SVG namespace: %r" % element.tag)
        if name in ("script", "foreignObject", "iframe", "object", "embed", "image", "use", "a", "style"):
            problems.append("forbidden element <%s>" % name)
        for attribute, value in element.attrib.items():
            bare = attribute.split("}")[-1].lower()
            if bare.startswith("on"):
                problems.append("event handler attribute %s" % attribute)
            if bare == "href" or "url(" in value or "javascript:" in value.lower():
                problems.append("external reference in %s=%r" % (attribute, value))
        if name == "text":
            texts.append("".join(element.itertext()))
    titles = [e for e in root if local(e.tag) == "title"]
    descs = [e for e in root if local(e.tag) == "desc"]
    if len(titles) != 1 or not (titles[0].text or "").strip():
        problems.append("needs exactly one non-empty <title> as a child of <svg>")
    if len(descs) != 1 or not (descs[0].text or "").strip():
        problems.append("needs exactly one non-empty <desc> as a child of <svg>")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        problems.append("document type declarations are not expected")
    print(json.dumps({
        "ok": not problems,
        "problems": problems,
        "texts": texts,
        "title": titles[0].text if titles else "",
        "desc": descs[0].text if descs else "",
        "elements": counts,
        "viewBox": view_box,
    }, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
