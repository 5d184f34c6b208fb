// Validates the deployment files in deploy/ against published schemas.
//
// usage: node validate.mjs REPO_DIR [WORKLOADTRUTH]     (run by tests/deploy_test.sh)
//
// Kubernetes (deploy/kubernetes):
//  - renders every kustomization (the top one, base/, each overlay) with a small
//    renderer of the kustomize subset these files use (resources, images, RFC
//    6902 patches); where kubectl is installed, also with `kubectl kustomize`,
//    and the two renderings must be equal;
//  - validates every rendered object with the JSON schemas of the package
//    kubernetes-models (Kubernetes' OpenAPI, compiled by ajv: types, required
//    fields, enums, formats), and the ServiceMonitor and the PrometheusRule with
//    those of @kubernetes-models/prometheus-operator (monitoring.coreos.com/v1);
//  - rejects fields the schema does not know (like kubeconform -strict; the
//    JSON schemas above allow them): the field lists are read from the same
//    packages' type declarations (*.d.ts, generated from the same schemas);
//  - checks what docs/deployment.md promises about the manifests (hostPID,
//    GPU-node selector, non-root, dropped capabilities, read-only root, port
//    "metrics" 9400, the probes, resources, the watch arguments, the state
//    volume), that the Service and ServiceMonitor select the agent, that
//    the NetworkPolicy lets only selected pods reach port "metrics", and that
//    the PrometheusRule has the ServiceMonitor's labels;
//  - every YAML file under deploy/kubernetes is used by a kustomization;
//  - the Kubernetes examples of docs/deployment.md ("# kubernetes:" blocks)
//    match the schemas, and its DaemonSet patch applies to the base DaemonSet,
//    gives a valid one, and points --policy at the documented ConfigMap.
// Grafana (deploy/grafana/workloadtruth-dashboard.json):
//  - loads; its panel titles are exactly those listed in docs/deployment.md
//    (between <!-- dashboard-panels:begin/end -->), its metric names are among
//    those listed there (<!-- metrics:begin/end -->); variables DS_PROMETHEUS,
//    hostname, gpu; every query uses ${DS_PROMETHEUS}; unique panel ids,
//    panels inside the 24-column grid, not overlapping;
//  - type-checks it (TypeScript, excess properties included) against Grafana's
//    dashboard schema (@grafana/schema: Dashboard, and each panel's options
//    and field config against its plugin's schema);
//  - where promtool is installed: parses every query with `promtool check
//    rules`.
// docs/deployment.md: its Prometheus configuration, alerting rules and PromQL
// examples use documented metrics only and, where promtool is installed, pass
// `promtool check config` / `promtool check rules`.
// The PrometheusRule (deploy/kubernetes/base/prometheusrule.yaml): its
// spec.groups equal the rules.yml block of docs/deployment.md (parsed), and,
// where promtool is installed, pass `promtool check rules` and the same
// `promtool test rules` cases.
// With WORKLOADTRUTH (the built binary), against the real exporter: `watch
// --listen` on a synthetic GPU serves exactly the metric families that
// docs/deployment.md lists, every label the dashboard uses, /healthz and /;
// and, where Debian's prometheus is installed, a real Prometheus scrapes it
// with the ServiceMonitor's relabelings, every dashboard query and variable
// returns data, the hostname label is the node's, and the documented alerting
// rules evaluate without error.
// Each validator is first shown a broken copy (canaries) and must reject it,
// so that a validator that accepts everything fails the test.
//
// Prints one line per check ("ok ..." / "FAIL ..." / "skip ...") and a last line
// "validate.mjs: N passed, M failed"; exits 0 when nothing failed, 1 otherwise.
//
// SPDX-License-Identifier: MIT
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NM = path.join(HERE, "node_modules");
if (process.argv.length !== 3 && process.argv.length !== 4) {
  console.error("usage: node validate.mjs REPO_DIR [WORKLOADTRUTH]");
  process.exit(2);
}
const REPO = path.resolve(process.argv[2]);
const WT = process.argv[3] ? path.resolve(process.argv[3]) : null;
const K8S = path.join(REPO, "deploy/kubernetes");
const DASHBOARD = path.join(REPO, "deploy/grafana/workloadtruth-dashboard.json");
const DOC = path.join(REPO, "docs/deployment.md");

let passed = 0;
let failed = 0;
const rel = (p) => path.relative(REPO, p);
function ok(what) {
  passed++;
  console.log(`ok   ${what}`);
}
function fail(what, detail) {
  failed++;
  console.log(`FAIL ${what}`);
  if (detail) console.log(String(detail).replace(/^/gm, "       "));
}
function skip(what) {
  console.log(`skip ${what}`);
}
function check(what, cond, detail) {
  if (cond) ok(what);
  else fail(what, detail);
  return cond;
}
const clone = (o) => JSON.parse(JSON.stringify(o));
function which(cmd) {
  for (const d of (process.env.PATH || "").split(":")) {
    const p = path.join(d || ".", cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {}
  }
  return null;
}
function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { encoding: "utf8", timeout: 120000, ...opts });
}
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), "wt-deploy."));
process.on("exit", () => fs.rmSync(TMP, { recursive: true, force: true }));

// ---------------------------------------------------------------------------
// Kubernetes schemas

// apiVersion -> module directory of its models
function modelModule(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "monitoring.coreos.com")
    return `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`;
  return group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
}
const modelCache = new Map();
async function modelFor(obj) {
  const spec = modelModule(obj.apiVersion, obj.kind);
  if (!modelCache.has(spec)) {
    let cls = null;
    try {
      cls = (await import(spec))[obj.kind] || null;
    } catch {}
    modelCache.set(spec, cls);
  }
  const cls = modelCache.get(spec);
  return cls ? { cls, dts: path.join(NM, spec + ".d.ts") } : null;
}

// Schema errors of one object: [] when valid.
async function schemaErrors(obj) {
  if (!obj || typeof obj.apiVersion !== "string" || typeof obj.kind !== "string")
    return ["not a Kubernetes object (no apiVersion and kind)"];
  const m = await modelFor(obj);
  if (!m) return [`no schema for ${obj.apiVersion} ${obj.kind}`];
  const errs = [];
  try {
    new m.cls(clone(obj)).validate();
  } catch (e) {
    errs.push(...String(e.message || e).split(/, (?=data)/));
  }
  errs.push(...unknownFields(obj, m.dts));
  return errs;
}

// --- unknown fields, from the models' type declarations ---------------------
// The generated declarations have one interface per schema object:
//   export interface IContainer { "name": string; "ports"?: Array<IIoK8s...ContainerPort>; ... }
//   export type { IContainer as IIoK8sApiCoreV1Container, ... };
// with imports naming the file of every referenced type.
const dtsCache = new Map();
function loadDts(file) {
  if (dtsCache.has(file)) return dtsCache.get(file);
  const src = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const imports = new Map();
  for (const m of src.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g))
    for (const n of m[1].split(",").map((s) => s.trim()).filter(Boolean))
      imports.set(n.split(/\s+as\s+/).pop(), { name: n.split(/\s+as\s+/)[0], from: m[2] });
  const aliases = new Map();
  for (const m of src.matchAll(/export\s+type\s*\{([^}]*)\}/g))
    for (const n of m[1].split(",").map((s) => s.trim()).filter(Boolean)) {
      const [a, b] = n.split(/\s+as\s+/);
      if (b) aliases.set(b, a);
    }
  const d = { file, src, imports, aliases };
  dtsCache.set(file, d);
  return d;
}
function resolveModule(fromFile, spec) {
  const base = spec.startsWith(".") ? path.resolve(path.dirname(fromFile), spec) : path.join(NM, spec);
  for (const c of [base.replace(/\.js$/, ".d.ts"), base + ".d.ts", path.join(base, "index.d.ts")])
    if (fs.existsSync(c)) return c;
  throw new Error(`cannot resolve ${spec} from ${fromFile}`);
}
// The body of "{ ... }" starting at src[i] == "{"; returns [body, indexAfter].
function braced(src, i) {
  let depth = 0;
  for (let j = i; j < src.length; j++) {
    if (src[j] === "{" || src[j] === "<" || src[j] === "(") depth++;
    else if (src[j] === "}" || src[j] === ">" || src[j] === ")") {
      if (--depth === 0) return [src.slice(i + 1, j), j + 1];
    }
  }
  throw new Error("unbalanced braces");
}
function splitTop(body, sep) {
  const parts = [];
  let depth = 0;
  let cur = "";
  for (const ch of body) {
    if ("{<(".includes(ch)) depth++;
    if ("}>)".includes(ch)) depth--;
    if (ch === sep && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) parts.push(cur);
  return parts.map((s) => s.trim()).filter(Boolean);
}
// A type node: {kind:"object", props:Map(name->{type,ctx}), index:type|null} |
// {kind:"array", item} | {kind:"leaf"}; ctx is the declaration file the type
// text belongs to.
const typeCache = new Map();
function namedType(file, name) {
  const key = file + "#" + name;
  if (typeCache.has(key)) return typeCache.get(key);
  const placeholder = { kind: "object", props: new Map(), index: null, open: false };
  typeCache.set(key, placeholder); // recursive types
  const d = loadDts(file);
  let t;
  if (name === "TypeMeta") {
    t = { kind: "object", props: new Map([["apiVersion", LEAF], ["kind", LEAF]]), index: null };
  } else if (d.imports.has(name)) {
    const imp = d.imports.get(name);
    if (imp.from === "@kubernetes-models/base") t = name === "TypeMeta" ? namedType(file, "TypeMeta") : LEAF;
    else t = namedType(resolveModule(file, imp.from), imp.name);
  } else if (d.aliases.has(name)) {
    t = namedType(file, d.aliases.get(name));
  } else {
    const im = new RegExp(`export\\s+interface\\s+${name}\\s*(?:extends\\s+([^{]+))?\\{`).exec(d.src);
    const ta = new RegExp(`export\\s+type\\s+${name}\\s*=\\s*([^;]+);`).exec(d.src);
    if (im) {
      const [body] = braced(d.src, im.index + im[0].length - 1);
      t = objectType(file, body);
      for (const ext of (im[1] || "").split(",").map((s) => s.trim()).filter(Boolean)) {
        const e = namedType(file, ext);
        if (e.kind === "object") for (const [k, v] of e.props) if (!t.props.has(k)) t.props.set(k, v);
      }
    } else if (ta) {
      t = typeOf(file, ta[1].trim());
    } else {
      throw new Error(`type ${name} not found in ${file}`);
    }
  }
  Object.assign(placeholder, t);
  return placeholder;
}
const LEAF = { kind: "leaf" };
function objectType(file, body) {
  const t = { kind: "object", props: new Map(), index: null };
  for (const member of splitTop(body, ";")) {
    let m;
    if ((m = /^"([^"]+)"\??\s*:\s*([\s\S]+)$/.exec(member)) || (m = /^([A-Za-z_$][\w$]*)\??\s*:\s*([\s\S]+)$/.exec(member)))
      t.props.set(m[1], typeOf(file, m[2].trim()));
    else if ((m = /^\[\s*\w+\s*:\s*string\s*\]\s*:\s*([\s\S]+)$/.exec(member))) t.index = typeOf(file, m[1].trim());
    else throw new Error(`cannot read member "${member}" in ${file}`);
  }
  return t;
}
function typeOf(file, text) {
  if (splitTop(text, "|").length > 1) return LEAF; // unions: literals, primitives (types are ajv's job)
  let m;
  if ((m = /^Array<([\s\S]+)>$/.exec(text))) return { kind: "array", item: typeOf(file, m[1].trim()) };
  if (text.startsWith("{")) return objectType(file, braced(text, 0)[0]);
  if (/^(string|number|boolean|any|unknown|object|null|true|false|"[^"]*")$/.test(text)) return LEAF;
  if (/^[A-Za-z_$][\w$]*$/.test(text)) return namedType(file, text);
  return LEAF;
}
function unknownFields(obj, dtsFile) {
  const iface = "I" + obj.kind;
  const root = namedType(dtsFile, iface);
  const errs = [];
  (function walk(v, t, where) {
    if (v === null || v === undefined || t.kind === "leaf") return;
    if (t.kind === "array") {
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, t.item, `${where}/${i}`));
      return;
    }
    if (typeof v !== "object" || Array.isArray(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if (t.props.has(k)) walk(x, t.props.get(k), `${where}/${k}`);
      else if (t.index) walk(x, t.index, `${where}/${k}`);
      else errs.push(`${where}/${k}: unknown field "${k}"`);
    }
  })(obj, root, "data");
  return errs;
}

// ---------------------------------------------------------------------------
// Kustomize subset

function readYamlDocs(file) {
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
  for (const d of docs) if (d.errors.length) throw new Error(`${rel(file)}: ${d.errors[0].message}`);
  return docs.map((d) => d.toJSON()).filter((x) => x !== null);
}
function pointer(p) {
  if (!p.startsWith("/")) throw new Error(`bad JSON pointer ${p}`);
  return p.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}
function applyJsonPatch(doc, ops) {
  for (const op of ops) {
    const keys = pointer(op.path);
    const last = keys.pop();
    let parent = doc;
    for (const k of keys) {
      if (parent === null || typeof parent !== "object" || !(k in parent)) throw new Error(`${op.op} ${op.path}: no such path`);
      parent = parent[k];
    }
    const isArr = Array.isArray(parent);
    if (op.op === "add") {
      if (isArr) {
        const i = last === "-" ? parent.length : Number(last);
        if (!(i >= 0 && i <= parent.length)) throw new Error(`add ${op.path}: bad index`);
        parent.splice(i, 0, clone(op.value));
      } else parent[last] = clone(op.value);
    } else if (op.op === "remove" || op.op === "replace") {
      if (!(last in parent)) throw new Error(`${op.op} ${op.path}: no such path`);
      if (op.op === "remove") {
        if (isArr) parent.splice(Number(last), 1);
        else delete parent[last];
      } else parent[last] = clone(op.value);
    } else throw new Error(`patch op ${op.op} is not supported by this test's renderer`);
  }
}
const KUSTOMIZE_KEYS = new Set(["apiVersion", "kind", "resources", "images", "patches"]);
function renderKustomization(dir, used) {
  const kfile = path.join(dir, "kustomization.yaml");
  used.add(kfile);
  const [k] = readYamlDocs(kfile);
  if (k.apiVersion !== "kustomize.config.k8s.io/v1beta1" || k.kind !== "Kustomization")
    throw new Error(`${rel(kfile)}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  for (const key of Object.keys(k))
    if (!KUSTOMIZE_KEYS.has(key)) throw new Error(`${rel(kfile)}: "${key}" is not supported by this test's renderer (extend tests/deploy/validate.mjs)`);
  let objs = [];
  for (const r of k.resources || []) {
    const p = path.resolve(dir, r);
    if (!fs.existsSync(p)) throw new Error(`${rel(kfile)}: resource ${r} does not exist`);
    if (fs.statSync(p).isDirectory()) objs.push(...renderKustomization(p, used));
    else {
      used.add(p);
      objs.push(...readYamlDocs(p));
    }
  }
  for (const img of k.images || []) {
    for (const o of objs) {
      const pod = o.spec && o.spec.template && o.spec.template.spec;
      if (!pod) continue;
      for (const c of [...(pod.containers || []), ...(pod.initContainers || [])]) {
        const name = c.image.replace(/[@:][^/]*$/, "");
        if (name !== img.name) continue;
        const tag = c.image.slice(name.length);
        c.image = (img.newName || name) + (img.newTag !== undefined ? ":" + img.newTag : tag);
      }
    }
  }
  for (const p of k.patches || []) {
    const pfile = path.resolve(dir, p.path || "");
    if (!p.path || !p.target) throw new Error(`${rel(kfile)}: only patches with "path" and "target" are supported by this test's renderer`);
    used.add(pfile);
    const ops = YAML.parse(fs.readFileSync(pfile, "utf8"));
    if (!Array.isArray(ops)) throw new Error(`${rel(pfile)}: not an RFC 6902 patch (a list of operations)`);
    const t = p.target;
    const hits = objs.filter((o) => {
      const [g, v] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
      return (t.group === undefined || t.group === g) && (t.version === undefined || t.version === v) &&
        (t.kind === undefined || t.kind === o.kind) && (t.name === undefined || t.name === o.metadata.name);
    });
    if (!hits.length) throw new Error(`${rel(kfile)}: patch ${p.path} matches no object`);
    for (const o of hits) {
      try {
        applyJsonPatch(o, ops);
      } catch (e) {
        throw new Error(`${rel(pfile)}: ${e.message}`);
      }
    }
  }
  return objs;
}
const objKey = (o) => `${o.apiVersion} ${o.kind} ${(o.metadata && o.metadata.namespace) || ""}/${o.metadata && o.metadata.name}`;
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
  return v;
}

// ---------------------------------------------------------------------------
// What the manifests promise (docs/deployment.md, deploy/kubernetes/README.md)

function manifestChecks(name, objs) {
  const by = (kind) => objs.filter((o) => o.kind === kind);
  const problems = [];
  const need = (cond, msg) => { if (!cond) problems.push(msg); };
  const kinds = objs.map((o) => o.kind).sort().join(",");
  need(kinds === "DaemonSet,Namespace,NetworkPolicy,PrometheusRule,Service,ServiceAccount,ServiceMonitor", `objects: ${kinds}`);
  for (const o of objs)
    if (o.kind !== "Namespace") need(o.metadata.namespace === "workloadtruth", `${objKey(o)}: namespace is not workloadtruth`);
  const [ds] = by("DaemonSet");
  const [svc] = by("Service");
  const [sm] = by("ServiceMonitor");
  if (!ds || !svc || !sm) return problems;
  const pod = ds.spec.template.spec;
  const c = pod.containers.find((x) => x.name === "workloadtruth");
  need(c, "no container named workloadtruth");
  if (!c) return problems;
  const sc = c.securityContext || {};
  const psc = pod.securityContext || {};
  need(pod.hostPID === true, "hostPID is not true");
  need(!pod.hostNetwork, "hostNetwork is set");
  need(pod.nodeSelector && pod.nodeSelector["nvidia.com/gpu.present"] === "true", "no nodeSelector nvidia.com/gpu.present=true");
  need(pod.automountServiceAccountToken === false, "the service account token is mounted");
  need(JSON.stringify(c.args) === JSON.stringify(["watch", "--backend", "nvml", "--gpus", "all", "--window", "30", "--listen", ":9400", "--log-dir", "/var/lib/workloadtruth"]),
    `args are ${JSON.stringify(c.args)}`);
  need(sc.readOnlyRootFilesystem === true, "readOnlyRootFilesystem is not true");
  const port = (c.ports || []).find((p) => p.name === "metrics");
  need(port && port.containerPort === 9400, "no container port metrics: 9400");
  // readiness on /healthz (503 while the log cannot be written); startup and
  // liveness on "/", which answers while a long log is verified and while the
  // disk is full (a startup probe on /healthz restarted such a pod for ever)
  const rp = c.readinessProbe;
  need(rp && rp.httpGet && rp.httpGet.path === "/healthz" && rp.httpGet.port === "metrics", "readinessProbe is not GET /healthz on port metrics");
  for (const probe of ["livenessProbe", "startupProbe"]) {
    const pr = c[probe];
    need(pr && pr.httpGet && pr.httpGet.path === "/" && pr.httpGet.port === "metrics", `${probe} is not GET / on port metrics`);
  }
  const res = c.resources || {};
  need(res.requests && res.requests.cpu && res.requests.memory && res.limits && res.limits.memory, "resource requests or limits missing");
  const mount = (c.volumeMounts || []).find((m) => m.mountPath === "/var/lib/workloadtruth");
  const vol = mount && pod.volumes.find((v) => v.name === mount.name);
  need(vol && (vol.hostPath || vol.emptyDir), "no hostPath or emptyDir volume at /var/lib/workloadtruth");
  for (const ic of pod.initContainers || []) {
    const isc = ic.securityContext || {};
    need(isc.allowPrivilegeEscalation === false && isc.readOnlyRootFilesystem === true &&
      isc.capabilities && (isc.capabilities.drop || []).includes("ALL"), `init container ${ic.name}: not locked down`);
  }
  // the Service selects the pods, the ServiceMonitor the Service
  const podLabels = ds.spec.template.metadata.labels;
  const matches = (sel, labels) => Object.entries(sel || {}).every(([k, v]) => labels && labels[k] === v);
  need(matches(ds.spec.selector.matchLabels, podLabels), "the DaemonSet's selector does not match its pods");
  need(Object.keys(svc.spec.selector || {}).length && matches(svc.spec.selector, podLabels), "the Service does not select the agent's pods");
  const sport = (svc.spec.ports || []).find((p) => p.name === "metrics");
  need(sport && sport.port === 9400 && sport.targetPort === "metrics", "the Service has no port metrics 9400 -> metrics");
  need(matches(sm.spec.selector.matchLabels, svc.metadata.labels), "the ServiceMonitor does not select the Service");
  // the NetworkPolicy: ingress to the agent's pods, port metrics only, from
  // pods a namespace and a pod selector name together (Prometheus), nothing else
  const [np] = by("NetworkPolicy");
  need(np && Object.keys(np.spec.podSelector.matchLabels || {}).length && matches(np.spec.podSelector.matchLabels, podLabels),
    "the NetworkPolicy does not select the agent's pods");
  need(np && JSON.stringify(np.spec.policyTypes) === JSON.stringify(["Ingress"]) && (np.spec.ingress || []).length === 1,
    "the NetworkPolicy is not one ingress rule");
  const rule = np && (np.spec.ingress || [])[0];
  need(rule && JSON.stringify(rule.ports) === JSON.stringify([{ port: "metrics", protocol: "TCP" }]),
    "the NetworkPolicy's rule is not for port metrics alone");
  need(rule && (rule.from || []).length === 1 && rule.from[0].namespaceSelector && rule.from[0].podSelector &&
    Object.keys(rule.from[0].podSelector.matchLabels || {}).length && Object.keys(rule.from[0].namespaceSelector.matchLabels || {}).length,
    "the NetworkPolicy lets in more than pods chosen by a namespace and a pod label");
  need(sm.spec.namespaceSelector && (sm.spec.namespaceSelector.matchNames || []).includes(svc.metadata.namespace),
    "the ServiceMonitor's namespaceSelector does not include the Service's namespace");
  need((sm.spec.endpoints || []).some((e) => e.port === "metrics" && (e.path || "/metrics") === "/metrics"), "the ServiceMonitor scrapes no port metrics /metrics");
  // a Prometheus selects both by label: the same labels, so that the one added
  // for its serviceMonitorSelector and ruleSelector (README) fits both
  const [pr] = by("PrometheusRule");
  need(pr && JSON.stringify(sortKeys(pr.metadata.labels || {})) === JSON.stringify(sortKeys(sm.metadata.labels || {})),
    "the PrometheusRule's labels are not the ServiceMonitor's");

  const env = Object.fromEntries((c.env || []).map((e) => [e.name, e]));
  if (name.endsWith("host-driver")) {
    need(!pod.runtimeClassName, "host-driver: runtimeClassName is still set");
    const lib = env.WT_NVML_LIB && env.WT_NVML_LIB.value;
    const libMount = lib && (c.volumeMounts || []).find((m) => path.dirname(lib) === m.mountPath);
    const libVol = libMount && pod.volumes.find((v) => v.name === libMount.name);
    need(lib && libMount && libMount.readOnly === true && libVol && libVol.hostPath,
      "host-driver: WT_NVML_LIB is not in a read-only hostPath mount");
    need(sc.privileged === true && sc.runAsNonRoot === true, "host-driver: not privileged, or not non-root");
  } else if (name.endsWith("full-attribution")) {
    need(sc.runAsUser === 0, "full-attribution: not root");
    need(sc.allowPrivilegeEscalation === false && sc.privileged !== true, "full-attribution: privileged or may escalate");
    need(JSON.stringify(sc.capabilities) === JSON.stringify({ drop: ["ALL"], add: ["SYS_PTRACE", "DAC_READ_SEARCH"] }),
      `full-attribution: capabilities are ${JSON.stringify(sc.capabilities)}`);
  } else {
    need(pod.runtimeClassName === "nvidia", "runtimeClassName is not nvidia");
    need(psc.runAsNonRoot === true && sc.runAsNonRoot === true && sc.runAsUser > 0, "the agent is not non-root");
    need(sc.allowPrivilegeEscalation === false && sc.privileged === false, "privileged, or may escalate");
    need(JSON.stringify(sc.capabilities) === JSON.stringify({ drop: ["ALL"] }), `capabilities are ${JSON.stringify(sc.capabilities)}`);
    need(env.NVIDIA_VISIBLE_DEVICES && env.NVIDIA_VISIBLE_DEVICES.value === "all", "NVIDIA_VISIBLE_DEVICES is not all");
    need(!JSON.stringify(c.resources).includes("nvidia.com/gpu"), "the agent requests a GPU");
  }
  return problems;
}

async function kubernetes() {
  console.log("# Kubernetes manifests (deploy/kubernetes)");
  const roots = [K8S, path.join(K8S, "base")];
  const ov = path.join(K8S, "overlays");
  if (fs.existsSync(ov)) for (const d of fs.readdirSync(ov).sort()) roots.push(path.join(ov, d));
  const used = new Set();
  const kubectl = which("kubectl");
  const rendered = new Map();
  for (const root of roots) {
    const name = rel(root);
    let objs;
    try {
      objs = renderKustomization(root, used);
      ok(`${name}: renders (${objs.length} objects)`);
    } catch (e) {
      fail(`${name}: renders`, e.message);
      continue;
    }
    rendered.set(name, objs);
    if (kubectl) {
      const r = run(kubectl, ["kustomize", root]);
      if (r.status !== 0) fail(`${name}: kubectl kustomize`, r.stderr || r.error);
      else {
        const theirs = YAML.parseAllDocuments(r.stdout).map((d) => d.toJSON()).filter(Boolean);
        const a = JSON.stringify(objs.map(sortKeys).sort((x, y) => objKey(x).localeCompare(objKey(y))));
        const b = JSON.stringify(theirs.map(sortKeys).sort((x, y) => objKey(x).localeCompare(objKey(y))));
        check(`${name}: kubectl kustomize renders the same objects`, a === b, `test renderer: ${a}\nkubectl:       ${b}`);
      }
    }
    for (const o of objs) {
      const errs = await schemaErrors(o);
      check(`${name}: ${o.kind}/${o.metadata && o.metadata.name} matches the ${o.apiVersion} schema, no unknown field`, !errs.length, errs.join("\n"));
    }
    const problems = manifestChecks(name, objs);
    check(`${name}: agent, Service, ServiceMonitor and PrometheusRule as documented`, !problems.length, problems.join("\n"));
  }
  if (!kubectl) skip("kubectl kustomize (kubectl is not installed): compared with the test's renderer only");
  const yamls = [];
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e.name)) yamls.push(p);
    }
  })(K8S);
  const orphans = yamls.filter((p) => !used.has(p)).map(rel);
  check(`every YAML file under deploy/kubernetes is used by a kustomization (${yamls.length} files)`, !orphans.length, orphans.join("\n"));

  // canaries: broken copies that each validator must reject
  const base = rendered.get(rel(path.join(K8S, "base"))) || [];
  const ds = base.find((o) => o.kind === "DaemonSet");
  const sm = base.find((o) => o.kind === "ServiceMonitor");
  if (ds && sm) {
    const canaries = [
      ["a misspelt field (readOnlyRootFileSystem)", ds, (o) => { o.spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem = true; }, /unknown field "readOnlyRootFileSystem"/],
      ["a string port", ds, (o) => { o.spec.template.spec.containers[0].ports[0].containerPort = "9400"; }, /containerPort must be integer/],
      ["a container without a name", ds, (o) => { delete o.spec.template.spec.containers[0].name; }, /must have required property '?name'?/],
      ["a bad imagePullPolicy", ds, (o) => { o.spec.template.spec.containers[0].imagePullPolicy = "Sometimes"; }, /must be equal to one of the allowed values/],
      ["a misspelt ServiceMonitor field (intervall)", sm, (o) => { o.spec.endpoints[0].intervall = "30s"; }, /unknown field "intervall"/],
      ["a bad relabeling action", sm, (o) => { o.spec.endpoints[0].relabelings[0].action = "rename"; }, /allowed values/],
      ["a ServiceMonitor without a selector", sm, (o) => { delete o.spec.selector; }, /required property '?selector'?/],
    ];
    for (const [what, orig, mutate, want] of canaries) {
      const o = clone(orig);
      mutate(o);
      const errs = await schemaErrors(o);
      check(`canary: the validator rejects ${what}`, errs.some((e) => want.test(e)), `errors: ${JSON.stringify(errs)}`);
    }
  }
  const pr = base.find((o) => o.kind === "PrometheusRule");
  if (pr) {
    const canaries = [
      ["a misspelt PrometheusRule field (expression)", (o) => { o.spec.groups[0].rules[0].expression = o.spec.groups[0].rules[0].expr; }, /unknown field "expression"/],
      ["a rule without expr", (o) => { delete o.spec.groups[0].rules[0].expr; }, /required property '?expr'?/],
      ["a rule group without a name", (o) => { delete o.spec.groups[0].name; }, /required property '?name'?/],
      ["a bad rule duration (for: 15 minutes)", (o) => { o.spec.groups[0].rules[0].for = "15 minutes"; }, /must match pattern/],
    ];
    for (const [what, mutate, want] of canaries) {
      const o = clone(pr);
      mutate(o);
      const errs = await schemaErrors(o);
      check(`canary: the validator rejects ${what}`, errs.some((e) => want.test(e)), `errors: ${JSON.stringify(errs)}`);
    }
  }
  return base;
}


// Kubernetes examples in docs/deployment.md: ```yaml blocks whose first line is
// "# kubernetes: ..." (objects) or "# patch: DaemonSet workloadtruth ..." (an RFC
// 6902 patch of the base DaemonSet).  Returns the policy of the documented
// ConfigMap, for the live test.
async function docsKubernetes(doc, base) {
  console.log("# Kubernetes examples (docs/deployment.md)");
  const objs = [...doc.matchAll(/```yaml\n(# kubernetes:[^\n]*\n[\s\S]*?)```/g)].flatMap((m) =>
    YAML.parseAllDocuments(m[1]).map((d) => d.toJSON()).filter(Boolean));
  const patches = [...doc.matchAll(/```yaml\n(# patch: DaemonSet workloadtruth[^\n]*\n[\s\S]*?)```/g)].map((m) => YAML.parse(m[1]));
  check(`docs/deployment.md has Kubernetes examples (${objs.length} objects, ${patches.length} DaemonSet patch)`, objs.length && patches.length);
  for (const o of objs) {
    const errs = await schemaErrors(o);
    check(`example ${o.kind}/${o.metadata && o.metadata.name} matches the ${o.apiVersion} schema, no unknown field`, !errs.length, errs.join("\n"));
  }
  const ds = (base || []).find((o) => o.kind === "DaemonSet");
  const cm = objs.find((o) => o.kind === "ConfigMap");
  for (const ops of patches) {
    if (!ds) break;
    const o = clone(ds);
    try {
      applyJsonPatch(o, ops);
    } catch (e) {
      fail("the documented DaemonSet patch applies to base/daemonset.yaml", e.message);
      continue;
    }
    const errs = await schemaErrors(o);
    check("the documented DaemonSet patch applies, and the result matches the apps/v1 schema", !errs.length, errs.join("\n"));
    const c = o.spec.template.spec.containers[0];
    const i = c.args.indexOf("--policy");
    const file = i >= 0 ? c.args[i + 1] : "";
    const mount = (c.volumeMounts || []).find((m) => file.startsWith(m.mountPath + "/"));
    const vol = mount && o.spec.template.spec.volumes.find((v) => v.name === mount.name);
    const key = mount ? file.slice(mount.mountPath.length + 1) : "";
    check("the patch's --policy file is the documented ConfigMap's key", cm && vol && vol.configMap && vol.configMap.name === cm.metadata.name &&
      cm.metadata.namespace === ds.metadata.namespace && cm.data && typeof cm.data[key] === "string", `--policy ${file}`);
  }
  return cm && cm.data ? Object.values(cm.data)[0] : null;
}

// ---------------------------------------------------------------------------
// docs/deployment.md lists

function docList(doc, marker) {
  const m = new RegExp(`<!-- ${marker}:begin -->([\\s\\S]*?)<!-- ${marker}:end -->`).exec(doc);
  if (!m) return null;
  // table rows "| `name` | ..." or "| name | ...": the first cell, without backticks and label sets
  const rows = m[1].split("\n").filter((l) => /^\|/.test(l) && !/^\|\s*-/.test(l));
  return rows.slice(1).map((l) => l.split("|")[1].trim().replace(/`/g, "").replace(/\{.*$/, "").trim());
}

// ---------------------------------------------------------------------------
// Grafana dashboard

const GRAFANA_PANELS = {
  "state-timeline": "statetimeline/panelcfg/x/StateTimelinePanelCfg_types.gen",
  timeseries: "timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen",
  stat: "stat/panelcfg/x/StatPanelCfg_types.gen",
  table: "table/panelcfg/x/TablePanelCfg_types.gen",
};
function grafanaTypeCheckSource(dash) {
  const types = Object.entries(GRAFANA_PANELS)
    .map(([t, p], i) => `import type * as P${i} from "@grafana/schema/dist/esm/raw/composable/${p}";`).join("\n");
  const names = Object.keys(GRAFANA_PANELS);
  let s = `import type { Dashboard } from "@grafana/schema";
${types}
// Grafana's schema types use TypeScript enums where JSON has their string
// values: Loose<T> turns every string enum into the union of its values.
type Loose<T> = T extends string ? \`\${T}\` : T extends object ? { [K in keyof T]: Loose<T[K]> } : T;
export const dashboard: Loose<Dashboard> = ${JSON.stringify(dash, null, 2)};
`;
  (dash.panels || []).forEach((p, i) => {
    const k = names.indexOf(p.type);
    if (k < 0) return;
    s += `export const options${i}: Loose<P${k}.Options> = ${JSON.stringify(p.options || {})};\n`;
    s += `export const custom${i}: Loose<P${k}.FieldConfig> = ${JSON.stringify(((p.fieldConfig || {}).defaults || {}).custom || {})};\n`;
  });
  return s;
}

function dashboard(doc) {
  console.log("# Grafana dashboard (deploy/grafana)");
  let dash;
  try {
    dash = JSON.parse(fs.readFileSync(DASHBOARD, "utf8"));
    ok(`${rel(DASHBOARD)} is JSON`);
  } catch (e) {
    fail(`${rel(DASHBOARD)} is JSON`, e.message);
    return;
  }
  const panels = (dash.panels || []).filter((p) => p.type !== "row");
  const titles = panels.map((p) => p.title);
  const documented = docList(doc, "dashboard-panels");
  if (check("docs/deployment.md lists the dashboard's panels (<!-- dashboard-panels:begin/end -->)", documented && documented.length)) {
    const extra = titles.filter((t) => !documented.includes(t));
    const missing = documented.filter((t) => !titles.includes(t));
    const dup = titles.filter((t, i) => titles.indexOf(t) !== i);
    check(`the dashboard's panel titles are exactly the documented ones (${documented.length})`, !extra.length && !missing.length && !dup.length,
      `not documented: ${JSON.stringify(extra)}\nnot in the dashboard: ${JSON.stringify(missing)}\nduplicated: ${JSON.stringify(dup)}`);
  }
  check("schemaVersion is 39", dash.schemaVersion === 39, `schemaVersion ${dash.schemaVersion}`);
  check("uid and title are set", typeof dash.uid === "string" && dash.uid && typeof dash.title === "string" && dash.title);
  const vars = Object.fromEntries(((dash.templating || {}).list || []).map((v) => [v.name, v]));
  check("variable DS_PROMETHEUS: a Prometheus data source", vars.DS_PROMETHEUS && vars.DS_PROMETHEUS.type === "datasource" && vars.DS_PROMETHEUS.query === "prometheus");
  for (const v of ["hostname", "gpu"])
    check(`variable ${v}: label values of a workloadtruth metric`, vars[v] && vars[v].type === "query" &&
      new RegExp(`label_values\\(.*workloadtruth_\\w+.*,\\s*${v}\\s*\\)`).test(JSON.stringify(vars[v].query)));
  // a hidden variable that follows another one: a custom "All" value (.*)
  // would make it match every agent whatever hosts are picked
  check("variable instance: follows hostname (no custom All value)", vars.instance && vars.instance.type === "query" &&
    /hostname=~\\"\$hostname\\"/.test(JSON.stringify(vars.instance.query)) && vars.instance.allValue === undefined,
    JSON.stringify(vars.instance));
  const dsOk = (d) => d && d.type === "prometheus" && d.uid === "${DS_PROMETHEUS}";
  const badDs = [];
  const exprs = [];
  for (const p of panels) {
    if (!dsOk(p.datasource)) badDs.push(`panel "${p.title}"`);
    if (!(p.targets || []).length) badDs.push(`panel "${p.title}" has no query`);
    for (const t of p.targets || []) {
      if (t.datasource && !dsOk(t.datasource)) badDs.push(`panel "${p.title}" query ${t.refId}`);
      exprs.push({ panel: p.title, refId: t.refId, expr: t.expr });
    }
  }
  for (const v of Object.values(vars)) if (v.type === "query" && !dsOk(v.datasource)) badDs.push(`variable ${v.name}`);
  check("every panel, query and query variable uses ${DS_PROMETHEUS}", !badDs.length, badDs.join("\n"));
  const ids = panels.map((p) => p.id);
  check("panel ids are unique", ids.every((id, i) => Number.isInteger(id) && ids.indexOf(id) === i), JSON.stringify(ids));
  const cells = new Map();
  const grid = [];
  for (const p of panels) {
    const g = p.gridPos || {};
    if (!(g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.y >= 0 && g.h > 0)) grid.push(`panel "${p.title}": gridPos ${JSON.stringify(g)}`);
    else for (let x = g.x; x < g.x + g.w; x++) for (let y = g.y; y < g.y + g.h; y++) {
      if (cells.has(`${x},${y}`)) grid.push(`panels "${cells.get(`${x},${y}`)}" and "${p.title}" overlap`);
      cells.set(`${x},${y}`, p.title);
    }
  }
  check("panels lie inside the 24-column grid and do not overlap", !grid.length, [...new Set(grid)].join("\n"));
  const metrics = docList(doc, "metrics");
  if (check("docs/deployment.md lists the metrics (<!-- metrics:begin/end -->)", metrics && metrics.length)) {
    const used = new Set(exprs.flatMap((e) => e.expr.match(/\bworkloadtruth_\w+/g) || []));
    for (const v of Object.values(vars)) for (const m of JSON.stringify(v.query || "").match(/\bworkloadtruth_\w+/g) || []) used.add(m);
    const unknown = [...used].filter((m) => !metrics.includes(m));
    check(`every metric the dashboard queries is documented (${used.size} used)`, !unknown.length, unknown.join("\n"));
  }

  // PromQL: promtool check rules parses each expression
  const promtool = which("promtool");
  if (promtool) {
    const subst = (e) => e.replace(/\$__rate_interval|\$__interval|\$__range/g, "5m").replace(/\$\{?(\w+)\}?/g, ".*");
    const rules = { groups: [{ name: "dashboard", rules: exprs.map((e, i) => ({ record: `workloadtruth:dashboard_query_${i}`, expr: subst(e.expr) })) }] };
    for (const v of Object.values(vars))
      if (v.type === "query") {
        const q = typeof v.query === "string" ? v.query : v.query.query;
        const m = /^label_values\(([\s\S]*),\s*\w+\s*\)$/.exec(q);
        if (m) rules.groups[0].rules.push({ record: `workloadtruth:variable_${v.name}`, expr: subst(m[1]) });
      }
    const f = path.join(TMP, "dashboard-rules.yml");
    fs.writeFileSync(f, YAML.stringify(rules));
    const r = run(promtool, ["check", "rules", f]);
    check(`promtool parses the dashboard's ${rules.groups[0].rules.length} PromQL expressions`, r.status === 0, r.stdout + r.stderr);
    const bad = path.join(TMP, "canary-rules.yml");
    fs.writeFileSync(bad, YAML.stringify({ groups: [{ name: "c", rules: [{ record: "c:x", expr: "sum by (gpu (workloadtruth_up)" }] }] }));
    check("canary: promtool rejects a broken PromQL expression", run(promtool, ["check", "rules", bad]).status !== 0);
  } else skip("PromQL parse of the dashboard's queries (promtool is not installed: apt-get install prometheus)");

  // Grafana's schema (TypeScript)
  const tsc = path.join(NM, "typescript/bin/tsc");
  // a scratch directory that sees this directory's node_modules
  const dir = path.join(TMP, "typecheck");
  fs.mkdirSync(dir);
  fs.symlinkSync(NM, path.join(dir, "node_modules"));
  fs.writeFileSync(path.join(dir, "dashboard.ts"), grafanaTypeCheckSource(dash));
  const broken = clone(dash);
  broken.panels[0].fieldConfg = {};
  broken.panels[0].options.legend.displayMode = "everywhere";
  broken.templating.list[0].refresh = 7;
  fs.writeFileSync(path.join(dir, "canary.ts"), grafanaTypeCheckSource(broken));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: [] },
    files: ["dashboard.ts", "canary.ts"],
  }));
  const r = run(process.execPath, [tsc, "-p", ".", "--pretty", "false"], { cwd: dir });
  const out = (r.stdout || "") + (r.stderr || "");
  const real = out.split("\n").filter((l) => l.startsWith("dashboard.ts") || (l && !l.startsWith("canary.ts") && !/^\s/.test(l)));
  check("the dashboard matches Grafana's dashboard and panel schemas (@grafana/schema, TypeScript)", !real.length && r.status !== null, real.join("\n") || r.error);
  const canary = out.split("\n").filter((l) => l.startsWith("canary.ts"));
  check("canary: the Grafana schema check rejects an unknown panel key, a bad legend mode and a bad refresh",
    canary.some((l) => /fieldConfg/.test(l)) && canary.some((l) => /everywhere/.test(l)) && canary.some((l) => /VariableRefresh/.test(l)), canary.join("\n"));
}

// Prometheus examples in docs/deployment.md: ```yaml blocks whose first line is
// "# prometheus.yml" (promtool check config) or "# rules.yml" (promtool check
// rules), and ```promql blocks (each expression after a comment line, parsed as
// a recording rule).
function promExamples(doc) {
  console.log("# Prometheus examples (docs/deployment.md)");
  const configs = [...doc.matchAll(/```yaml\n(# prometheus\.yml[^\n]*\n[\s\S]*?)```/g)].map((m) => m[1]);
  const rules = [...doc.matchAll(/```yaml\n(# rules\.yml[^\n]*\n[\s\S]*?)```/g)].map((m) => m[1]);
  const promql = [...doc.matchAll(/```promql\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1].split(/^#.*$/m).map((e) => e.trim()).filter(Boolean));
  check(`docs/deployment.md has Prometheus examples (${configs.length} configurations, ${rules.length} rule files, ${promql.length} queries)`,
    configs.length > 0 && rules.length > 0 && promql.length > 0);
  const metrics = docList(doc, "metrics") || [];
  const used = [...new Set([...rules, ...promql].join("\n").match(/\bworkloadtruth_\w+/g) || [])];
  const unknown = used.filter((m) => !metrics.includes(m));
  check(`every metric in the rules and query examples is documented (${used.length} used)`, !unknown.length, unknown.join("\n"));
  const promtool = which("promtool");
  if (!promtool) {
    skip("promtool check config / check rules (promtool is not installed: apt-get install prometheus)");
    return;
  }
  configs.forEach((b, i) => {
    const f = path.join(TMP, `prometheus-${i}.yml`);
    fs.writeFileSync(f, b);
    const r = run(promtool, ["check", "config", "--syntax-only", f]);
    const what = `promtool check config: ${b.split("\n")[0].slice(2)}`;
    // Debian's Prometheus is built without some service discoveries, Kubernetes' among them
    const m = /field (\w+_sd_configs) not found in type config.ScrapeConfig/.exec(r.stdout + r.stderr);
    if (r.status !== 0 && m) skip(`${what} (this promtool was built without ${m[1]})`);
    else check(what, r.status === 0, r.stdout + r.stderr);
  });
  rules.forEach((b, i) => {
    const f = path.join(TMP, `rules-${i}.yml`);
    fs.writeFileSync(f, b);
    const r = run(promtool, ["check", "rules", f]);
    check(`promtool check rules: ${b.split("\n")[0].slice(2)}`, r.status === 0, r.stdout + r.stderr);
    if (/WorkloadTruthAuditLogFailing/.test(b)) promtoolTestRules(promtool, f, "");
  });
  const f = path.join(TMP, "promql.yml");
  fs.writeFileSync(f, YAML.stringify({ groups: [{ name: "examples", rules: promql.map((expr, i) => ({ record: `workloadtruth:example_${i}`, expr })) }] }));
  const r = run(promtool, ["check", "rules", f]);
  check(`promtool parses the ${promql.length} PromQL examples`, r.status === 0, r.stdout + r.stderr);
}

// promtool test rules on a rule file that holds the documented alerts.
function promtoolTestRules(promtool, f, what) {
  // A textfile keeps a stopped agent's last values: workloadtruth_up 0 and
  // an old checkpoint time.  That is the stale-textfile warning's case, not
  // a critical audit-log failure nor a stalled sampler; an agent that runs
  // (up 1) with an old checkpoint or window is both.
  const t = f.replace(/\.yml$/, "-test.yml");
  const series = (up) => [
    { series: `workloadtruth_up{instance="n1",job="node"}`, values: `${up}x40` },
    { series: `workloadtruth_audit_last_checkpoint_timestamp_seconds{instance="n1",job="node"}`, values: "0x40" },
    { series: `workloadtruth_audit_append_errors_total{instance="n1",job="node"}`, values: "0x40" },
    { series: `workloadtruth_audit_dropped_records_total{instance="n1",job="node"}`, values: "0x40" },
    { series: `workloadtruth_gpu_last_window_timestamp_seconds{instance="n1",job="node",gpu="0",hostname="n1"}`, values: "0x40" },
  ];
  const alerts = (names) => names.map((alertname) => ({ eval_time: "20m", alertname, exp_alerts: [] }));
  const expect = (name, labels, ann) => ({ eval_time: "20m", alertname: name, exp_alerts: [{ exp_labels: labels, exp_annotations: ann || {} }] });
  fs.writeFileSync(t, YAML.stringify({
    rule_files: [path.basename(f)],
    evaluation_interval: "1m",
    tests: [
      { interval: "1m", input_series: series(0), alert_rule_test: [
        ...alerts(["WorkloadTruthAuditLogFailing", "WorkloadTruthSamplerStalled"]),
        // an agent that fails at every start rewrites its textfile (never
        // stale) with up 0: nothing fired for it before this alert
        expect("WorkloadTruthAgentFailing", { severity: "warning", instance: "n1", job: "node" },
          { summary: "n1: workloadtruth_up 0 for 15 minutes (the agent fails at every start: see its journal)" }),
      ] },
      { interval: "1m", input_series: series(1), alert_rule_test: [
        ...alerts(["WorkloadTruthAgentFailing"]),
        expect("WorkloadTruthAuditLogFailing", { severity: "critical", instance: "n1", job: "node" }),
        expect("WorkloadTruthSamplerStalled", { severity: "warning", instance: "n1", job: "node", gpu: "0", hostname: "n1" },
          { summary: "GPU 0 on n1: no window classified for 10 minutes (a hung driver call?)" }),
      ] },
    ],
  }));
  const u = run(promtool, ["test", "rules", t]);
  check(`promtool test rules${what}: a stopped agent's textfile (up 0) raises neither the audit-log nor the stalled-sampler alert, but the failing-agent one; a running one raises the first two, not the last`, u.status === 0, u.stdout + u.stderr);
}

// deploy/kubernetes/base/prometheusrule.yaml: its spec.groups are the rules.yml
// block of docs/deployment.md (parsed, so comments and quoting may differ, but
// no group, rule, field or value), and promtool accepts them as a rule file.
function firstDiff(a, b, where = "") {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDiff(a[k], b[k], `${where}/${k}`);
      if (d) return d;
    }
  }
  return `${where || "/"}: manifest ${JSON.stringify(a)}, docs ${JSON.stringify(b)}`;
}
function prometheusRule(doc, base) {
  console.log("# PrometheusRule (deploy/kubernetes/base/prometheusrule.yaml) and the documented rules");
  const prs = (base || []).filter((o) => o.kind === "PrometheusRule");
  const blocks = [...doc.matchAll(/```yaml\n(# rules\.yml: WorkloadTruth alerts\n[\s\S]*?)```/g)].map((m) => m[1]);
  if (!check(`base/ has one PrometheusRule, docs/deployment.md one "# rules.yml: WorkloadTruth alerts" block (${prs.length}, ${blocks.length})`,
    prs.length === 1 && blocks.length === 1)) return;
  const pr = prs[0];
  let docRules;
  try {
    docRules = YAML.parse(blocks[0]) || {};
  } catch (e) {
    fail("the documented rules.yml parses", e.message);
    return;
  }
  const spec = pr.spec || {};
  const keys = Object.keys(spec).join(",");
  check("the PrometheusRule's spec holds groups only", keys === "groups", `spec keys: ${keys}`);
  const same = (groups) => firstDiff(sortKeys(groups), sortKeys((docRules || {}).groups));
  const d = same(spec.groups);
  check(`the PrometheusRule's spec.groups are the documented rules.yml's groups (${(docRules.groups || []).length} groups, ` +
    `${(docRules.groups || []).flatMap((g) => g.rules || []).length} rules)`, Object.keys(docRules).join(",") === "groups" && !d,
    d || `rules.yml keys: ${Object.keys(docRules)}`);
  if (docRules.groups && docRules.groups[0] && (docRules.groups[0].rules || [])[0]) {
    const drift = clone(docRules.groups);
    drift[0].rules[0].for = "16m";
    check("canary: the comparison reports a rule that differs from the documented one", same(drift));
  }
  const promtool = which("promtool");
  if (!promtool) {
    skip("promtool check rules on the PrometheusRule's spec (promtool is not installed: apt-get install prometheus)");
    return;
  }
  const f = path.join(TMP, "prometheusrule-spec.yml");
  fs.writeFileSync(f, YAML.stringify({ groups: spec.groups }));
  const r = run(promtool, ["check", "rules", f]);
  check("promtool check rules: the PrometheusRule's spec", r.status === 0, r.stdout + r.stderr);
  promtoolTestRules(promtool, f, " (the PrometheusRule's spec)");
}

// ---------------------------------------------------------------------------
// The real exporter (and a real Prometheus)

function waitFor(pred, ms, step = 200) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    (async function loop() {
      let v = null;
      try {
        v = await pred();
      } catch {}
      if (v) return resolve(v);
      if (Date.now() - t0 > ms) return resolve(null);
      setTimeout(loop, step);
    })();
  });
}
async function get(url) {
  const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: r.status, type: r.headers.get("content-type") || "", text: await r.text() };
}
function freePort() {
  return new Promise((resolve, reject) => {
    import("node:net").then(({ default: net }) => {
      const srv = net.createServer();
      srv.listen(0, "127.0.0.1", () => {
        const p = srv.address().port;
        srv.close(() => resolve(p));
      });
      srv.on("error", reject);
    });
  });
}
function stop(child, ms = 10000) {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve(child ? child.exitCode : null);
    const t = setTimeout(() => child.kill("SIGKILL"), ms);
    child.once("exit", (code, sig) => {
      clearTimeout(t);
      resolve(sig ? sig : code);
    });
    child.kill("SIGTERM");
  });
}
// Label names a PromQL expression, a legend or a variable query refers to.
function labelRefs(text) {
  const out = new Set();
  for (const m of text.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g))
    for (const l of m[1].split(",").map((x) => x.trim()).filter(Boolean)) out.add(l);
  for (const m of text.matchAll(/\{([^{}]*)\}/g))
    for (const mm of m[1].matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)) out.add(mm[1]);
  for (const m of text.matchAll(/\{\{\s*([A-Za-z_]\w*)\s*\}\}/g)) out.add(m[1]);
  for (const m of text.matchAll(/label_values\([\s\S]*,\s*([A-Za-z_]\w*)\s*\)/g)) out.add(m[1]);
  return out;
}
function toPrometheusRelabel(r) {
  const o = {};
  for (const [k, v] of Object.entries(r))
    o[{ sourceLabels: "source_labels", targetLabel: "target_label" }[k] || k] = v;
  return o;
}

async function liveExporter(doc, dash, sm, policy) {
  console.log(`# the real exporter (${rel(WT)})`);
  const logDir = path.join(TMP, "log");
  const { spawn } = await import("node:child_process");
  const args = ["watch", "--backend", "synthetic", "--profile", "training", "--window", "10", "--interval", "0",
    "--pace", "0.5", "--listen", "127.0.0.1:0", "--log-dir", logDir, "--declared", "inference"];
  if (policy) {
    fs.writeFileSync(path.join(TMP, "policy"), policy);
    args.push("--policy", path.join(TMP, "policy"));
  } else fail("the real exporter: no documented policy to run it with");
  const wt = spawn(WT, args, { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  wt.stderr.on("data", (d) => { err += d; });
  let prom = null;
  try {
    const port = await waitFor(() => wt.exitCode !== null ? "exited" : (/serving metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics/.exec(err) || [])[1], 20000, 100);
    if (port === "exited") {
      fail("watch --listen 127.0.0.1:0 --policy (the documented policy) starts serving", err);
      return;
    }
    if (!check("watch --listen 127.0.0.1:0 --policy (the documented policy) starts serving", port, err)) return;
    const base = `http://127.0.0.1:${port}`;
    // the port is served before the log is open (/healthz is 503 until it
    // is) and before the first window is classified (the class and verdict
    // series appear then): on a loaded machine, wait for both, at most 30 s
    let h = null;
    await waitFor(async () => {
      h = await get(`${base}/healthz`);
      return h.status === 200 && h.text.trim() === "ok";
    }, 30000, 100);
    check("/healthz: 200 ok", h && h.status === 200 && h.text.trim() === "ok", h ? `${h.status} ${h.text}` : "no answer");
    let m = null;
    const classified = await waitFor(async () => {
      m = await get(`${base}/metrics`);
      return m.status === 200 && /^workloadtruth_gpu_declaration_verdict\{/m.test(m.text);
    }, 30000, 100);
    if (!check("/metrics: a classified window within 30 s", classified && m, m ? `${m.status}\n${m.text.slice(0, 400)}` : "no answer")) return;
    check("/metrics: 200, text/plain; version=0.0.4", m.status === 200 && m.type.startsWith("text/plain; version=0.0.4"), `${m.status} ${m.type}`);
    check("/: 200, a landing page", (await get(`${base}/`)).status === 200);
    const families = [...m.text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((x) => x[1]);
    const documented = docList(doc, "metrics") || [];
    const notDoc = families.filter((f) => !documented.includes(f));
    const notExp = documented.filter((f) => !families.includes(f));
    check(`the exporter serves exactly the documented metric families (${families.length})`, !notDoc.length && !notExp.length,
      `served, not documented: ${notDoc.join(" ")}\ndocumented, not served: ${notExp.join(" ")}`);
    const labels = new Set(["instance", "job", "node", "__name__"]);
    for (const x of m.text.matchAll(/^\w+\{([^}]*)\}/gm)) for (const l of x[1].matchAll(/(\w+)="/g)) labels.add(l[1]);
    const refs = new Set();
    for (const p of dash.panels || []) for (const t of p.targets || []) for (const l of labelRefs(`${t.expr} ${t.legendFormat || ""}`)) refs.add(l);
    for (const v of (dash.templating || {}).list || []) if (v.type === "query") for (const l of labelRefs(String(v.query))) refs.add(l);
    const missing = [...refs].filter((l) => !labels.has(l));
    check(`every label the dashboard uses is served (${refs.size}: ${[...refs].sort().join(", ")})`, !missing.length, `not served: ${missing.join(", ")}`);

    const prometheus = which("prometheus");
    if (!prometheus) {
      skip("a real Prometheus scraping the exporter (prometheus is not installed: apt-get install prometheus)");
      return;
    }
    // the ServiceMonitor's endpoint, as a static scrape job with the target
    // labels the Prometheus Operator would add (its own __meta_ relabelings
    // need Kubernetes service discovery)
    const ep = sm.spec.endpoints[0];
    const rules = [...doc.matchAll(/```yaml\n(# rules\.yml[^\n]*\n[\s\S]*?)```/g)].map((x) => x[1]);
    const ruleFiles = rules.map((r, i) => {
      const f = path.join(TMP, `live-rules-${i}.yml`);
      fs.writeFileSync(f, r);
      return f;
    });
    const pport = await freePort();
    const cfg = {
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: ruleFiles,
      scrape_configs: [{
        job_name: "workloadtruth",
        metrics_path: ep.path || "/metrics",
        static_configs: [{ targets: [`127.0.0.1:${port}`], labels: { node: "node-a", pod: "workloadtruth-x1", namespace: "workloadtruth", container: "workloadtruth" } }],
        relabel_configs: (ep.relabelings || []).filter((r) => !(r.sourceLabels || []).some((l) => l.startsWith("__meta_"))).map(toPrometheusRelabel),
        metric_relabel_configs: (ep.metricRelabelings || []).map(toPrometheusRelabel),
      }],
    };
    const cfile = path.join(TMP, "prometheus.yml");
    fs.writeFileSync(cfile, YAML.stringify(cfg));
    prom = spawn(prometheus, [`--config.file=${cfile}`, `--storage.tsdb.path=${path.join(TMP, "tsdb")}`,
      `--web.listen-address=127.0.0.1:${pport}`], { stdio: ["ignore", "ignore", "pipe"] });
    let plog = "";
    prom.stderr.on("data", (d) => { plog = (plog + d).slice(-4000); });
    const api = `http://127.0.0.1:${pport}`;
    const ready = await waitFor(async () => (await get(`${api}/-/ready`)).status === 200, 60000, 500);
    if (!check("Prometheus (with the ServiceMonitor's relabelings and the documented rules) starts", ready, plog)) return;
    const query = async (q) => JSON.parse((await get(`${api}/api/v1/query?query=${encodeURIComponent(q)}`)).text);
    const scraped = await waitFor(async () => {
      const r = await query("count_over_time(workloadtruth_up[1m]) >= 4");
      return r.status === "success" && r.data.result.length > 0;
    }, 40000, 500);
    if (!check("Prometheus scrapes the exporter", scraped, plog)) return;
    const subst = (e) => e.replace(/\$__rate_interval/g, "1m").replace(/\$\{?(\w+)\}?/g, ".*");
    const empty = [];
    for (const p of dash.panels || [])
      for (const t of p.targets || []) {
        const r = await query(subst(t.expr));
        if (r.status !== "success" || !r.data.result.length) empty.push(`"${p.title}" ${t.refId}: ${JSON.stringify(r).slice(0, 300)}`);
      }
    check("every dashboard query returns data", !empty.length, empty.join("\n"));
    const varsEmpty = [];
    for (const v of (dash.templating || {}).list || []) {
      if (v.type !== "query") continue;
      const mm = /^label_values\(([\s\S]*),\s*(\w+)\s*\)$/.exec(String(v.query));
      const r = mm && (await query(subst(mm[1])));
      if (!r || r.status !== "success" || !r.data.result.some((s) => s.metric[mm[2]])) varsEmpty.push(v.name);
    }
    check("every dashboard variable has values", !varsEmpty.length, varsEmpty.join(", "));
    const cls = await query(subst(dash.panels.find((p) => p.type === "state-timeline").targets[0].expr));
    const okCls = cls.status === "success" && cls.data.result.length === 1 && ["0", "1", "2", "3"].includes(cls.data.result[0].value[1]);
    check("\"Workload class over time\": one row for the GPU, a class code 0..3", okCls, JSON.stringify(cls).slice(0, 400));
    const host = await query('count by (hostname) ({__name__=~"workloadtruth_.+"})');
    const hosts = host.status === "success" ? host.data.result.map((r) => r.metric.hostname) : [];
    check("the ServiceMonitor's relabelings name the node in hostname, on every series", hosts.length === 1 && hosts[0] === "node-a", JSON.stringify(hosts));
    const noPod = await query('count({__name__=~"workloadtruth_.+", pod!=""}) or count({__name__=~"workloadtruth_.+", exported_pod!=""})');
    check("the agent's own pod/namespace/container target labels are dropped (an idle GPU's owner labels stay empty)",
      noPod.status === "success" && noPod.data.result.length === 0, JSON.stringify(noPod).slice(0, 300));
    const evaluated = await waitFor(async () => {
      const r = JSON.parse((await get(`${api}/api/v1/rules`)).text);
      const all = r.data.groups.flatMap((g) => g.rules);
      return all.length && all.every((x) => x.lastEvaluation && !x.lastEvaluation.startsWith("0001")) ? all : null;
    }, 20000, 500);
    const bad = (evaluated || []).filter((x) => x.health !== "ok").map((x) => `${x.name}: ${x.health} ${x.lastError || ""}`);
    check(`the documented alerting rules evaluate without error (${(evaluated || []).length})`, evaluated && !bad.length, bad.join("\n") || "not evaluated");
  } finally {
    await stop(prom);
    const code = await stop(wt);
    check("watch exits 0 on SIGTERM", code === 0, `exit ${code}\n${err.slice(-1000)}`);
  }
}

// ---------------------------------------------------------------------------
const doc = fs.existsSync(DOC) ? fs.readFileSync(DOC, "utf8") : "";
check("docs/deployment.md exists", doc.length > 0);
const renderedBase = await kubernetes();
const policy = await docsKubernetes(doc, renderedBase);
dashboard(doc);
promExamples(doc);
prometheusRule(doc, renderedBase);
if (WT) {
  let dash = null;
  try {
    dash = JSON.parse(fs.readFileSync(DASHBOARD, "utf8"));
  } catch {}
  const sm = (renderedBase || []).find((o) => o.kind === "ServiceMonitor");
  if (dash && sm) await liveExporter(doc, dash, sm, policy);
  else fail("the real exporter: the dashboard or the ServiceMonitor did not load");
} else skip("the real exporter (no WORKLOADTRUTH argument)");
console.log(`validate.mjs: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
