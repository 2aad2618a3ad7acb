#!/usr/bin/env python3
"""Unpacks a metrika mail the way a mail reader does, for a browser to render: the HTML part of the
multipart/related, and each inline image saved under OUTDIR with its cid: reference rewritten to the
file. Writes OUTDIR/mail.html (the HTML as mailed) and OUTDIR/probe.html (the same plus a script
that, once everything has loaded, records each image's naturalWidth/naturalHeight in the DOM, for
`chromium --dump-dom`). Prints JSON: {"mail": path, "probe": path, "images": [{cid, type, file}]}.
Usage: mail_browser_page.py MESSAGE.eml OUTDIR
"""
import email
import email.policy
import json
import os
import sys

PROBE = """<script>
window.addEventListener("load", function () {
  var rows = Array.prototype.map.call(document.images, function (img) {
    return {src: img.getAttribute("src"), complete: img.complete, naturalWidth: img.naturalWidth,
            naturalHeight: img.naturalHeight, shownWidth: img.getBoundingClientRect().width};
  });
  var out = document.createElement("pre");
  out.id = "probe";
  var mark = "PRO" + "BE";  // split, so that the marker appears in the dumped DOM only around the data
  out.textContent = mark + JSON.stringify(rows) + mark;
  document.body.appendChild(out);
});
</script>
"""


def main(path, outdir):
    with open(path, "rb") as handle:
        message = email.message_from_bytes(handle.read(), policy=email.policy.default)
    html = None
    images = []
    for part in message.walk():
        if part.is_multipart():
            continue
        if part.get_content_type() == "text/html" and html is None:
            html = part.get_content()
        elif part.get_content_disposition() == "inline" and part.get("Content-ID"):
            cid = part.get("Content-ID").strip().strip("<>")
            extension = {"image/png": "png", "image/svg+xml": "svg"}.get(part.get_content_type(), "bin")
            name = "inline-%d.%s" % (len(images) + 1, extension)
            with open(os.path.join(outdir, name), "wb") as out:
                out.write(part.get_payload(decode=True))
            images.append({"cid": cid, "type": part.get_content_type(), "file": name})
    if html is None:
        sys.exit("no text/html part")
    for image in images:
        html = html.replace('src="cid:%s"' % image["cid"], 'src="%s"' % image["file"])
    mail = os.path.join(outdir, "mail.html")
    probe = os.path.join(outdir, "probe.html")
    with open(mail, "w", encoding="utf-8") as out:
        out.write(html)
    with open(probe, "w", encoding="utf-8") as out:
        out.write(html.replace("</body>", PROBE + "</body>"))
    print(json.dumps({"mail": mail, "probe": probe, "images": images}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
