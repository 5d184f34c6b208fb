// Real-client test: the official TypeScript SDK v2 client (@modelcontextprotocol/client)
// drives `workloadtruth mcp` over stdio in one version-negotiation mode.
//
// usage: node client-v2.mjs WORKLOADTRUTH LOG_DIR MODE
//   MODE auto        versionNegotiation {mode:'auto'}: the client probes server/discover
//                    (on a short-lived sibling process) and, as the server is dual-era,
//                    must settle on the modern era at 2026-07-28
//   MODE 2026-07-28  versionNegotiation {mode:{pin:'2026-07-28'}}: modern era or failure
//   MODE legacy      the client's default: initialize handshake at 2025-11-25
//
// In each mode it lists the tools and calls every one of them (the client checks
// structuredContent against each outputSchema), with a progress token on the
// calls that report progress.  LOG_DIR must hold an audit log already (client-v1.mjs
// writes one) or be empty: classify_workload here writes to it first.
//
// SPDX-License-Identifier: MIT
import assert from "node:assert/strict";
import { Client, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { TOOLS, checker } from "./harness.mjs";

const [wt, logDir, mode] = process.argv.slice(2);
const MODES = {
  auto: { negotiation: { mode: "auto" }, era: "modern", version: "2026-07-28" },
  "2026-07-28": { negotiation: { mode: { pin: "2026-07-28" } }, era: "modern", version: "2026-07-28" },
  legacy: { negotiation: undefined, era: "legacy", version: "2025-11-25" },
};
if (!wt || !logDir || !MODES[mode]) {
  console.error("usage: node client-v2.mjs WORKLOADTRUTH LOG_DIR auto|2026-07-28|legacy");
  process.exit(2);
}
const want = MODES[mode];
const tag = `[v2 ${mode}]`;

const t = checker(tag);
const check = t.check;

const transport = new StdioClientTransport({
  command: wt,
  args: ["mcp", "--backend", "synthetic", "--log-dir", logDir],
  stderr: "inherit",
});
const client = new Client(
  { name: "workloadtruth-v2-test", version: "1.0.0" },
  want.negotiation ? { versionNegotiation: want.negotiation } : {},
);

// Every message the client receives, in order (a tap in front of the SDK's handler).
const wire = [];
function tap() {
  const inner = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    wire.push(msg);
    inner?.(msg, extra);
  };
}

function assertOk(result, name) {
  assert.ok(!result.isError, `${name} returned isError: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent && typeof result.structuredContent === "object", `${name}: no structuredContent`);
  const text = result.content.find((c) => c.type === "text");
  assert.ok(text, `${name}: no text content block`);
  assert.deepEqual(JSON.parse(text.text), result.structuredContent, `${name}: text differs from structuredContent`);
}

// Calls a tool with onprogress (so the SDK sends a progressToken) and checks, on
// the wire, that at least one notifications/progress for that token came before
// the response, with increasing values.  (What reaches onprogress is not asserted
// here: the SDK dispatches notifications a microtask late and drops those that
// arrive in the same read as the response, which the fast synthetic backend
// makes likely.  client-v1.mjs asserts delivery on calls that take longer.)
async function callWithProgress(name, args) {
  const start = wire.length;
  const delivered = [];
  const result = await client.callTool({ name, arguments: args }, { onprogress: (p) => delivered.push(p), timeout: 120000 });
  const after = wire.slice(start);
  const at = after.findIndex((m) => "id" in m && !("method" in m));
  assert.ok(at >= 0, `${name}: no response on the wire`);
  const resp = after[at];
  const seen = after
    .slice(0, at)
    .filter((m) => m.method === "notifications/progress" && m.params?.progressToken === resp.id)
    .map((m) => m.params);
  assert.ok(seen.length >= 1, `${name}: no notifications/progress for token ${resp.id} before the response`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress, `${name}: progress did not increase`);
  if (want.era === "modern") assert.equal(resp.result?.resultType, "complete", `${name}: resultType`);
  return { result, delivered, seen };
}

try {
  await check(`connect: era ${want.era}, protocol ${want.version}`, async () => {
    await client.connect(transport);
    tap();
    assert.equal(client.getProtocolEra(), want.era);
    assert.equal(client.getNegotiatedProtocolVersion(), want.version);
    assert.equal(client.getServerVersion()?.name, "workloadtruth");
    assert.ok(client.getServerCapabilities()?.tools, "no tools capability");
    if (want.era === "modern") {
      const d = client.getDiscoverResult();
      assert.ok(d, "no discover result");
      assert.ok(d.supportedVersions.includes("2026-07-28"), JSON.stringify(d.supportedVersions));
      assert.equal(client.getServerCapabilities().logging, undefined, "logging declared in the modern era");
    }
  });
  // nothing more to check without a connection
  if (!t.failures) {
    // (2026-07-28 removed ping: the v2 client refuses to send it in the modern era)
    if (want.era === "legacy")
      await check("ping", async () => {
        assert.deepEqual(await client.ping(), {});
      });

    await check("tools/list", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, "object", t.name);
        assert.equal(t.outputSchema?.type, "object", t.name);
      }
    });

    await check("classify_workload (progress token, writes the audit log)", async () => {
      const { result } = await callWithProgress("classify_workload", {
        backend: "synthetic",
        profile: "inference",
        samples: 10,
        write_to_audit_log: true,
      });
      assertOk(result, "classify_workload");
    });

    await check("check_declaration (progress token)", async () => {
      const { result } = await callWithProgress("check_declaration", { declared: "inference", profile: "inference", windows: 3 });
      assertOk(result, "check_declaration");
    });

    await check("run_benchmark (progress token)", async () => {
      const { result } = await callWithProgress("run_benchmark", { suite: "seed", trials: 2, window: 10 });
      assertOk(result, "run_benchmark");
    });

    for (const [name, args] of [
      ["list_gpus", {}],
      ["verify_audit_log", {}],
      ["recent_classifications", { limit: 3 }],
    ])
      await check(name, async () => {
        const result = await client.callTool({ name, arguments: args });
        assertOk(result, name);
        if (name === "verify_audit_log") assert.equal(result.structuredContent.valid, true, result.structuredContent.message);
        if (name === "recent_classifications") assert.ok(result.structuredContent.classifications.length >= 1);
      });

    await check("unknown tool is a protocol error (-32602)", async () => {
      await assert.rejects(
        client.callTool({ name: "no_such_tool", arguments: {} }),
        (e) => e instanceof ProtocolError && e.code === -32602,
      );
    });
  }
} finally {
  await client.close().catch(() => {});
}

t.finish();
