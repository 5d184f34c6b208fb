// What the SDK client tests (client-v1.mjs, client-v2.mjs) share: the tools the
// server must list, and the check runner that prints one line per check and
// counts the failures.
export const TOOLS = [
  "check_declaration",
  "classify_workload",
  "list_gpus",
  "recent_classifications",
  "run_benchmark",
  "verify_audit_log",
];

export function checker(tag) {
  const t = { checks: 0, failures: 0 };
  t.check = async (name, fn) => {
    t.checks++;
    try {
      await fn();
      console.log(`ok   ${tag} ${name}`);
    } catch (e) {
      t.failures++;
      console.log(`FAIL ${tag} ${name}: ${e && e.stack ? e.stack : e}`);
    }
  };
  // The summary line, then the exit status: 1 when a check failed.
  t.finish = () => {
    console.log(`${tag} ${t.checks - t.failures} passed, ${t.failures} failed`);
    process.exit(t.failures ? 1 : 0);
  };
  return t;
}
