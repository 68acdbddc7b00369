import type { Block, Range } from '../../hcl/index.js';
import type { AttrReader, LoadScope } from './attr-reader.js';
import { ReusableBackends, selfContained } from './backend-reuse.js';
import { buildModifiers, invalid, logFields, NO_MODIFIERS, single } from './build-common.js';
import { headerRange, plainRange, where } from './diagnostics.js';
import type { FileChecks } from './file-checks.js';
import { backendFor, checkSingleBackend, offOriginProblem, readHttpUrl, readOAuth2Client } from './build-oauth2.js';
import type { BackendConfig, BackendOAuth2Config, BackendOpenApiConfig, Dyn, HealthConfig } from './model.js';
import { readOpenApiFile } from '../openapi/openapi-file.js';
import { parseUrl } from '../../core/parse-url.js';

const LABEL = /^[a-zA-Z0-9_]+$/;
const SECONDS = 1000;

/**
 * Every backend of the configuration by name: `definitions` backends by label, inline
 * ones (a `backend {}` block or just a `url` in a proxy/request) as
 * `anonymous_<line>_<col>` of the block, the name the reference's backend log lines use.
 */
export class Backends {
  readonly byName: Record<string, BackendConfig> = {};
  /** Labels of definitions backends, known before they are built (an oauth2 block may name a later one). */
  private readonly declared = new Set<string>();
  /** What the next load may take from this one. */
  private readonly kept = ReusableBackends.builder();
  /** Backends taken from the previous load instead of built. */
  reusedCount = 0;

  constructor(
    private readonly scope: LoadScope,
    private readonly files: FileChecks,
    /** The previous load's reusable backends. */
    private readonly previous: ReusableBackends = ReusableBackends.EMPTY,
  ) {}

  /** The table of this load's backends that the next load may take. */
  reusable(): ReusableBackends {
    return this.kept.build();
  }

  /** Reads the labelled backends of the merged `definitions` block. */
  define(definitions: Block | undefined): void {
    const seen = new Map<string, Range>();
    for (const block of definitions?.body.blocks ?? []) {
      const label = block.labels[0] ?? '';
      if (block.type === 'backend' && LABEL.test(label) && !label.startsWith('anonymous_')) this.declared.add(label);
    }
    for (const block of definitions?.body.blocks ?? []) {
      if (block.type !== 'backend') continue;
      const label = block.labels[0] ?? '';
      const labelRange = block.labelRanges[0] ?? block.typeRange;
      if (!LABEL.test(label)) {
        this.scope.diags.error('Invalid backend label', "label contains invalid character(s), allowed are 'a-z', 'A-Z', '0-9' and '_'", labelRange);
        continue;
      }
      if (label.startsWith('anonymous_')) {
        this.scope.diags.error('Invalid backend label', "backend label must not start with 'anonymous_': that prefix names inline backends", labelRange);
        continue;
      }
      const previous = seen.get(label);
      if (previous) {
        this.scope.diags.error('Duplicate backend', `backend labels must be unique: "${label}" is already defined at ${where(previous)}.`, labelRange);
        continue;
      }
      seen.set(label, labelRange);
      this.byName[label] = this.defined(label, block);
    }
  }

  /** A definitions backend: the previous load's when its block is the same, else built (and kept when self-contained). */
  private defined(label: string, block: Block): BackendConfig {
    const reused = this.previous.find(label, block);
    if (reused !== undefined) {
      this.reusedCount += 1;
      this.kept.carry(label, reused);
      return reused.backend;
    }
    const diagnostics = this.scope.diags.list.length;
    const checkedFiles = this.files.count;
    const backend = this.build(label, false, block);
    if (this.scope.diags.list.length === diagnostics && this.files.count === checkedFiles && selfContained(block)) this.kept.keep(label, block, backend);
    return backend;
  }

  isDefined(name: string): boolean {
    return Object.hasOwn(this.byName, name) || this.declared.has(name);
  }

  /**
   * Once every backend is built: a token request must go where its backend's origin says, and
   * a backend whose token requests lead back to itself would ask for a token forever.
   */
  checkTokenRequests(): void {
    for (const start of Object.values(this.byName)) {
      if (!start.oauth2) continue;
      const { backend, tokenEndpoint, tokenEndpointRange } = start.oauth2;
      const problem = offOriginProblem(this.byName[backend]?.origin, backend, new URL(tokenEndpoint));
      if (problem !== null) this.scope.diags.error('Invalid attribute value', `Invalid value for attribute "token_endpoint": ${problem}.`, tokenEndpointRange);
      const seen = [start.name];
      for (let next: string | undefined = start.oauth2.backend; next !== undefined; next = this.byName[next]?.oauth2?.backend) {
        if (next !== start.name) {
          if (seen.includes(next)) break;
          seen.push(next);
          continue;
        }
        this.scope.diags.error('Circular token request', `The oauth2 token requests of backend "${start.name}" lead back to it (${[...seen, next].join(' → ')}); give the oauth2 block a backend of its own.`, start.oauth2?.range);
        break;
      }
    }
  }

  /** An inline `backend {}` block; returns its name. */
  inline(block: Block): string {
    const name = this.anonymousName(block.typeRange);
    this.byName[name] = this.build(name, true, block);
    return name;
  }

  /** A backend made from a proxy/request `url` alone; its origin is the url's, or null when the url is per request. */
  fromUrl(owner: Block, origin: string | null): string {
    const name = this.anonymousName(owner.typeRange);
    this.byName[name] = { ...defaultsFor(name, headerRange(owner)), origin };
    return name;
  }

  private anonymousName(at: Range): string {
    const base = `anonymous_${at.start.line}_${at.start.column}`;
    // Blocks at the same place in two merged files would collide; the later gets a suffix.
    let name = base;
    for (let n = 2; this.isDefined(name); n++) name = `${base}_${n}`;
    return name;
  }

  private build(name: string, anonymous: boolean, block: Block): BackendConfig {
    const r = this.scope.reader(block.body, 'backend');
    const d = defaultsFor(name, headerRange(block));
    const maxConnections = r.value<number>('max_connections') ?? 0;
    if (maxConnections < 0) invalid(r, this.scope, 'max_connections', `must not be negative, got ${maxConnections}`);
    const proxy = r.value<string>('proxy') ?? null;
    if (proxy !== null && parseUrl(proxy) === null) invalid(r, this.scope, 'proxy', `${JSON.stringify(proxy)} is not a URL`);
    return {
      ...d,
      anonymous,
      origin: this.origin(r),
      hostname: r.dyn<string>('hostname') ?? null,
      path: r.dyn<string>('path') ?? null,
      pathPrefix: r.dyn<string>('path_prefix') ?? null,
      basicAuth: r.dyn<string>('basic_auth') ?? null,
      connectTimeout: r.value<number>('connect_timeout') ?? d.connectTimeout,
      timeout: r.value<number>('timeout') ?? d.timeout,
      ttfbTimeout: r.value<number>('ttfb_timeout') ?? d.ttfbTimeout,
      disableCertificateValidation: r.value<boolean>('disable_certificate_validation') ?? false,
      disableConnectionReuse: r.value<boolean>('disable_connection_reuse') ?? false,
      http2: r.value<boolean>('http2') ?? false,
      maxConnections: Math.max(maxConnections, 0),
      proxy,
      useWhenUnhealthy: r.value<boolean>('use_when_unhealthy') ?? false,
      caFile: this.files.path(r, 'ca_file', 'pem'),
      noProxyFromEnv: r.value<boolean>('no_proxy_from_env') ?? null,
      customLogFields: logFields(r, []),
      modifiers: buildModifiers(r),
      health: this.health(single(block.body.blocks, 'beta_health', this.scope)),
      oauth2: this.oauth2(single(block.body.blocks, 'oauth2', this.scope)),
      openapi: this.openapi(single(block.body.blocks, 'openapi', this.scope)),
    };
  }

  /** `oauth2` (client credentials): the token request goes to its own backend, by default one of the token endpoint's origin. */
  private oauth2(block: Block | undefined): BackendOAuth2Config | null {
    if (!block) return null;
    const r = this.scope.reader(block.body, 'oauth2');
    const grantType = r.value<string>('grant_type');
    if (grantType !== undefined && grantType !== 'client_credentials') invalid(r, this.scope, 'grant_type', `${JSON.stringify(grantType)} is not supported in a backend; use "client_credentials"`);
    const tokenEndpoint = readHttpUrl(r, this.scope, 'token_endpoint');
    const retries = r.value<number>('retries') ?? 1;
    if (retries < 0) invalid(r, this.scope, 'retries', `must not be negative, got ${retries}`);
    const client = readOAuth2Client(r, this.scope);
    if (!checkSingleBackend(block, r, this.scope) || tokenEndpoint === null) return null;
    const backend = backendFor(block, r, { scope: this.scope, backends: this }, 'backend', null, tokenEndpoint.origin);
    if (backend === null) return null;
    const tokenEndpointRange = r.attr('token_endpoint')!.expr.range;
    return { range: headerRange(block), tokenEndpoint: tokenEndpoint.href, tokenEndpointRange, backend, client, retries: Math.max(retries, 0) };
  }

  /** `openapi`: the file is read and parsed now, so every load (a reload too) sees its current content. */
  private openapi(block: Block | undefined): BackendOpenApiConfig | null {
    if (!block) return null;
    const r = this.scope.reader(block.body, 'openapi');
    const file = this.files.path(r, 'file', 'file');
    const fileRange = r.attr('file')?.expr.range;
    if (file === null || !fileRange) return null;
    const read = readOpenApiFile(file);
    if (!read.ok) {
      this.scope.diags.error('Invalid OpenAPI file', read.problem, fileRange);
      return null;
    }
    return {
      range: headerRange(block),
      file,
      fileRange: plainRange(fileRange),
      document: read.document,
      ignoreRequestViolations: r.value<boolean>('ignore_request_violations') ?? false,
      ignoreResponseViolations: r.value<boolean>('ignore_response_violations') ?? false,
    };
  }

  /** `scheme://host[:port]`: http or https, nothing after the authority (that is what path_prefix is for). */
  private origin(r: AttrReader): string | null {
    const text = r.value<string>('origin');
    if (text === undefined) return null;
    const range = r.attr('origin')?.expr.range;
    const url = parseUrl(text);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
      this.scope.diags.error('Invalid backend.origin value', `valid http scheme required for origin: ${JSON.stringify(text)}; write http://host[:port] or https://host[:port].`, range);
      return null;
    }
    if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      this.scope.diags.error('Invalid backend.origin value', `origin must be scheme://host[:port] only, got ${JSON.stringify(text)}; use path_prefix for a path and basic_auth for credentials.`, range);
      return null;
    }
    return url.origin;
  }

  private health(block: Block | undefined): HealthConfig | null {
    if (!block) return null;
    const r = this.scope.reader(block.body, 'beta_health');
    const interval = r.value<number>('interval') ?? 2 * SECONDS;
    const failureThreshold = r.value<number>('failure_threshold') ?? 2;
    if (failureThreshold < 0) invalid(r, this.scope, 'failure_threshold', `must not be negative, got ${failureThreshold}`);
    const path = r.value<string>('path') ?? null;
    if (path !== null && !path.startsWith('/')) invalid(r, this.scope, 'path', `a path must start with "/", got ${JSON.stringify(path)}`);
    return {
      expectedStatus: r.value<number[]>('expected_status') ?? [200, 204, 301],
      expectedText: r.value<string>('expected_text') ?? null,
      failureThreshold: Math.max(failureThreshold, 0),
      headers: r.value<Record<string, string>>('headers') ?? {},
      interval,
      path,
      // The spec bounds a check by its interval, so checks never overlap.
      timeout: Math.min(r.value<number>('timeout') ?? 2 * SECONDS, interval),
    };
  }
}

function defaultsFor(name: string, range: Range): BackendConfig {
  const none = null as Dyn<string> | null;
  return {
    name,
    anonymous: true,
    range,
    origin: null,
    hostname: none,
    path: none,
    pathPrefix: none,
    basicAuth: none,
    connectTimeout: 10 * SECONDS,
    timeout: 300 * SECONDS,
    ttfbTimeout: 60 * SECONDS,
    disableCertificateValidation: false,
    disableConnectionReuse: false,
    http2: false,
    maxConnections: 0,
    proxy: null,
    useWhenUnhealthy: false,
    caFile: null,
    noProxyFromEnv: null,
    customLogFields: [],
    modifiers: NO_MODIFIERS,
    health: null,
    oauth2: null,
    openapi: null,
  };
}
