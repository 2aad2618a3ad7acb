#!/usr/bin/env python3
"""The answerability suite of `metrika mcp` (issue 39 item 9), driven by the official MCP Python SDK.

Each question of the fixture (Tests/EndToEndTests/Fixtures/mcp-questions.json) is an owner's question
with the tool calls a model would make and the facts its answer must hold. Clients hand a model one of
two views of a result, so every fact must be in each view on its own:
  - the content view (Claude.ai, most SDK-based agents): the text blocks, and each image as
    `[image MIME WxH]`;
  - the structured view (Claude Code, VS Code: only JSON.stringify(structuredContent) when a result has
    one): the structuredContent as compact JSON when present, else the content view.
A fact is a string the content view must hold; in the structured view it may appear as written, with
its digit groups joined ("31 229" → "31229"), or as a JSON number that rounds to it at the fact's own
decimals ("14.5%" ← 14.513, "2 960 897.77 ₽" ← 2960897.77; a sign and a unit — %, ₽, pp — dropped).
Where the JSON words it otherwise, a fact is an object {"text": …, "structured": …}, either side a
string or a list of alternatives (any one will do); a list as the whole fact is alternatives in both views.
This script starts `metrika mcp` once (over stdio, against the simulator the caller started with
Fixtures/answers at the fixture's "now"), runs each question's calls in order, checks its facts in
each view and counts what the model would read in each:

    tokens ≈ ASCII characters / 4 + other characters / 1.5     (Cyrillic costs more)

per view: the content view's text blocks (an image block as a model reads it, width × height / 750:
1600 × 800 → 1,707), the structured view's compact JSON (or its content view); "tokens" is both
together, what the results carry.

A question with "requires" {tool, argument, feature[, absent_while]} is skipped — loudly, listed in
the output — only when the server's tool schema lacks that argument (or the argument's description
still has the text `absent_while`, which says the feature is not there yet); otherwise it runs like
any other.

usage: mcp_answers.py --metrika BIN --env-json FILE [--questions FILE] [--json] [--only ID,ID]
  --env-json  a JSON object: the server's whole environment (METRIKA_API_URL, METRIKA_TOKEN, METRIKA_DB,
              METRIKA_NOW, …)
  --json      print one JSON document (per question: id, calls, tokens — together, tokens_content,
              tokens_structured —, missing facts per view, skipped) instead of the table

Exit 0 when every question that ran found all its facts, 2 when a fact is missing or a call failed,
3 (printing nothing on stdout) when the `mcp` package is missing, 1 when the connection failed.
"""

import argparse
import base64
import json
import os
import re
import struct
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_QUESTIONS = os.path.join(os.path.dirname(HERE), "Fixtures", "mcp-questions.json")

try:
    import anyio

    from mcp import Client, MCPDeprecationWarning, MCPError, StdioServerParameters
except ImportError as missing:  # exit 3: the SDK is not installed (the test skips, naming scripts/setup)
    print(f"mcp_answers: {missing}", file=sys.stderr)
    sys.exit(3)

warnings.simplefilter("ignore", MCPDeprecationWarning)


def estimate_tokens(text):
    """ASCII characters / 4 + other characters / 1.5 (issue 39's estimate)."""
    ascii_count = sum(1 for ch in text if ord(ch) < 128)
    return ascii_count / 4 + (len(text) - ascii_count) / 1.5


def png_size(data):
    """(width, height) of a PNG from its IHDR chunk, or None."""
    if len(data) >= 24 and data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    return None


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def views(result):
    """(content view, structured view, tokens of each) of one tools/call result (wire JSON): what a
    client that reads the text blocks hands the model, and what a client that reads only the
    structuredContent (when there is one) hands it."""
    parts, content_tokens = [], 0.0
    for block in result.get("content", []):
        if block.get("type") == "text":
            parts.append(block["text"])
            content_tokens += estimate_tokens(block["text"])
        elif block.get("type") == "image":
            size = png_size(base64.b64decode(block.get("data", "")))
            content_tokens += (size[0] * size[1] / 750) if size else 1600
            parts.append(f"[image {block.get('mimeType')} {size[0]}x{size[1]}]" if size else "[image]")
    content = "\n".join(parts)
    if "structuredContent" in result:
        structured = json.dumps(result["structuredContent"], ensure_ascii=False, separators=(",", ":"))
        return content, structured, content_tokens, estimate_tokens(structured)
    return content, content, content_tokens, content_tokens


GROUPED = re.compile(r"(?<=\d)[ \u00a0\u202f](?=\d{3}(?!\d))")
NUMBER_FACT = re.compile(r"^[+\-−~]?(\d[\d \u00a0\u202f]*(?:\.(\d+))?)\s*(?:%|₽|pp|\$|€)?$")
JSON_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def structured_forms(fact):
    """The mechanical structured forms of a text fact: as written, and with its digit groups joined."""
    forms = [fact]
    joined = GROUPED.sub("", fact)
    if joined != fact:
        forms.append(joined)
    return forms


def as_number(fact):
    """(value, decimals) when the fact is one number with at most a sign and a unit, else None."""
    match = NUMBER_FACT.match(fact.strip())
    if not match:
        return None
    digits = GROUPED.sub("", match.group(1)).replace(" ", "")
    return float(digits), len(match.group(2) or "")


def holds_number(view, number):
    """Whether a JSON number in the view rounds to the fact's number at its decimals (its sign aside)."""
    value, decimals = number
    for token in JSON_NUMBER.findall(view):
        seen = abs(float(token))
        if abs(seen - value) <= 0.5 * 10 ** -decimals + 1e-9 and round(seen, decimals) == value:
            return True
    return False


def alternatives(side):
    return side if isinstance(side, list) else [side]


def missing_in(fact, content, structured):
    """The views ("content", "structured") that lack the fact."""
    if isinstance(fact, dict):
        texts, structured_given = alternatives(fact["text"]), alternatives(fact["structured"])
    else:
        texts, structured_given = alternatives(fact), None
    missing = []
    if not any(text in content for text in texts):
        missing.append("content")
    if structured_given is not None:
        found = any(form in structured for form in structured_given)
    else:
        found = any(form in structured for text in texts for form in structured_forms(text)) or \
            any(holds_number(structured, number) for number in map(as_number, texts) if number)
    if not found:
        missing.append("structured")
    return missing


def unmet_requirement(requires, tools):
    """Why a question cannot run on this server (None when it can)."""
    if not requires:
        return None
    tool = tools.get(requires["tool"])
    properties = ((tool or {}).get("inputSchema") or {}).get("properties") or {}
    argument = properties.get(requires["argument"])
    if argument is None:
        return f"{requires['tool']} has no argument {requires['argument']}"
    absent_while = requires.get("absent_while")
    if absent_while and absent_while in (argument.get("description") or ""):
        return f"{requires['tool']}.{requires['argument']} still says {absent_while!r}"
    return None


async def run_question(client, question, tools):
    outcome = {"id": question["id"], "question": question["question"], "calls": len(question["calls"]),
               "tokens": 0, "tokens_content": 0, "tokens_structured": 0, "missing": [], "errors": [], "skipped": None}
    why = unmet_requirement(question.get("requires"), tools)
    if why:
        outcome["skipped"] = f"needs {question['requires']['feature']}: {why}"
        return outcome
    contents, structureds = [], []
    for call in question["calls"]:
        try:
            result = dump(await client.call_tool(call["tool"], call.get("arguments") or {}))
        except MCPError as error:
            outcome["errors"].append(f"{call['tool']}: JSON-RPC {error.code} {error.error.message}")
            continue
        content, structured, content_tokens, structured_tokens = views(result)
        outcome["tokens_content"] += content_tokens
        outcome["tokens_structured"] += structured_tokens
        if "structuredContent" in result:
            outcome["tokens"] += content_tokens + structured_tokens
        else:
            outcome["tokens"] += content_tokens
        if result.get("isError"):
            outcome["errors"].append(f"{call['tool']}: {content.strip()[:300]}")
        contents.append(content)
        structureds.append(structured)
    content, structured = "\n".join(contents), "\n".join(structureds)
    for fact in question["facts"]:
        for view in missing_in(fact, content, structured):
            outcome["missing"].append(f"{view}: {fact if isinstance(fact, str) else json.dumps(fact, ensure_ascii=False)}")
    outcome["tokens"] = round(outcome["tokens"])
    outcome["tokens_content"] = round(outcome["tokens_content"])
    outcome["tokens_structured"] = round(outcome["tokens_structured"])
    if os.environ.get("MCP_ANSWERS_SHOW"):
        print(f"===== {question['id']} (content view)\n{content}\n----- (structured view)\n{structured}\n", file=sys.stderr)
    return outcome


async def main(options):
    with open(options.questions, encoding="utf-8") as f:
        fixture = json.load(f)
    with open(options.env_json, encoding="utf-8") as f:
        env = json.load(f)
    questions = fixture["questions"]
    if options.only:
        wanted = set(options.only.split(","))
        questions = [q for q in questions if q["id"] in wanted]
    server = StdioServerParameters(command=options.metrika, args=["mcp"], env=env)
    async with Client(server, mode="legacy", read_timeout_seconds=120) as client:
        tools = {tool["name"]: tool for tool in dump(await client.list_tools())["tools"]}
        return [await run_question(client, question, tools) for question in questions]


def table(outcomes):
    lines = [f"{'question':<34} {'calls':>5} {'tokens':>7} {'content':>7} {'struct.':>7}  result"]
    for o in outcomes:
        if o["skipped"]:
            result = "SKIPPED — " + o["skipped"]
        elif o["missing"] or o["errors"]:
            result = "MISSING " + "; ".join([repr(m) for m in o["missing"]] + o["errors"])
        else:
            result = "ok"
        lines.append(f"{o['id']:<34} {o['calls']:>5} {o['tokens']:>7} {o['tokens_content']:>7} {o['tokens_structured']:>7}  {result}")
    ran = [o for o in outcomes if not o["skipped"]]
    if ran:
        median = lambda v: (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2
        calls = sorted(o["calls"] for o in ran)
        figures = []
        for key, name in (("tokens", "tokens"), ("tokens_content", "content view"), ("tokens_structured", "structured view")):
            values = sorted(o[key] for o in ran)
            figures.append(f"{name} median {median(values):,.0f}, max {values[-1]:,}")
        lines.append(f"{len(ran)} questions ran: {'; '.join(figures)}; calls median {median(calls):g}, max {calls[-1]}")
    skipped = [o["id"] for o in outcomes if o["skipped"]]
    if skipped:
        lines.append(f"SKIPPED ({len(skipped)}): {', '.join(skipped)} — the server lacks what they require (see above)")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--metrika", required=True)
    parser.add_argument("--env-json", required=True)
    parser.add_argument("--questions", default=DEFAULT_QUESTIONS)
    parser.add_argument("--only")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    try:
        outcomes = anyio.run(main, options)
    except Exception as error:  # the connection itself failed: say why, exit 1
        print(f"mcp_answers: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"questions": outcomes}, ensure_ascii=False) if options.json else table(outcomes))
    failed = any((o["missing"] or o["errors"]) and not o["skipped"] for o in outcomes)
    sys.exit(2 if failed else 0)
