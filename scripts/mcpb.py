#!/usr/bin/env python3
"""Writes metrika's MCPB bundle (Claude Desktop extension): python3 scripts/mcpb.py BINARY VERSION OUT.

Called by `scripts/install --mcpb`. The manifest (MCPB manifest_version 0.3) lists the tools the
binary's own `metrika mcp` answers to tools/list, so the bundle cannot list a tool the server lacks.
The zip holds manifest.json and server/metrika (mode 755). Nothing here sees a token: the token is
a user_config field the desktop app asks for and passes as METRIKA_TOKEN.
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile


def server_tools(binary):
    """The tools' names and descriptions, asked of `metrika mcp` over stdio in a scratch HOME."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpb", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with tempfile.TemporaryDirectory() as home:
        environment = {"PATH": "/usr/bin:/bin", "HOME": home}
        answer = subprocess.run([binary, "mcp"], input="".join(json.dumps(r) + "\n" for r in requests),
                                capture_output=True, text=True, env=environment, timeout=60)
    for line in answer.stdout.splitlines():
        message = json.loads(line)
        if message.get("id") == 2:
            return [{"name": t["name"], "description": t.get("description", "").split(". ")[0].rstrip(".") + "."}
                    for t in message["result"]["tools"]]
    sys.exit("metrika mcp did not answer tools/list: " + answer.stderr.strip())


def manifest(version, tools):
    platform = {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform)
    return {
        "manifest_version": "0.3",
        "name": "metrika",
        "display_name": "metrika — Yandex.Metrika",
        "version": version,
        "description": "Yandex.Metrika statistics for an assistant: reports, comparisons, charts, goals and anomaly checks, read-only.",
        "author": {"name": "metrika"},
        "server": {
            "type": "binary",
            "entry_point": "server/metrika",
            "mcp_config": {
                "command": "${__dirname}/server/metrika",
                "args": ["mcp"],
                "env": {"METRIKA_TOKEN": "${user_config.metrika_token}"},
            },
        },
        "tools": tools,
        "user_config": {
            "metrika_token": {
                "type": "string",
                "title": "Yandex OAuth token",
                "description": "An OAuth token with the metrika:read scope (docs/auth.md). Leave empty to use the token of `metrika login` on this computer.",
                "sensitive": True,
                "required": False,
            },
        },
        "compatibility": {"platforms": [platform]},
        "keywords": ["yandex", "metrika", "analytics", "statistics"],
    }


def main():
    binary, version, out = sys.argv[1:4]
    document = manifest(version, server_tools(binary))
    scratch = out + ".part"
    with zipfile.ZipFile(scratch, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("manifest.json", json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        entry = zipfile.ZipInfo("server/metrika")
        entry.external_attr = (0o100755 & 0xFFFF) << 16
        entry.compress_type = zipfile.ZIP_DEFLATED
        with open(binary, "rb") as file:
            bundle.writestr(entry, file.read())
    os.replace(scratch, out)


if __name__ == "__main__":
    main()
