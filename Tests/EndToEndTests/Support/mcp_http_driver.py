#!/usr/bin/env python3
"""Drives `metrika mcp --listen` over HTTP: the official MCP Python SDK (PyPI `mcp` 2.3.x) as the
Streamable HTTP client with a bearer header, raw requests for every refusal, and a scripted OAuth
client (metadata, a loopback client ID metadata document, the approval code, PKCE S256, token,
refresh, rotation, revocation).

Reads one JSON document on stdin:

    {"metrika": "/path/to/metrika", "env": {...},              # the binary and its whole environment
     "report": {...get_report arguments...},                   # a question asked over HTTP and stdio
     "allowed": 1001, "other": 1002}                            # bob's one counter, and another

starts the server itself (`mcp --listen 127.0.0.1:0`), prints one JSON document of observations on
stdout (the Swift test judges them), and stops the server with SIGTERM. Exit 3 (printing nothing)
when the `mcp` package is missing; 1 with the reason on stderr when the scenario itself broke.
"""

import base64
import hashlib
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

try:
    import anyio
    import httpx2

    from mcp import Client, MCPError, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client
except ImportError as missing:  # exit 3: the SDK is not installed (the test skips, naming scripts/setup)
    print(f"mcp_http_driver: {missing}", file=sys.stderr)
    sys.exit(3)


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


class Scenario:
    def __init__(self, spec):
        self.spec = spec
        self.metrika = spec["metrika"]
        self.env = spec["env"]
        self.observed = {}
        self.server = None
        self.stderr_lines = []

    # ---- the binary

    def cli(self, *arguments):
        run = subprocess.run(
            [self.metrika, *arguments], env=self.env, capture_output=True, text=True, timeout=60
        )
        if run.returncode != 0:
            raise RuntimeError(f"metrika {' '.join(arguments)} exited {run.returncode}: {run.stderr}")
        return run.stdout

    def start(self, port=0):
        self.server = subprocess.Popen(
            [self.metrika, "mcp", "--listen", f"127.0.0.1:{port}"],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.server.stderr.readline()
            if not line:
                break
            self.stderr_lines.append(line)
            found = re.search(r"serving (http://127\.0\.0\.1:\d+)/mcp", line)
            if found:
                self.base = found.group(1)
                threading.Thread(target=self.drain, daemon=True).start()
                return
        raise RuntimeError("the server did not say where it serves: " + "".join(self.stderr_lines))

    def drain(self):
        for line in self.server.stderr:
            self.stderr_lines.append(line)

    def stop(self):
        if self.server is None:
            return
        self.server.send_signal(signal.SIGTERM)
        try:
            self.observed["exit_status"] = self.server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.observed["exit_status"] = "hung"
        time.sleep(0.1)
        self.observed["stderr"] = "".join(self.stderr_lines)

    # ---- the SDK

    async def sdk(self, token, steps, mode="legacy"):
        """Runs steps on one SDK connection; a step's failure is its result."""
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            transport = streamable_http_client(self.base + "/mcp", http_client=http)
            async with Client(transport, mode=mode, read_timeout_seconds=60) as client:
                results = []
                for step in steps:
                    results.append(await self.step(client, step))
                return {"protocol_version": client.protocol_version, "results": results}

    async def step(self, client, step):
        outcome = {}
        try:
            if step["op"] == "list_tools":
                outcome["result"] = dump(await client.list_tools())
            elif step["op"] == "call":
                progress = []

                async def on_progress(done, total, message):
                    progress.append({"progress": done, "total": total, "message": message})

                started = time.monotonic()
                result = await client.call_tool(
                    step["name"], step.get("arguments") or {},
                    progress_callback=on_progress if step.get("progress") else None,
                )
                outcome["seconds"] = time.monotonic() - started
                outcome["result"] = dump(result)
                outcome["progress"] = progress
            elif step["op"] == "run":
                self.cli(*step["arguments"])
                outcome["result"] = {}
        except MCPError as error:
            outcome["error"] = {"code": error.code, "message": error.error.message}
        except Exception as error:  # a transport failure of this step
            outcome["error"] = {"code": None, "message": f"{type(error).__name__}: {error}"}
        return outcome

    async def stdio(self, steps):
        server = StdioServerParameters(command=self.metrika, args=["mcp"], env=self.env)
        async with Client(server, mode="legacy", read_timeout_seconds=60) as client:
            return [await self.step(client, step) for step in steps]

    # ---- raw HTTP

    def raw(self, method, path, headers=None, body=None, data=None):
        with httpx2.Client(timeout=30, follow_redirects=False) as http:
            response = http.request(method, self.base + path, headers=headers or {}, json=body, data=data)
            return {
                "status": response.status_code,
                "headers": {k.lower(): v for k, v in response.headers.items()},
                "body": response.text,
            }

    def rpc(self, token, body, accept="application/json, text/event-stream", extra=None):
        headers = {"Content-Type": "application/json", "Accept": accept, "MCP-Protocol-Version": "2025-11-25"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        headers.update(extra or {})
        return self.raw("POST", "/mcp", headers=headers, body=body)

    # ---- the scenario

    async def run(self):
        spec = self.spec
        alice = self.cli("mcp", "token", "add", "alice").strip()
        bob = self.cli("mcp", "token", "add", "bob", "--counters", str(spec["allowed"])).strip()
        self.observed["token_add_lines"] = [alice.count("\n") + 1, bob.count("\n") + 1]
        self.observed["tokens"] = [alice, bob]
        self.observed["list"] = json.loads(self.cli("mcp", "token", "list", "--json"))
        self.start()
        report = {"op": "call", "name": "get_report", "arguments": spec["report"]}
        self.observed["legacy"] = await self.sdk(alice, [{"op": "list_tools"}, report])
        self.observed["stateless"] = await self.sdk(alice, [report], mode="auto")
        self.observed["stdio"] = await self.stdio([report])
        # A member limited to one counter.
        self.observed["bob"] = await self.sdk(bob, [
            {"op": "call", "name": "list_counters", "arguments": {}},
            {"op": "call", "name": "get_report",
             "arguments": dict(spec["report"], counter_ids=[spec["other"]])},
        ])
        # Progress over server-sent events, and a slow call beside another member's.
        self.observed["progress"] = await self.sdk(alice, [
            {"op": "call", "name": "check_alerts", "arguments": {"counter_ids": [spec["allowed"]]},
             "progress": True},
        ])
        self.observed["concurrent"] = await self.concurrent(alice, bob)
        self.observed["cancel"] = await self.cancelling(alice, bob)
        # Refusals.
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "raw", "version": "1"}}}
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
        self.observed["no_token"] = self.rpc(None, initialize)
        self.observed["unknown_token"] = self.rpc("mtk_not-a-member", initialize)
        self.observed["bad_origin"] = self.rpc(alice, initialize, extra={"Origin": "https://evil.example"})
        self.observed["good_origin"] = self.rpc(alice, initialize, extra={"Origin": self.base})
        self.observed["get"] = self.raw("GET", "/mcp", headers={"Authorization": f"Bearer {alice}"})
        self.observed["delete"] = self.raw("DELETE", "/mcp", headers={"Authorization": f"Bearer {alice}"})
        self.observed["put"] = self.raw("PUT", "/mcp", headers={"Authorization": f"Bearer {alice}"})
        self.observed["bad_version"] = self.rpc(alice, listing, extra={"MCP-Protocol-Version": "1999-01-01"})
        self.observed["sse_only"] = self.rpc(alice, listing, accept="text/event-stream")
        self.observed["json_only"] = self.rpc(alice, listing, accept="application/json")
        modern = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}
        self.observed["modern_mismatch"] = self.rpc(
            alice, modern, extra={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"})
        self.observed["modern_ok"] = self.rpc(
            alice, modern, extra={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
        self.observed["too_large"] = self.raw(
            "POST", "/mcp", headers={"Authorization": f"Bearer {alice}", "Content-Type": "application/json",
                                     "Accept": "application/json"}, data=b"{" + b" " * (1 << 20 + 1) + b"}")
        await self.oauth()
        # Revoking a member mid-session: the next call of the same connection is refused.
        self.observed["revoked"] = await self.sdk(bob, [
            {"op": "call", "name": "list_metrics", "arguments": {}},
            {"op": "run", "arguments": ["mcp", "token", "revoke", "bob"]},
            {"op": "call", "name": "list_metrics", "arguments": {}},
        ])
        self.observed["revoked_raw"] = self.rpc(bob, listing)

    async def concurrent(self, alice, bob):
        """alice's call is slow (the simulator delays its API request 2 s); bob's, at the same time,
        needs no API request and must not wait for it."""
        answers = {}

        async def slow():
            answers["slow"] = await self.sdk(alice, [{"op": "call", "name": "list_counters", "arguments": {}}])

        async def quick():
            await anyio.sleep(0.5)
            answers["quick"] = await self.sdk(bob, [{"op": "call", "name": "list_metrics", "arguments": {}}])

        fault = {"kind": "delay", "delay_ms": 2000, "path_prefix": "/management"}
        with httpx2.Client() as http:
            http.post(self.spec["api"] + "/__sim/faults", json=fault)
        async with anyio.create_task_group() as group:
            group.start_soon(slow)
            group.start_soon(quick)
        return answers

    async def cancelling(self, alice, bob):
        """Two slow calls of alice's (the simulator delays both API requests 2 s), raw POSTs with ids 41
        and 42: bob's cancel naming 41 is accepted and changes nothing; alice's own cancel of 42 ends it."""
        fault = {"kind": "delay", "delay_ms": 2000, "path_prefix": "/management", "count": 2}
        with httpx2.Client() as http:
            http.post(self.spec["api"] + "/__sim/faults", json=fault)
        answers = {}

        def call(key, request_id):
            started = time.monotonic()
            body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                    "params": {"name": "list_counters", "arguments": {}}}
            answers[key] = self.rpc(alice, body, accept="application/json")
            answers[key]["seconds"] = time.monotonic() - started

        def cancel(token, request_id):
            return self.rpc(token, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                    "params": {"requestId": request_id, "reason": "no longer needed"}})

        async with anyio.create_task_group() as group:
            group.start_soon(anyio.to_thread.run_sync, call, "kept", 41)
            group.start_soon(anyio.to_thread.run_sync, call, "cancelled", 42)
            await anyio.sleep(0.3)
            answers["foreign_cancel"] = await anyio.to_thread.run_sync(cancel, bob, 41)
            answers["own_cancel"] = await anyio.to_thread.run_sync(cancel, alice, 42)
        return answers

    async def oauth(self):
        observed = self.observed
        observed["resource_metadata"] = json.loads(self.raw("GET", "/.well-known/oauth-protected-resource")["body"])
        observed["server_metadata"] = json.loads(self.raw("GET", "/.well-known/oauth-authorization-server")["body"])
        # The client's metadata document, served on loopback.
        document = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = json.dumps(document).encode()
                self.send_response(200 if self.path == "/client.json" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        cimd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=cimd.serve_forever, daemon=True).start()
        try:
            client_id = f"http://127.0.0.1:{cimd.server_port}/client.json"
            redirect = f"http://127.0.0.1:{cimd.server_port}/callback"
            document.update({"client_id": client_id, "client_name": "Scripted Assistant",
                             "redirect_uris": [redirect]})
            resource = observed["resource_metadata"]["resource"]

            def pkce():
                verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                return verifier, challenge

            def authorize(challenge, state):
                query = urllib.parse.urlencode({
                    "response_type": "code", "client_id": client_id, "redirect_uri": redirect, "state": state,
                    "code_challenge": challenge, "code_challenge_method": "S256", "resource": resource})
                page = self.raw("GET", "/authorize?" + query)
                found = re.search(r'name="authorization" value="([^"]+)"', page["body"])
                return page, found.group(1) if found else None

            def approve(authorization, code):
                return self.raw("POST", "/authorize", data={"authorization": authorization, "approval_code": code})

            def token(fields):
                answer = self.raw("POST", "/token", data=fields)
                answer["json"] = json.loads(answer["body"])
                return answer

            def code_of(location):
                return urllib.parse.parse_qs(urllib.parse.urlparse(location).query)

            approval = self.cli("mcp", "token", "add", "carol", "--oauth", "--counters", str(self.spec["allowed"]))
            observed["approval_lines"] = approval.count("\n")
            approval = approval.strip()
            verifier, challenge = pkce()
            page, authorization = authorize(challenge, "s1")
            observed["authorize_page"] = page
            observed["wrong_code"] = approve(authorization, "0000-0000-0000")
            granted = approve(authorization, approval)
            observed["granted"] = granted
            query = code_of(granted["headers"].get("location", ""))
            code = query.get("code", [""])[0]
            observed["granted_state"] = query.get("state", [""])[0]
            base = {"grant_type": "authorization_code", "client_id": client_id, "redirect_uri": redirect,
                    "resource": resource}
            observed["wrong_verifier"] = token(dict(base, code=code, code_verifier=verifier[::-1]))
            observed["reused_code"] = token(dict(base, code=code, code_verifier=verifier))
            # A second authorization (a new approval code), through to the tokens.
            approval = self.cli("mcp", "token", "add", "carol", "--oauth").strip()
            verifier, challenge = pkce()
            page, authorization = authorize(challenge, "s2")
            granted = approve(authorization, approval)
            code = code_of(granted["headers"].get("location", "")).get("code", [""])[0]
            issued = token(dict(base, code=code, code_verifier=verifier))
            observed["issued"] = issued
            access = issued["json"].get("access_token", "")
            refresh = issued["json"].get("refresh_token", "")
            observed["oauth_session"] = await self.sdk(access, [{"op": "call", "name": "list_counters",
                                                                 "arguments": {}}])
            renewed = token({"grant_type": "refresh_token", "refresh_token": refresh, "client_id": client_id,
                             "resource": resource})
            observed["refreshed"] = renewed
            observed["old_refresh"] = token({"grant_type": "refresh_token", "refresh_token": refresh,
                                             "client_id": client_id})
            observed["renewed_session"] = self.rpc(renewed["json"].get("access_token", ""), {
                "jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}})
            # A restarted server (same address) still knows the access token: no refresh needed.
            self.stop()
            observed["first_exit_status"] = observed.pop("exit_status", None)
            self.start(port=int(self.base.rsplit(":", 1)[1]))
            observed["after_restart"] = self.rpc(renewed["json"].get("access_token", ""), {
                "jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {}})
            # Five wrong codes end an authorization: the right code no longer helps.
            approval = self.cli("mcp", "token", "add", "carol", "--oauth").strip()
            verifier, challenge = pkce()
            page, authorization = authorize(challenge, "s3")
            observed["five_wrong"] = [approve(authorization, f"1111-1111-111{i}")["status"] for i in range(5)]
            observed["after_five"] = approve(authorization, approval)
            # Revoking carol ends her access and refresh tokens at once.
            self.cli("mcp", "token", "revoke", "carol")
            observed["revoked_access"] = self.rpc(renewed["json"].get("access_token", ""), {
                "jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {}})
            observed["revoked_refresh"] = token({"grant_type": "refresh_token",
                                                 "refresh_token": renewed["json"].get("refresh_token", ""),
                                                 "client_id": client_id})
            # A client whose document names another client_id is refused.
            document["client_id"] = "http://127.0.0.1:1/other.json"
            observed["foreign_document"] = authorize(pkce()[1], "s4")[0]
        finally:
            cimd.shutdown()


async def main():
    scenario = Scenario(json.load(sys.stdin))
    try:
        await scenario.run()
    finally:
        scenario.stop()
    print(json.dumps(scenario.observed, ensure_ascii=False))


if __name__ == "__main__":
    try:
        anyio.run(main)
    except Exception as error:
        print(f"mcp_http_driver: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
