#!/usr/bin/env python3
"""Drives `metrika mcp` with the official MCP Python SDK (PyPI `mcp`, 2.3.x): the reference client.

Reads one JSON document on stdin:

    {"command": ["/path/to/metrika", "mcp"],     # the server to spawn over stdio
     "env": {"METRIKA_API_URL": "...", ...},     # its whole environment
     "mode": "legacy" | "auto",                  # mcp.Client(mode=...)
     "steps": [                                  # run in order on one connection
         {"op": "list_tools"},
         {"op": "ping"},
         {"op": "call", "name": "get_report", "arguments": {...}, "progress": true},
         {"op": "calls", "calls": [{"name": ..., "arguments": {...}}, ...]}   # at once (pipelined)
     ]}

and prints one JSON document on stdout (exit 3, printing nothing, when the `mcp` package is missing):

    {"protocol_version": "...", "server_info": {...} | null,
     "results": [ {"op": ..., "result": {...wire result, camelCase...}, "progress": [...]}
                | {"op": ..., "error": {"code": -32602, "message": "..."}} ]}

Each result is the SDK's parsed model dumped back to wire JSON (by alias), so a test sees what the
client understood. Exit 0 when the connection worked (step errors are results); 1 otherwise, with
the reason on stderr. Tool cases are new steps in a test's list: nothing here needs to change.
"""

import json
import sys
import warnings
from importlib.metadata import version

try:
    import anyio

    from mcp import Client, MCPDeprecationWarning, MCPError, StdioServerParameters
except ImportError as missing:  # exit 3: the SDK is not installed (the test skips, naming scripts/setup)
    print(f"mcp_driver: {missing}", file=sys.stderr)
    sys.exit(3)

# `ping` on a 2026-07-28 connection is a step a test may take on purpose (the server answers -32601).
warnings.simplefilter("ignore", MCPDeprecationWarning)


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def run_step(client, step):
    op = step["op"]
    outcome = {"op": op}
    try:
        if op == "list_tools":
            outcome["result"] = dump(await client.list_tools())
        elif op == "ping":
            outcome["result"] = dump(await client.send_ping())
        elif op == "call":
            progress = []

            async def on_progress(done, total, message):
                progress.append({"progress": done, "total": total, "message": message})

            result = await client.call_tool(
                step["name"],
                step.get("arguments") or {},
                progress_callback=on_progress if step.get("progress") else None,
            )
            outcome["result"] = dump(result)
            if step.get("progress"):
                outcome["progress"] = progress
        elif op == "calls":
            answers = [None] * len(step["calls"])

            async def one(index, call):
                answers[index] = await run_step(client, {"op": "call", **call})

            async with anyio.create_task_group() as group:
                for index, call in enumerate(step["calls"]):
                    group.start_soon(one, index, call)
            outcome["results"] = answers
        else:
            raise ValueError(f"unknown op {op!r}")
    except MCPError as error:
        outcome["error"] = {"code": error.code, "message": error.error.message}
    return outcome


async def main():
    spec = json.load(sys.stdin)
    command = spec["command"]
    server = StdioServerParameters(command=command[0], args=command[1:], env=spec.get("env"))
    async with Client(server, mode=spec.get("mode", "auto"), read_timeout_seconds=60) as client:
        results = []
        for step in spec.get("steps", []):
            results.append(await run_step(client, step))
        info = client.server_info
        print(json.dumps({
            "sdk": version("mcp"),
            "protocol_version": client.protocol_version,
            "server_info": dump(info) if info is not None else None,
            "results": results,
        }, ensure_ascii=False))


if __name__ == "__main__":
    try:
        anyio.run(main)
    except Exception as error:  # the connection itself failed: say why, exit 1
        print(f"mcp_driver: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
