#!/usr/bin/env python3
"""Independent reader and schema check of `metrika report --json` (docs/json.md, version 1).

Parses the file named on the command line with Python's json module (duplicate keys, NaN and
Infinity rejected), checks the document against the documented schema, and prints a flat summary
as JSON (ASCII-escaped, keys sorted) for the Swift tests to compare with hand-computed values:

  {"version": 1, "grouping": "day" | null, "period": [from, to],
   "query": {key: compact JSON text of the value},
   "columns": [name, ...],
   "rows": [["key=value", ...], ...],          # every member of every row, in document order
   "counters": [{"counter_id", "name", "site", "time_zone", "sampled", "sample_share",
                 "totals": ["key=value", ...], "missing_days": [...],
                 "previous": null | ["from=…", "to=…", "totals.key=value", …, "change.key=value", …],
                 "other": null | ["rows_total=N", "rows=N", "key=value", …]}],
   (with --compare, rows end in "previous.key=value", …, "change.key=value", … entries)
   "sampled": bool}

A value is written as Python reads it: strings as is, null as `null`, booleans as `true`/`false`,
integers as digits, other numbers as repr(float) (the shortest round-trip decimal).
Exits 1 with a message on stderr at the first violation.
"""
import json
import re
import sys

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TOP_KEYS = ["version", "query", "period", "grouping", "columns", "rows", "counters", "sampled"]
UNITS = {"count", "percent", "seconds", "pages_per_visit", "number", "money"}
CURRENCY = re.compile(r"^[A-Z]{3}$")
KINDS = {"counter", "period_start", "period_end", "dimension", "metric"}


class Invalid(Exception):
    pass


def need(condition, message):
    if not condition:
        raise Invalid(message)


def pairs(items):
    keys = [key for key, _ in items]
    need(len(keys) == len(set(keys)), "duplicate keys in an object: %r" % keys)
    return dict(items)


def ordered(items):
    pairs(items)
    return items


def reject_constant(name):
    raise Invalid("non-standard JSON constant %s" % name)


def text(value):
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check(raw):
    # Parse twice: once keeping member order (to check it), once as dicts.
    document = json.loads(raw, object_pairs_hook=ordered, parse_constant=reject_constant)
    need(isinstance(document, list) and [key for key, _ in document] == TOP_KEYS,
         "top-level members must be exactly %s in that order" % TOP_KEYS)
    top = dict(document)

    need(top["version"] == 1 and isinstance(top["version"], int), "version must be the integer 1")
    query = top["query"]
    need(isinstance(query, list), "query must be an object")
    period = dict(top["period"])
    need(list(period) == ["from", "to"], "period must be {from, to}")
    need(all(isinstance(period[k], str) and DATE.match(period[k]) for k in period), "period dates must be YYYY-MM-DD")
    need(period["from"] <= period["to"], "period is reversed")
    grouping = top["grouping"]
    need(grouping in (None, "day", "week", "month"), "grouping must be null, day, week or month")

    columns = [dict(column) for column in top["columns"]]
    names = [column.get("name") for column in columns]
    need(len(names) == len(set(names)), "column names must be unique")
    for column in columns:
        need(isinstance(column.get("name"), str) and column.get("kind") in KINDS, "bad column %r" % column)
        if column["kind"] == "metric":
            need(column.get("unit") in UNITS, "metric column %s has unit %r" % (column["name"], column.get("unit")))
            need(str(column.get("api_name", "")).startswith("ym:"), "metric column %s lacks api_name" % column["name"])
            if column["unit"] == "money" and "<currency>" not in column["api_name"]:
                need(CURRENCY.match(str(column.get("currency", ""))), "money column %s lacks its currency" % column["name"])
                need(column["name"].endswith("_" + column["currency"].lower()), "money column %s does not end in its currency" % column["name"])
                need(column["currency"] in column["api_name"], "money column %s: currency %s is not the api_name's" % (column["name"], column["currency"]))
            else:
                need("currency" not in column, "column %s is no money column but has a currency" % column["name"])
        if column["kind"] == "period_start":
            need(column.get("grouping") == grouping, "date column's grouping differs from grouping")
    metric_names = [c["name"] for c in columns if c["kind"] == "metric"]
    dimension_names = [c["name"] for c in columns if c["kind"] == "dimension"]
    multiple = "counter_id" in names
    need(not multiple or names[0] == "counter_id", "counter_id must be the first column")
    need((grouping is None) == ("date" not in names), "time series (and only they) have a date column")

    counters = [dict(counter) for counter in top["counters"]]
    ids = [counter.get("counter_id") for counter in counters]
    need(all(isinstance(i, int) and i > 0 for i in ids), "counter ids must be positive integers")
    need(multiple == (len(counters) > 1), "counter_id column if and only if several counters")

    # --compare (docs/json.md): rows and counters gain `previous` and `change` members.
    compare = dict(query).get("compare") is True
    rows = []
    for index, members in enumerate(top["rows"]):
        need(isinstance(members, list), "row %d is not an object" % index)
        keys = [key for key, _ in members]
        row = dict(members)
        expected = []
        for name in names:
            expected.append(name)
            if name in dimension_names and name + "_id" in row:
                expected.append(name + "_id")
        if grouping is not None:
            expected.append("incomplete")
        if compare:
            expected += ["previous", "change"]
        need(keys == expected, "row %d has members %s, expected %s" % (index, keys, expected))
        for name in metric_names:
            need(row[name] is None or is_number(row[name]), "row %d: %s is not a number or null" % (index, name))
        for name in dimension_names:
            need(row[name] is None or isinstance(row[name], str), "row %d: %s is not a string or null" % (index, name))
        if grouping is not None:
            need(isinstance(row["incomplete"], bool), "row %d: incomplete is not a boolean" % index)
            need(isinstance(row["date"], str) and DATE.match(row["date"]), "row %d: bad date" % index)
            need(period["from"] <= row["date"] <= period["to"], "row %d: date outside the period" % index)
            if "date_end" in row:
                need(row["date"] <= row["date_end"] <= period["to"], "row %d: bad date_end" % index)
        if multiple:
            need(row["counter_id"] in ids, "row %d: counter_id %r is not among the counters" % (index, row["counter_id"]))
        if compare:
            previous = row["previous"]
            dates = ([] if grouping is None else ["date"] + (["date_end"] if grouping != "day" else []))
            need([key for key, _ in previous] == dates + metric_names, "row %d: previous must list %s" % (index, dates + metric_names))
            need([key for key, _ in row["change"]] == metric_names, "row %d: change must list the metrics" % index)
            for key, value in previous + row["change"]:
                if key in metric_names:
                    need(value is None or is_number(value), "row %d: previous/change %s is not a number or null" % (index, key))
                else:
                    need(value is None or DATE.match(value), "row %d: previous %s is not a date" % (index, key))
        rows.append(["%s=%s" % (key, text(value)) for key, value in members if key not in ("previous", "change")]
                    + ["%s.%s=%s" % (part, key, text(value)) for part in ("previous", "change") if part in row for key, value in row[part]])

    summaries = []
    for counter in counters:
        need(set(counter) >= {"counter_id", "name", "site", "time_zone", "sampled", "totals", "missing_days"},
             "counter %r lacks members" % counter.get("counter_id"))
        need(isinstance(counter["sampled"], bool), "sampled must be a boolean")
        share = counter.get("sample_share")
        if counter["sampled"]:
            need(is_number(share) and 0 < share <= 1, "a sampled counter needs sample_share in (0, 1]")
        else:
            need("sample_share" not in counter, "sample_share only when sampled")
        totals = counter["totals"]
        need([key for key, _ in totals] == metric_names, "totals must list the metric columns in order")
        for key, value in totals:
            need(value is None or is_number(value), "total %s is not a number or null" % key)
        need(all(isinstance(d, str) and DATE.match(d) for d in counter["missing_days"]), "bad missing_days")
        # Only when a metric alone is missing (docs/json.md): metric column → its days, none of them
        # a day missing whole.
        summary_missing = None
        if "missing" in counter:
            need(isinstance(counter["missing"], list) and counter["missing"], "missing must be a non-empty object")
            for key, days in counter["missing"]:
                need(key in metric_names, "missing names %r, not a metric column" % key)
                need(isinstance(days, list) and days and all(isinstance(d, str) and DATE.match(d) for d in days), "missing %s: bad days" % key)
                need(not set(days) & set(counter["missing_days"]), "missing %s repeats a day of missing_days" % key)
            summary_missing = ["%s=%s" % (key, ",".join(days)) for key, days in counter["missing"]]
        summary_previous = None
        if compare:
            previous = dict(counter["previous"])
            need(list(previous) == ["from", "to", "totals", "change"], "counter previous must be {from, to, totals, change}")
            need(all(isinstance(previous[k], str) and DATE.match(previous[k]) for k in ("from", "to"))
                 and previous["from"] <= previous["to"], "counter previous period must be {from, to} dates")
            need([key for key, _ in previous["totals"]] == metric_names, "previous totals must list the metric columns")
            need([key for key, _ in previous["change"]] == metric_names, "previous change must list the metric columns")
            summary_previous = ["from=" + previous["from"], "to=" + previous["to"]] + \
                ["%s.%s=%s" % (part, key, text(value)) for part in ("totals", "change") for key, value in previous[part]]
        else:
            need("previous" not in counter, "previous only with --compare")
        # A report cut by --limit (docs/json.md): rows_total and other {rows, values} come together.
        summary_other = None
        need(("rows_total" in counter) == ("other" in counter), "rows_total and other come together")
        if "other" in counter:
            total_rows = counter["rows_total"]
            other = dict(counter["other"])
            need(list(other) == ["rows", "values"], "other must be {rows, values}")
            need(isinstance(total_rows, int) and isinstance(other["rows"], int) and 0 < other["rows"] < total_rows,
                 "other.rows must be an integer between 0 and rows_total")
            need([key for key, _ in other["values"]] == metric_names, "other values must list the metric columns")
            for key, value in other["values"]:
                need(value is None or is_number(value), "other value %s is not a number or null" % key)
            summary_other = ["rows_total=%d" % total_rows, "rows=%d" % other["rows"]] + \
                ["%s=%s" % (key, text(value)) for key, value in other["values"]]
        summaries.append({
            "other": summary_other,
            "previous": summary_previous,
            "counter_id": counter["counter_id"], "name": counter["name"], "site": counter["site"],
            "time_zone": counter["time_zone"], "sampled": counter["sampled"],
            "sample_share": None if share is None else text(share),
            "totals": ["%s=%s" % (key, text(value)) for key, value in totals],
            "missing_days": counter["missing_days"],
            "missing": summary_missing,
        })
    need(isinstance(top["sampled"], bool), "sampled must be a boolean")
    need(top["sampled"] == any(c["sampled"] for c in counters), "top-level sampled must be true iff a counter is sampled")

    return {
        "version": top["version"],
        "grouping": grouping,
        "period": [period["from"], period["to"]],
        "query": {key: json.dumps(value_of(value), ensure_ascii=True, separators=(",", ":")) for key, value in query},
        "columns": names,
        "rows": rows,
        "counters": summaries,
        "sampled": top["sampled"],
    }


def value_of(value):
    """Turns the order-keeping pair lists back into plain JSON values."""
    if isinstance(value, list) and value and all(isinstance(item, tuple) for item in value):
        return {key: value_of(item) for key, item in value}
    if isinstance(value, list):
        return [value_of(item) for item in value]
    return value


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        raw = handle.read()
    try:
        summary = check(raw)
    except (Invalid, ValueError) as error:
        sys.stderr.write("invalid report JSON: %s\n" % error)
        return 1
    sys.stdout.write(json.dumps(summary, ensure_ascii=True, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
