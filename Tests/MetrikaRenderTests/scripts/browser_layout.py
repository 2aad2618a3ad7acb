#!/usr/bin/env python3
"""Lays pages out in a real browser at given widths and measures what a reader would see.

Builds, under OUTDIR, pages for `chromium --dump-dom` and `--screenshot`:
- OUTDIR/layout.html: one iframe per page and width (an iframe is a reliable viewport: headless
  windows are at least 500 px wide). Each page is put in `srcdoc` unchanged, so relative image
  files resolve against OUTDIR. Once everything has loaded, a script measures each frame and writes
  JSON between two LAYOUT markers into the DOM.
- OUTDIR/shot-NAME-WIDTH.html: one such iframe alone, for a screenshot of a window WIDTH wide.

A page is NAME=FILE.html, or NAME=MESSAGE.eml: a mail, unpacked as a mail reader does (its HTML part,
its inline images saved beside it with cid: references rewritten). With --svgs DIR (the SVG documents
the rasterizer was given, in order, as DIR/0000.svg, DIR/0001.svg, ...), the n-th inline PNG is known to
come from the n-th SVG: its smallest font size and width let the script compute the size its text
is shown at.

Prints JSON: {"layout": path, "shots": {"NAME-WIDTH": path}, "images": {NAME: [{file, type, svgWidth,
svgMinFont}]}}.
Usage: browser_layout.py OUTDIR --widths 390,1280 [--svgs DIR] NAME=FILE ...
"""
import email
import email.policy
import html
import json
import os
import sys
import xml.etree.ElementTree as ElementTree

MEASURE = r"""
function measure(frame, name, width, images) {
  var doc = frame.contentDocument, win = frame.contentWindow;
  var out = {name: name, width: width, viewport: win.innerWidth,
             scrollWidth: Math.max(doc.documentElement.scrollWidth, doc.body ? doc.body.scrollWidth : 0),
             scrollHeight: doc.documentElement.scrollHeight,
             brokenCells: [], brokenValues: [], checkedCells: 0, checkedValues: 0,
             brokenWords: [], checkedWords: 0, clippedTexts: [], labelsOnLines: [], checkedLabels: 0,
             images: [], svgs: [], smallestChartText: null, chartTexts: 0,
             styleElements: doc.querySelectorAll("style").length, scripts: doc.querySelectorAll("script").length};
  function lines(range) {
    var tops = [];
    Array.prototype.forEach.call(range.getClientRects(), function (rect) {
      if (rect.width <= 0 || rect.height <= 0) return;
      if (!tops.some(function (top) { return Math.abs(top - rect.top) < 3; })) tops.push(rect.top);
    });
    return tops.length;
  }
  // Every table cell holding a number: one line box.
  Array.prototype.forEach.call(doc.querySelectorAll("td"), function (cell) {
    if (!/[0-9]/.test(cell.textContent)) return;
    out.checkedCells += 1;
    var range = doc.createRange();
    range.selectNodeContents(cell);
    if (lines(range) > 1) out.brokenCells.push(cell.textContent);
  });
  // Every number, percentage, change, duration and date anywhere in the text: one line box. Grouped
  // numbers are matched with ordinary spaces too, so that `27 899` split into `27` / `899` is caught.
  var S = "[ \u00a0\u202f]";
  var M = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
  var value = new RegExp([
    "(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)" + S + ")?\\d{4}-\\d{2}-\\d{2}",
    "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)" + S + "\\d{1,2}" + S + M + "(?:" + S + "\\d{4})?",
    "\\d{1,2}[–-]\\d{1,2}" + S + M + "(?:" + S + "\\d{4})?",
    "\\d{1,2}" + S + M + "(?:" + S + "\\d{4})?",
    "[+-]?\\d+(?:\\.\\d+)?(?:%|" + S + "pp)",
    "\\d+:\\d\\d(?::\\d\\d)?",
    "[+-]?\\d{1,3}(?:" + S + "\\d{3})+(?:\\.\\d+)?",
  ].join("|"), "g");
  var walker = doc.createTreeWalker(doc.body, NodeFilter.SHOW_TEXT);
  for (var node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentNode.closest("svg, title, script, style")) continue;
    var text = node.nodeValue, match;
    value.lastIndex = 0;
    while ((match = value.exec(text)) !== null) {
      out.checkedValues += 1;
      var range = doc.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      if (lines(range) > 1) out.brokenValues.push(match[0]);
    }
    // Every word: on one line (`Recommendatio` / `n system traffic` is a word broken), unless the word
    // alone is wider than its box, the one case where breaking inside it is right.
    // (Words end at hyphens: a compound may break after its hyphen.)
    var word = /[^\s\u00a0-]+/g;
    word.lastIndex = 0;
    while ((match = word.exec(text)) !== null) {
      if (match[0].length < 2) continue;
      out.checkedWords += 1;
      var range = doc.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      if (lines(range) <= 1) continue;
      var box = node.parentNode.closest("td, th, p, h1, h2, div, li, span") || node.parentNode;
      var widths = Array.prototype.reduce.call(range.getClientRects(), function (sum, rect) { return sum + rect.width; }, 0);
      if (widths <= box.clientWidth + 1) out.brokenWords.push(match[0]);
    }
  }
  function chartText(size) {
    out.chartTexts += 1;
    out.smallestChartText = out.smallestChartText === null ? size : Math.min(out.smallestChartText, size);
  }
  Array.prototype.forEach.call(doc.images, function (img) {
    var shown = img.getBoundingClientRect();
    var file = img.getAttribute("src");
    var source = images[file];
    var row = {src: file, alt: img.getAttribute("alt"), complete: img.complete, naturalWidth: img.naturalWidth,
               naturalHeight: img.naturalHeight, shownWidth: shown.width, right: shown.right};
    if (source && source.svgWidth) {
      // The PNG was drawn from an SVG `svgWidth` wide: its text is shown at that SVG size × shown / drawn.
      row.shownTextSize = source.svgMinFont * shown.width / source.svgWidth;
      chartText(row.shownTextSize);
    }
    out.images.push(row);
  });
  Array.prototype.forEach.call(doc.querySelectorAll("svg"), function (svg) {
    var title = svg.querySelector(":scope > title"), desc = svg.querySelector(":scope > desc");
    var box = svg.getBoundingClientRect();
    out.svgs.push({title: title ? title.textContent : null, desc: desc ? desc.textContent : null,
                   shownWidth: box.width, right: box.right});
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (text) {
      var matrix = text.getScreenCTM();
      if (!matrix) return;
      chartText(parseFloat(win.getComputedStyle(text).fontSize) * Math.sqrt(matrix.a * matrix.a + matrix.b * matrix.b));
    });
    // Texts inside the chart (a title cut at the right edge, or shortened with `…`, is clipped), and
    // the haloed labels (`expected ~23`): no thick data line (a path stroked 2 px or more) through them.
    var view = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal : {x: 0, y: 0, width: box.width, height: box.height};
    var strokes = Array.prototype.filter.call(svg.querySelectorAll("path"), function (path) {
      return path.getAttribute("fill") === "none" && parseFloat(path.getAttribute("stroke-width") || "1") >= 2;
    });
    Array.prototype.forEach.call(svg.querySelectorAll("text"), function (text) {
      var b = text.getBBox();
      if (b.x < view.x - 0.5 || b.x + b.width > view.x + view.width + 0.5 || /\u2026$/.test(text.textContent)) out.clippedTexts.push(text.textContent);
      if (text.getAttribute("paint-order") !== "stroke") return;
      out.checkedLabels += 1;
      var point = svg.createSVGPoint();
      var hit = false;
      for (var i = 0; i <= 12 && !hit; i++) {
        for (var j = 0; j <= 4 && !hit; j++) {
          point.x = b.x + b.width * i / 12;
          point.y = b.y + b.height * j / 4;
          hit = strokes.some(function (path) { return path.isPointInStroke(point); });
        }
      }
      if (hit) out.labelsOnLines.push(text.textContent);
    });
  });
  return out;
}
window.addEventListener("load", function () {
  var frames = document.querySelectorAll("iframe");
  var results = Array.prototype.map.call(frames, function (frame) {
    return measure(frame, frame.dataset.name, Number(frame.dataset.width), IMAGES[frame.dataset.name] || {});
  });
  var out = document.createElement("pre");
  var mark = "LAY" + "OUT";  // split, so that the marker appears in the dumped DOM only around the data
  // Non-ASCII as \\u escapes: the dumped DOM would otherwise show U+00A0 as &nbsp;.
  var json = JSON.stringify(results).replace(/[&<>\u007f-\uffff]/g, function (c) { return "\\u" + ("000" + c.charCodeAt(0).toString(16)).slice(-4); });
  out.textContent = mark + json + mark;
  document.body.appendChild(out);
});
"""

SHOT = r"""
window.addEventListener("load", function () {
  var frame = document.querySelector("iframe");
  frame.style.height = frame.contentDocument.documentElement.scrollHeight + "px";
});
"""


def unpack(path, outdir, name):
    with open(path, "rb") as handle:
        message = email.message_from_bytes(handle.read(), policy=email.policy.default)
    body = None
    images = []
    for part in message.walk():
        if part.is_multipart():
            continue
        if part.get_content_type() == "text/html" and body is None:
            body = part.get_content()
        elif part.get_content_disposition() == "inline" and part.get("Content-ID"):
            cid = part.get("Content-ID").strip().strip("<>")
            extension = {"image/png": "png", "image/svg+xml": "svg"}.get(part.get_content_type(), "bin")
            file = "%s-inline-%d.%s" % (name, len(images) + 1, extension)
            with open(os.path.join(outdir, file), "wb") as out:
                out.write(part.get_payload(decode=True))
            images.append({"cid": cid, "type": part.get_content_type(), "file": file})
    if body is None:
        sys.exit("%s: no text/html part" % path)
    for image in images:
        body = body.replace('src="cid:%s"' % image["cid"], 'src="%s"' % image["file"])
    return body, images


def smallest_font(path):
    """The SVG's width and the smallest font-size any <text> gets (its own or inherited)."""
    root = ElementTree.parse(path).getroot()
    smallest = [None]

    def walk(element, inherited):
        size = element.get("font-size")
        size = float(size) if size is not None else inherited
        if element.tag.endswith("}text") or element.tag == "text":
            if size is not None:
                smallest[0] = size if smallest[0] is None else min(smallest[0], size)
        for child in element:
            walk(child, size)

    walk(root, None)
    return float(root.get("width")), smallest[0]


def frame(name, width, page, height):
    return ('<iframe data-name="%s" data-width="%d" style="display:block;border:0;margin:0 0 8px;width:%dpx;height:%dpx" srcdoc="%s"></iframe>\n'
            % (html.escape(name), width, width, height, html.escape(page, quote=True)))


def main(arguments):
    outdir = arguments[0]
    widths = [390, 1280]
    svgs = None
    pages = []
    rest = arguments[1:]
    while rest:
        argument = rest.pop(0)
        if argument == "--widths":
            widths = [int(w) for w in rest.pop(0).split(",")]
        elif argument == "--svgs":
            svgs = rest.pop(0)
        else:
            name, _, path = argument.partition("=")
            pages.append((name, path))
    documents = {}
    images = {}
    captured = sorted(os.listdir(svgs)) if svgs else []
    for name, path in pages:
        if path.endswith(".eml"):
            body, found = unpack(path, outdir, name)
            for image in found:
                if image["type"] == "image/png" and captured:
                    width, font = smallest_font(os.path.join(svgs, captured.pop(0)))
                    image["svgWidth"], image["svgMinFont"] = width, font
            images[name] = found
        else:
            with open(path, encoding="utf-8") as handle:
                body = handle.read()
            images[name] = []
        documents[name] = body
    by_file = {name: {image["file"]: image for image in found} for name, found in images.items()}
    head = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">\n"
    layout = head + "".join(frame(name, width, documents[name], 200) for name, _ in pages for width in widths)
    layout += "<script>var IMAGES = %s;\n%s</script>\n</body></html>\n" % (json.dumps(by_file), MEASURE)
    layout_path = os.path.join(outdir, "layout.html")
    with open(layout_path, "w", encoding="utf-8") as out:
        out.write(layout)
    shots = {}
    for name, _ in pages:
        for width in widths:
            path = os.path.join(outdir, "shot-%s-%d.html" % (name, width))
            with open(path, "w", encoding="utf-8") as out:
                out.write(head + frame(name, width, documents[name], 200) + "<script>%s</script>\n</body></html>\n" % SHOT)
            shots["%s-%d" % (name, width)] = path
    print(json.dumps({"layout": layout_path, "shots": shots, "images": images}))


if __name__ == "__main__":
    main(sys.argv[1:])
