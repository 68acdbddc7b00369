// Parses and evaluates a generated ~10,000-line gateway config with the compiled HCL
// library (build first: npx tsc -b daemon), next to JSON.parse of an equivalent document.
import { performance } from 'node:perf_hooks';
import { evaluate, parse } from '../../../daemon/dist/hcl/index.js';

const TARGET_LINES = Number(process.env.BENCH_LINES ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);

/** One server with apis, endpoints, backends, templates and function calls; returns [hcl, jsonValue]. */
function server(i) {
  const lines = [];
  const json = { hosts: [`*:${8000 + i}`], apis: [] };
  lines.push(`server "s${i}" {`, `  hosts = ["*:${8000 + i}"]`, `  base_path = "/v\${1 + ${i}}"`, '  # a comment', '  api {', `    base_path = "/api${i}"`, '    access_control = ["token"]');
  for (let e = 0; e < 6; e++) {
    lines.push(
      `    endpoint "/items${e}/{id}" {`,
      '      allowed_methods = ["GET", "POST"]',
      '      proxy {',
      `        url = "https://backend${e}.internal:8443/items/\${request.path_params.id}"`,
      '        backend {',
      `          origin = "https://backend${e}.internal:8443"`,
      '          timeout = "30s"',
      `          set_request_headers = { x-trace = "t-\${request.id}", x-num = ${e} * 2 + 1 }`,
      '        }',
      '      }',
      '      response {',
      '        status = 200',
      `        json_body = { id = to_upper(request.path_params.id), tags = [for t in ["a", "b", "c"]: "\${t}${e}" if t != "b"], ok = ${e} > 2 ? true : false }`,
      '        body = <<-EOT',
      `          hello %{ if ${e} > 1 }many%{ else }few%{ endif } \${join(",", ["x", "y"])}`,
      '        EOT',
      '      }',
      '    }',
    );
    json.apis.push({ path: `/items${e}/{id}`, methods: ['GET', 'POST'], url: `https://backend${e}.internal:8443/items/{id}`, backend: { origin: `https://backend${e}.internal:8443`, timeout: '30s', headers: { 'x-trace': 't-{id}', 'x-num': e * 2 + 1 } }, response: { status: 200, body: { id: 'X', tags: ['a', 'c'], ok: e > 2 } } });
  }
  lines.push('  }', '}', '');
  return [lines, json];
}

const hclLines = ['definitions {', '  backend "b" {', '    origin = "https://example.com"', '  }', '}', 'settings { log_format = "json" }', ''];
const jsonDoc = { servers: [] };
for (let i = 0; hclLines.length < TARGET_LINES; i++) {
  const [lines, json] = server(i);
  hclLines.push(...lines);
  jsonDoc.servers.push(json);
}
const source = hclLines.join('\n');
const jsonText = JSON.stringify(jsonDoc, null, 2);
const lineCount = hclLines.length;
const variables = { request: { id: 'r1', path_params: { id: 'abc' } }, env: {} };

function evaluateBody(body) {
  let n = 0;
  for (const attr of Object.values(body.attributes)) {
    evaluate(attr.expr, variables);
    n++;
  }
  for (const block of body.blocks) n += evaluateBody(block.body);
  return n;
}

/** Median and fastest of RUNS timings: the median is the figure; the minimum shows the floor on a busy machine. */
function time(fn) {
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], min: samples[0] };
}

const check = parse(source, 'bench.hcl');
if (check.diagnostics.length > 0) throw new Error(`generated config has errors: ${check.diagnostics[0].summary}`);
const attrs = evaluateBody(check.body);
for (let i = 0; i < 5; i++) evaluateBody(parse(source, 'bench.hcl').body); // warm-up

const parseMs = time(() => parse(source, 'bench.hcl'));
const bothMs = time(() => evaluateBody(parse(source, 'bench.hcl').body));
const jsonMs = time(() => JSON.parse(jsonText));
const fmt = (ms) => `${ms.toFixed(2)} ms`;
const row = (label, t) => `  ${label} ${fmt(t.median).padStart(10)}  ${Math.round(lineCount / (t.median / 1000)).toLocaleString('en-US')} lines/s  (fastest run ${fmt(t.min)})`;
console.log(`HCL config: ${lineCount} lines, ${source.length} bytes, ${attrs} attributes evaluated (median of ${RUNS} runs)`);
console.log(row('parse           ', parseMs));
console.log(row('parse + evaluate', bothMs));
console.log(`  JSON.parse of an equivalent document (${jsonText.split('\n').length} lines, ${jsonText.length} bytes): ${fmt(jsonMs.median)}`);
console.log(`  ratio parse / JSON.parse: ${(parseMs.median / jsonMs.median).toFixed(1)}x; parse+evaluate / JSON.parse: ${(bothMs.median / jsonMs.median).toFixed(1)}x`);
console.log(`  target: 10,000 lines well under 100 ms -> ${bothMs.median < 100 ? 'met' : 'NOT met'}`);
