import type { Block, Diagnostic } from '../../hcl/index.js';
import { VERSION } from '../../core/version.js';
import { LoadScope } from './attr-reader.js';
import { accessControlLabels, buildAccessDefinitions, loginControlKinds } from './build-access.js';
import { ReusableBackends } from './backend-reuse.js';
import { Backends } from './build-backends.js';
import { buildServer } from './build-servers.js';
import { buildSettings } from './build-settings.js';
import { checkStructure } from './check-structure.js';
import { Diagnostics } from './diagnostics.js';
import { buildEnvironment } from './environment.js';
import { FileChecks } from './file-checks.js';
import { checkServerHosts } from './hosts.js';
import { checkDevProxyPorts } from './https-dev-proxy.js';
import { mergeFiles } from './merge.js';
import { checkOpenApiDocuments } from '../openapi/check-documents.js';
import type { GatewayConfig } from './model.js';
import { readSources, type SourceFile } from './read-sources.js';

export interface LoadResult {
  /** Null when any diagnostic is an error: a bad configuration never half-loads. */
  readonly config: GatewayConfig | null;
  /** Every problem found, in file order then position (problems without a position first). */
  readonly diagnostics: readonly Diagnostic[];
  /** Each configuration file read, with the SHA-256 of its bytes. */
  readonly sources: readonly SourceFile[];
  /** Every file the configuration names (error files, document roots, CA files...), found or not; empty when the load stopped before reading them. */
  readonly referencedFiles: readonly string[];
  /** The text of each configuration file as it was read: what the diagnostics' positions point into. */
  readonly texts: ReadonlyMap<string, string>;
  /**
   * What the next load may take from this one (give it as `reuse`): this load's self-contained
   * definitions backends; after a failed load, the table it was given.
   */
  readonly reusable: ReusableBackends;
  /** How many definitions backends this load took from `reuse` instead of building them. */
  readonly reusedBackends: number;
}

export interface LoadOptions {
  /**
   * The text of configuration files by path, used instead of reading them (a gateway serving
   * process loads exactly what the daemon validated). Files they name are read as usual.
   */
  readonly texts?: ReadonlyMap<string, string>;
  /** The previous load's `reusable`: its unchanged backends are taken as they are (see ReusableBackends). */
  readonly reuse?: ReusableBackends;
}

/**
 * Loads configuration files (a directory stands for its `*.hcl` files in name order) into
 * one immutable, typed GatewayConfig: read, parse, check structure per file, merge in
 * order, build `env`, then build and check the model. Every problem is collected; syntax
 * and structure errors stop before the merge, since the rest would be guesswork.
 */
export async function loadGatewayConfig(files: readonly string[], env: Readonly<Record<string, string | undefined>>, options: LoadOptions = {}): Promise<LoadResult> {
  const diags = new Diagnostics();
  const previous = options.reuse ?? ReusableBackends.EMPTY;
  const { files: parsed, sources, texts } = readSources(files, diags, options.texts);
  if (files.length === 0) diags.error('no configuration file given', '');
  for (const file of parsed) if (file.clean) diags.add(checkStructure(file.body));
  const result = (config: GatewayConfig | null, referencedFiles: readonly string[], backends?: Backends): LoadResult => ({
    config,
    diagnostics: sortDiagnostics(diags.list, sources.map((s) => s.path)),
    sources,
    referencedFiles,
    texts,
    reusable: config !== null && backends ? backends.reusable() : previous,
    reusedBackends: backends?.reusedCount ?? 0,
  });
  if (diags.hasErrors) return result(null, []);

  const bodies = parsed.map((f) => f.body);
  const merged = mergeFiles(bodies, diags);
  const scope = new LoadScope(diags, buildEnvironment(merged.envDefaults, env, bodies, VERSION, diags), VERSION);
  const fileChecks = new FileChecks(diags);
  const top = (type: string): Block | undefined => merged.body.blocks.find((b) => b.type === type);
  const settings = buildSettings(top('settings'), scope, fileChecks);
  const backends = new Backends(scope, fileChecks, previous);
  backends.define(top('definitions'));
  scope.accessControlLabels = accessControlLabels(top('definitions'));
  scope.loginControls = loginControlKinds(top('definitions'));
  const access = buildAccessDefinitions(top('definitions'), { scope, backends, files: fileChecks });
  scope.signingProfileLabels = new Set(Object.keys(access.signingProfiles));
  const serverBlocks = merged.body.blocks.filter((b) => b.type === 'server');
  if (serverBlocks.length === 0) diags.error("missing 'server' block", '');
  const built = serverBlocks.map((block) => buildServer(block, settings.defaultPort, { scope, backends, files: fileChecks }));
  checkServerHosts(built.map((b) => b.hosts), scope);
  checkDevProxyPorts(settings.httpsDevProxy, built.map((b) => b.hosts), scope);
  backends.checkTokenRequests();
  await checkOpenApiDocuments(backends.byName, diags);
  if (diags.hasErrors) return result(null, fileChecks.referenced, backends);

  const config: GatewayConfig = {
    version: VERSION,
    settings,
    env: { ...readEnv(scope) },
    servers: built.map((b) => b.server),
    backends: backends.byName,
    referencedFiles: fileChecks.referenced,
    accessControls: access.accessControls,
    signingProfiles: access.signingProfiles,
  };
  return result(deepFreeze(config), config.referencedFiles, backends);
}

function readEnv(scope: LoadScope): Record<string, string> {
  const env = scope.variables['env'] as Map<string, string>;
  return Object.fromEntries(env);
}

/** Positionless first (they concern the whole load), then by file in load order, then by position. */
function sortDiagnostics(list: readonly Diagnostic[], files: readonly string[]): Diagnostic[] {
  const fileIndex = (name: string): number => {
    const i = files.indexOf(name);
    return i === -1 ? files.length : i;
  };
  return [...list].sort((a, b) => {
    if (!a.range || !b.range) return (a.range ? 1 : 0) - (b.range ? 1 : 0);
    return fileIndex(a.range.filename) - fileIndex(b.range.filename) || a.range.filename.localeCompare(b.range.filename) || a.range.start.byte - b.range.start.byte;
  });
}

/**
 * Freezes the model all the way down, except the parsed expressions it keeps for the runtime.
 * Children first, then the object: freezing an object before walking its keys made the walk of
 * a 10,000-backend model about twice as slow (55 against 22-26 ms). The model is a tree with
 * shared parts, never a cycle; a part met again is already frozen and skipped.
 */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  const isExpr = (value as { kind?: unknown }).kind === 'expr';
  const record = value as Record<string, unknown>;
  // Object.keys, not Object.entries: an array of pairs per object showed in 10,000-backend loads.
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (!(isExpr && key === 'expr')) deepFreeze(record[key]);
  }
  return Object.freeze(value);
}
