// Real-client test: the official TypeScript SDK v1 client (@modelcontextprotocol/sdk)
// drives `workloadtruth mcp` over stdio, 2025-11-25 era.
//
// usage: node client-v1.mjs WORKLOADTRUTH LOG_DIR
//
// It connects (initialize + notifications/initialized), pings, lists the tools and
// calls each one.  The v1 client checks every structuredContent against the tool's
// outputSchema, so a result that does not match its schema fails the call.  Calls
// made with onprogress carry a progressToken; the tools that report progress must
// send at least one notifications/progress, with increasing values.
//
// The checks print one line each and end with "N passed, M failed".
//
// SPDX-License-Identifier: MIT
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, ErrorCode, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { TOOLS, checker } from "./harness.mjs";
// the SDK's own JSON Schema validator (a dependency of @modelcontextprotocol/sdk)
import Ajv2020 from "ajv/dist/2020.js";

const [wt, logDir] = process.argv.slice(2);
if (!wt || !logDir) {
  console.error("usage: node client-v1.mjs WORKLOADTRUTH LOG_DIR");
  process.exit(2);
}

const t = checker("[v1]");
const check = t.check;

const transport = new StdioClientTransport({
  command: wt,
  args: ["mcp", "--backend", "synthetic", "--log-dir", logDir],
  stderr: "inherit",
});
const client = new Client({ name: "workloadtruth-v1-test", version: "1.0.0" });

// Every message the client receives, in order: a tap in front of the SDK's handler,
// put there when the SDK starts the transport (connect() sets onmessage first).
const wire = [];
const start = transport.start.bind(transport);
transport.start = async () => {
  const inner = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    wire.push(msg);
    inner?.(msg, extra);
  };
  return start();
};

// callTool with onprogress, so that the SDK sends _meta.progressToken.  Returns the
// result, the progress the SDK delivered to onprogress, and the notifications/progress
// for that token that reached the client before the response (on the wire).
//
// The two can differ: the v1 SDK dispatches notifications a microtask late, and a
// notification read in the same chunk as the response finds its handler already
// removed ("Received a progress notification for an unknown token").  With the
// synthetic backend a call takes about a millisecond, so that is likely; the wire
// shows what the server sent, and run_benchmark's sim suite (tens of milliseconds)
// checks delivery to onprogress.
async function callWithProgress(name, args) {
  const start = wire.length;
  const delivered = [];
  const result = await client.callTool({ name, arguments: args }, undefined, {
    onprogress: (p) => delivered.push(p),
    timeout: 120000,
  });
  const after = wire.slice(start);
  const at = after.findIndex((m) => "id" in m && !("method" in m));
  assert.ok(at >= 0, `${name}: no response on the wire`);
  const token = after[at].id;
  const seen = after
    .slice(0, at)
    .filter((m) => m.method === "notifications/progress" && m.params?.progressToken === token)
    .map((m) => m.params);
  assertProgress(seen, name);
  return { result, delivered, seen };
}

function assertOk(result, name) {
  assert.ok(!result.isError, `${name} returned isError: ${JSON.stringify(result.content)}`);
  assert.ok(result.structuredContent, `${name}: no structuredContent`);
  assert.ok(Array.isArray(result.content) && result.content.length > 0, `${name}: no content`);
  const text = result.content.find((c) => c.type === "text");
  assert.ok(text, `${name}: no text content block`);
  // the text block is the serialized structuredContent (backward compatibility)
  assert.deepEqual(JSON.parse(text.text), result.structuredContent, `${name}: text differs from structuredContent`);
}

function assertProgress(progress, name) {
  assert.ok(progress.length >= 1, `${name}: no notifications/progress received`);
  for (let i = 1; i < progress.length; i++)
    assert.ok(progress[i].progress > progress[i - 1].progress, `${name}: progress did not increase: ${JSON.stringify(progress)}`);
  for (const p of progress)
    if (p.total !== undefined) assert.ok(p.progress <= p.total, `${name}: progress ${p.progress} > total ${p.total}`);
}

try {
  await check("connect (initialize + initialized)", async () => {
    await client.connect(transport);
    const info = client.getServerVersion();
    assert.equal(info.name, "workloadtruth");
    assert.ok(info.version, "serverInfo.version is empty");
    const caps = client.getServerCapabilities();
    assert.ok(caps.tools, `no tools capability: ${JSON.stringify(caps)}`);
    // the SDK asked for its latest revision, which the server serves
    assert.equal(LATEST_PROTOCOL_VERSION, "2025-11-25");
    assert.equal(wire[0]?.result?.protocolVersion, LATEST_PROTOCOL_VERSION, JSON.stringify(wire[0]));
    assert.ok(client.getInstructions(), "no instructions");
  });
  // nothing more to check without a connection
  if (!t.failures) {
    await check("ping", async () => {
      assert.deepEqual(await client.ping(), {});
    });

    await check("logging/setLevel (declared logging capability)", async () => {
      assert.ok(client.getServerCapabilities().logging, "logging capability not declared");
      assert.deepEqual(await client.setLoggingLevel("info"), {});
    });

    await check("tools/list", async () => {
      const { tools, nextCursor } = await client.listTools();
      assert.equal(nextCursor, undefined);
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS);
      for (const t of tools) {
        assert.ok(t.description, `${t.name}: no description`);
        assert.equal(t.inputSchema.type, "object", `${t.name}: inputSchema is not an object schema`);
        assert.equal(t.outputSchema?.type, "object", `${t.name}: no outputSchema`);
        assert.ok(t.annotations && typeof t.annotations.readOnlyHint === "boolean", `${t.name}: no annotations`);
      }
      // a client that validates arguments against inputSchema refuses what the
      // server refuses: the simulator suites' 20 trials and 30 s windows, empty
      // strings (the schema allowed them; the server refused them)
      const ajv = new (Ajv2020.default ?? Ajv2020)({ strict: false });
      const schema = (name) => ajv.compile(tools.find((t) => t.name === name).inputSchema);
      const bench = schema("run_benchmark");
      assert.equal(bench({ suite: "sim", trials: 21 }), false, "run_benchmark sim trials 21");
      assert.equal(bench({ suite: "board", window: 31 }), false, "run_benchmark board window 31");
      assert.equal(bench({ suite: "evasion", trials: 20, window: 30 }), true, "run_benchmark evasion 20");
      assert.equal(bench({ suite: "seed", trials: 1000, window: 31 }), true, "run_benchmark seed 1000");
      assert.equal(schema("classify_workload")({ profile: "" }), false, "classify_workload profile ''");
      assert.equal(schema("verify_audit_log")({ log_file: "" }), false, "verify_audit_log log_file ''");
    });

    await check("classify_workload (progress, writes the audit log)", async () => {
      const { result } = await callWithProgress("classify_workload", {
        backend: "synthetic",
        profile: "training",
        samples: 10,
        write_to_audit_log: true,
      });
      assertOk(result, "classify_workload");
      const s = result.structuredContent;
      assert.ok(["TRAINING", "INFERENCE", "IDLE", "UNKNOWN"].includes(s.workload_type));
      assert.equal(s.sample_count, 10);
    });

    await check("check_declaration (progress)", async () => {
      const { result } = await callWithProgress("check_declaration", {
        declared: "training",
        profile: "training",
        windows: 3,
        samples: 10,
      });
      assertOk(result, "check_declaration");
      assert.ok(["MATCH", "MISMATCH", "INCONCLUSIVE"].includes(result.structuredContent.verdict));
    });

    await check("run_benchmark (progress delivered to onprogress)", async () => {
      const { result, delivered, seen } = await callWithProgress("run_benchmark", { suite: "sim", trials: 1 });
      assertOk(result, "run_benchmark");
      assertProgress(delivered, "run_benchmark (onprogress)");
      assert.ok(delivered.length <= seen.length);
      assert.equal(result.structuredContent.suite, "sim");
    });

    await check("list_gpus", async () => {
      const result = await client.callTool({ name: "list_gpus", arguments: {} });
      assertOk(result, "list_gpus");
      assert.ok(result.structuredContent.gpus.length >= 1, "no GPUs from the synthetic backend");
    });

    await check("verify_audit_log", async () => {
      const result = await client.callTool({ name: "verify_audit_log", arguments: {} });
      assertOk(result, "verify_audit_log");
      assert.equal(result.structuredContent.valid, true, result.structuredContent.message);
      assert.ok(result.structuredContent.entries >= 1);
    });

    await check("recent_classifications", async () => {
      const result = await client.callTool({ name: "recent_classifications", arguments: { limit: 5 } });
      assertOk(result, "recent_classifications");
      assert.ok(result.structuredContent.classifications.length >= 1, "the classification written above is missing");
    });

    await check("invalid arguments are a tool execution error (isError)", async () => {
      const result = await client.callTool({ name: "classify_workload", arguments: { samples: 1 } });
      assert.equal(result.isError, true);
      assert.ok(result.content[0].text.length > 0);
    });

    await check("unknown tool is a protocol error (-32602)", async () => {
      await assert.rejects(
        client.callTool({ name: "no_such_tool", arguments: {} }),
        (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams,
      );
    });
  }
} finally {
  await client.close().catch(() => {});
}

t.finish();
