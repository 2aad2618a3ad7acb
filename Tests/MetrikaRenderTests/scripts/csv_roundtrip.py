#!/usr/bin/env python3
"""Independent CSV reader for the RenderTests round-trip.

Parses the file named on the command line with Python's csv module in strict mode and prints the
records as a JSON array of arrays of strings (ASCII-escaped, so the output bytes do not depend on the
locale). Exits non-zero on any malformed quoting.
"""
import csv
import json
import sys


def main() -> int:
    with open(sys.argv[1], newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle, strict=True))
    sys.stdout.write(json.dumps(rows, ensure_ascii=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
