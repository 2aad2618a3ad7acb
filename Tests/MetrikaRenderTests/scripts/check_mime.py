#!/usr/bin/env python3
"""Parses a message written by metrika's MIMEMessage with Python's email package (an independent
implementation of RFC 5322/2045/2047/2231) and reports what a mail reader would see.

Prints one JSON object: the decoded headers, the part tree (content types, dispositions, file names,
Content-IDs), the decoded text bodies, every defect the parser noticed, and, for each file part, the
path of a file in OUTDIR holding its decoded bytes (so the caller can compare them byte for byte).
Usage: check_mime.py MESSAGE.eml OUTDIR
"""
import email
import email.policy
import json
import os
import sys


def main(path, outdir):
    with open(path, "rb") as handle:
        raw = handle.read()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    defects = []
    files = []
    texts = {}
    counter = [0]

    def walk(part, depth):
        for defect in part.defects:
            defects.append("%s: %s" % (part.get_content_type(), defect.__class__.__name__))
        node = {
            "type": part.get_content_type(),
            "disposition": part.get_content_disposition(),
            "filename": part.get_filename(),
            "contentID": part.get("Content-ID"),
            "charset": part.get_content_charset(),
            "encoding": part.get("Content-Transfer-Encoding"),
        }
        if part.is_multipart():
            node["parts"] = [walk(child, depth + 1) for child in part.iter_parts()]
        elif part.get_content_maintype() == "text":
            texts.setdefault(part.get_content_type(), part.get_content())
        else:
            counter[0] += 1
            target = os.path.join(outdir, "part-%d.bin" % counter[0])
            with open(target, "wb") as out:
                out.write(part.get_payload(decode=True))
            node["savedAs"] = target
            files.append(node)
        return node

    tree = walk(message, 0)
    headers = {name: str(message[name]) for name in ("From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Auto-Submitted")}
    to_addresses = [address.addr_spec for address in message["To"].addresses] if message["To"] else []
    from_names = [address.display_name for address in message["From"].addresses] if message["From"] else []
    print(json.dumps({
        "headers": headers,
        "toAddresses": to_addresses,
        "fromDisplayNames": from_names,
        "dateParsed": message["Date"].datetime.isoformat() if message["Date"] else None,
        "tree": tree,
        "texts": texts,
        "files": files,
        "defects": defects,
    }, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
