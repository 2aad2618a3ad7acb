#!/usr/bin/env python3
"""The Python peer of `metrika report --dimensions … --csv`: the same job done the way a Python user would.

It fetches a dimension report from the Reporting API (`/stat/v1/data`) page by page, normalizes every
value exactly as metrika's CSV does (counts as integers, percents with one decimal and `%`, seconds as
`h:mm:ss`, page depth with two decimals, half away from zero on the decimal the API sent), defuses
text that a spreadsheet would run as a formula (a leading `'` before `=`, `+`, `-`, `@`, TAB, CR), and
streams CSV (LF line ends, RFC 4180 quoting) to a file or stdout — byte for byte what metrika writes.

Three HTTP clients, chosen with --client:
  tapi      tapi-yandex-metrika 2022.4.8 (PyPI), pointed at the simulator by overriding its adapter's
            get_api_root (the library hard-codes the real host). Paging is driven here, page by page,
            with the same page size as metrika: the library's own iter_values(max_rows=N) asks for one
            page past N when the report has more rows (see bench/README.md).
  requests  requests + json + csv: the usual hand-written Python client.
  urllib    urllib.request + json + csv from the standard library, nothing installed: the plain script.

Used by bench/run; runnable by hand:
  bench/.venv/bin/python bench/peer_report.py --base-url http://127.0.0.1:PORT --token demo-token \\
      --counter 1004 --date1 2025-06-16 --date2 2026-06-15 --limit 100000 --out phrases.csv
"""

import argparse
import csv
import decimal
import json
import sys
import urllib.parse
import urllib.request

# metrika's six everyday metrics, in its column order, with their units.
METRICS = [
    ("ym:s:pageviews", "pageviews", "count"),
    ("ym:s:visits", "visits", "count"),
    ("ym:s:users", "users", "count"),
    ("ym:s:pageDepth", "page_depth", "pages"),
    ("ym:s:avgVisitDurationSeconds", "avg_visit_duration", "seconds"),
    ("ym:s:bounceRate", "bounce_rate", "percent"),
]

_CONTEXT = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_UP)
_QUANTUM = {n: decimal.Decimal(1).scaleb(-n) for n in range(0, 4)}


def fixed(value, digits):
    """`value` with exactly `digits` fraction digits: the shortest round-trip decimal of the double
    (Python's repr, like Swift's description), rounded half away from zero — metrika's DecimalText."""
    text = format(decimal.Decimal(repr(float(value))).quantize(_QUANTUM[digits], context=_CONTEXT), "f")
    if text.startswith("-") and text.strip("-0.") == "":
        text = text[1:]
    return text


def duration(seconds):
    """H:MM:SS even below an hour (`0:03:04`), as metrika's CSV writes durations."""
    negative = seconds < 0
    total = int(fixed(abs(seconds), 0))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    sign = "-" if negative and total > 0 else ""
    return f"{sign}{hours}:{minutes:02d}:{secs:02d}"


def text(name):
    """A text cell: empty for null, defused with a leading `'` when a spreadsheet would run it."""
    if name is None:
        return ""
    return "'" + name if name[:1] in ("=", "+", "-", "@", "\t", "\r") else name


class LineFeedEnds:
    """Python 3.11's csv quotes a field for the characters of its own line terminator only, so a
    lone CR would go unquoted with "\n". The writer therefore ends records with "\r\n" (which quotes
    CR and LF alike) and this file turns each record's end into "\n" (csv writes one call per record)."""

    def __init__(self, file):
        self.file = file

    def write(self, record):
        return self.file.write(record[:-2] + "\n")


def normalize(value, unit):
    if value is None:
        return ""
    if unit == "count":
        return fixed(value, 0)
    if unit == "percent":
        return fixed(value, 1) + "%"
    if unit == "seconds":
        return duration(float(value))
    return fixed(value, 2)


def pages_with_urllib(args, params):
    url = args.base_url.rstrip("/") + "/stat/v1/data?"
    fetched, offset = 0, 1
    while fetched < args.limit:
        page_params = dict(params, offset=offset, limit=min(args.page_size, args.limit - fetched))
        request = urllib.request.Request(url + urllib.parse.urlencode(page_params), headers={"Authorization": f"OAuth {args.token}"})
        with urllib.request.urlopen(request, timeout=60) as response:
            data = json.load(response)
        rows = [[d["name"] for d in row["dimensions"]] + row["metrics"] for row in data["data"]]
        yield rows
        fetched += len(rows)
        offset += len(rows)
        if not rows or offset > int(data["total_rows"]):
            break


def pages_with_requests(args, params):
    import requests

    session = requests.Session()
    session.headers["Authorization"] = f"OAuth {args.token}"
    url = args.base_url.rstrip("/") + "/stat/v1/data"
    fetched, offset = 0, 1
    while fetched < args.limit:
        page_params = dict(params, offset=offset, limit=min(args.page_size, args.limit - fetched))
        response = session.get(url, params=page_params, timeout=60)
        response.raise_for_status()
        data = response.json()
        rows = [[d["name"] for d in row["dimensions"]] + row["metrics"] for row in data["data"]]
        yield rows
        fetched += len(rows)
        offset += len(rows)
        if not rows or offset > int(data["total_rows"]):
            break


def pages_with_tapi(args, params):
    from tapi2 import generate_wrapper_from_adapter
    from tapi_yandex_metrika.tapi_yandex_metrika import YandexMetrikaStatsClientAdapter

    base = args.base_url.rstrip("/") + "/"

    class SimulatorAdapter(YandexMetrikaStatsClientAdapter):
        # The library's only knob for the host: its adapter's api root.
        def get_api_root(self, api_params, resource_name):
            return base

    client = generate_wrapper_from_adapter(SimulatorAdapter)(access_token=args.token)
    fetched, offset = 0, 1
    while fetched < args.limit:
        page_params = dict(params, offset=offset, limit=min(args.page_size, args.limit - fetched))
        report = client.stats().get(params=page_params)
        rows = list(report().values())  # [dimension names…, metric values…] per row (the library's transform)
        yield rows
        fetched += len(rows)
        offset += len(rows)
        if not rows or offset > int(report.data["total_rows"]):
            break


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--counter", type=int, required=True)
    parser.add_argument("--dimension", default="ym:s:searchPhrase")
    parser.add_argument("--column", default="search_phrase", help="CSV name of the dimension column")
    parser.add_argument("--date1", required=True)
    parser.add_argument("--date2", required=True)
    parser.add_argument("--limit", type=int, default=100_000)
    parser.add_argument("--page-size", type=int, default=20_000, help="rows per request (metrika: 20,000)")
    parser.add_argument("--client", choices=["tapi", "requests", "urllib"], default="tapi")
    parser.add_argument("--out", default="-")
    args = parser.parse_args()

    params = {
        "ids": str(args.counter),
        "metrics": ",".join(m[0] for m in METRICS),
        "dimensions": args.dimension,
        "date1": args.date1,
        "date2": args.date2,
        "accuracy": "full",
    }
    pages = {"tapi": pages_with_tapi, "requests": pages_with_requests, "urllib": pages_with_urllib}[args.client]
    units = [m[2] for m in METRICS]
    out = sys.stdout if args.out == "-" else open(args.out, "w", newline="", encoding="utf-8")
    with out:
        writer = csv.writer(LineFeedEnds(out), lineterminator="\r\n")
        writer.writerow([args.column] + [m[1] for m in METRICS])
        for rows in pages(args, params):
            for row in rows:
                writer.writerow([text(row[0])] + [normalize(v, u) for v, u in zip(row[1:], units)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
