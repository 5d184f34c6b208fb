// Real-client test over Streamable HTTP: the official TypeScript SDK clients, v1
// (@modelcontextprotocol/sdk) and v2 (@modelcontextprotocol/client), drive a running
// `workloadtruth mcp --http` server (client-v1.mjs and client-v2.mjs do the same over
// stdio; the conformance suites check the protocol, not what real clients do with it).
//
// usage: node client-http.mjs URL v1|v2 [auto|2026-07-28|legacy]
//
// The server should sample a live (fake) GPU, so that a call lasts long enough to be
// cancelled.  Checks: connect (a legacy session id, or none in the stateless
// 2026-07-28 era), ping (legacy), the tool list, every tool called (the SDK checks each
// structuredContent against its outputSchema), progress on a sampling call, bad
// arguments as an isError result, an unknown tool as a JSON-RPC error, a call
// cancelled with an AbortSignal that does not hold up the next call, and, for a
// legacy session, ending it with DELETE.
//
// SPDX-License-Identifier: MIT
import assert from "node:assert/strict";
import { TOOLS, checker } from "./harness.mjs";

const [url, sdk, mode = "legacy"] = process.argv.slice(2);
const NEGOTIATION = {
  auto: { mode: "auto" },
  "2026-07-28": { mode: { pin: "2026-07-28" } },
  legacy: undefined,
};
if (!url || !["v1", "v2"].includes(sdk) || !(mode in NEGOTIATION) || (sdk === "v1" && mode !== "legacy")) {
  console.error("usage: node client-http.mjs URL v1|v2 [auto|2026-07-28|legacy] (v1: legacy only)");
  process.exit(2);
}
const tag = `[http ${sdk} ${mode}]`;
const t = checker(tag);
const check = t.check;

let Client, Transport;
if (sdk === "v1") {
  ({ Client } = await import("@modelcontextprotocol/sdk/client/index.js"));
  ({ StreamableHTTPClientTransport: Transport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  ));
} else {
  ({ Client, StreamableHTTPClientTransport: Transport } = await import("@modelcontextprotocol/client"));
}
const transport = new Transport(new URL(url));
const client = new Client(
  { name: `workloadtruth-http-${sdk}`, version: "1.0.0" },
  NEGOTIATION[mode] ? { versionNegotiation: NEGOTIATION[mode] } : {},
);

// call(name, args, opts): callTool in either SDK's signature (v1 takes the
// result schema second, v2 the options)
function call(name, args, opts = {}) {
  return sdk === "v1"
    ? client.callTool({ name, arguments: args }, undefined, opts)
    : client.callTool({ name, arguments: args }, opts);
}

function assertOk(result, name) {
  assert.ok(!result.isError, `${name} returned isError: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent && typeof result.structuredContent === "object", `${name}: no structuredContent`);
}

await check("connect", async () => {
  await client.connect(transport);
  if (mode === "legacy")
    assert.match(String(transport.sessionId), /^[0-9a-f]{48}$/, "no legacy session id");
});
if (mode === "legacy") /* 2026-07-28 has no ping */
  await check("ping", async () => {
    await client.ping();
  });
await check("tools/list names every tool", async () => {
  const r = await client.listTools();
  assert.deepEqual(r.tools.map((x) => x.name).sort(), [...TOOLS].sort());
});
const ARGS = {
  list_gpus: {},
  classify_workload: { samples: 5, interval_seconds: 0.1, write_to_audit_log: true }, // before the log tools
  check_declaration: { declared: "training", samples: 5, windows: 1, interval_seconds: 0.1 },
  recent_classifications: { limit: 5 },
  verify_audit_log: {},
  run_benchmark: { trials: 2, window: 10 },
};
for (const name of TOOLS) {
  await check(`${name}: a result that matches its outputSchema`, async () => {
    assertOk(await call(name, ARGS[name], { timeout: 60000 }), name);
  });
}
await check("progress on a sampling call", async () => {
  let n = 0;
  const r = await call("classify_workload", { samples: 5, interval_seconds: 0.2 }, {
    onprogress: () => n++,
    timeout: 60000,
  });
  assertOk(r, "classify_workload");
  assert.ok(n >= 1, "no progress notification reached onprogress");
});
await check("bad arguments: an isError result", async () => {
  const r = await call("classify_workload", { samples: 2 });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /'samples'/);
});
await check("an unknown tool: a JSON-RPC error", async () => {
  await assert.rejects(call("no_such_tool", {}), (e) => /no_such_tool|Unknown tool/.test(String(e.message)));
});
await check("a cancelled call does not hold up the next one", async () => {
  const ac = new AbortController();
  const slow = call("classify_workload", { samples: 30, interval_seconds: 1 }, { signal: ac.signal, timeout: 60000 });
  setTimeout(() => ac.abort("test"), 1000);
  await assert.rejects(slow);
  const t0 = Date.now();
  assertOk(await call("list_gpus", {}, { timeout: 60000 }), "list_gpus");
  assert.ok(Date.now() - t0 < 5000, `the next call took ${Date.now() - t0} ms`);
});
if (mode === "legacy") {
  await check("DELETE ends the session", async () => {
    await transport.terminateSession();
    assert.equal(transport.sessionId, undefined);
  });
}
await client.close();
t.finish();
