import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { cliDataDir, gatewayEnvironment } from '../../gateway/config/token-key.js';
import { loadGatewayConfig } from '../../gateway/config/load.js';
import { routeWarnings } from '../../gateway/config/route-warnings.js';
import { UsageError } from '../../core/errors.js';
import { DEFAULT_CONTROL_ADDR } from '../../core/settings.js';
import { connectControl, describeCallError } from '../control-client.js';
import { parseCommandArgs } from '../parse.js';
import {
  evaluateSourceValue,
  evaluateValue,
  formatDiagnostic,
  formatValue,
  HclError,
  parse,
  renderExcerpt,
  sourceExcerpt,
  toPlain,
  type Diagnostic,
  type HclValue,
  type SourceExcerpt,
} from '../../hcl/index.js';

const HELP = `Usage: portico config <command>

Commands:
  check FILE...        check configuration files; exit 1 when any has an error
  eval [EXPR]          evaluate an expression (a REPL when EXPR is omitted)
  reload               reload the running daemon's gateway configuration now

Options:
  -h, --help      show this help`;

const EVAL_USAGE = `Usage: portico config eval [-f FILE] [--json] [EXPR]

Evaluates EXPR with the function library and \`env\` (the process environment, over the
defaults of FILE's \`defaults { environment_variables = {...} }\` when -f or PORTICO_CONFIG
names a file). Without EXPR, reads expressions line by line; .exit or Ctrl-D ends.`;

/** `portico config ...`; returns the exit code. */
export async function runConfigCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') {
    console.log(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'check') return checkCommand(rest);
  if (sub === 'eval') return evalCommand(rest);
  if (sub === 'reload') return reloadCommand(rest);
  throw new UsageError(`unknown command 'config ${sub}'`, HELP);
}

async function checkCommand(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log(
      'Usage: portico config check FILE...\n\nLoads the files together as one configuration, merged in order (a directory stands for\n' +
        'its *.hcl files), as the daemon would; prints every problem with its position (file:line,col),\n' +
        'the cause of a syntax error first, each with the lines around it and a caret under the\nproblem, and exits 1 when any is an error, else prints the warnings the daemon would log\n(routes that load but can never serve) and ok.',
    );
    return 0;
  }
  const unknown = argv.find((a) => a.startsWith('-'));
  if (unknown) throw new UsageError(`unknown option '${unknown}' for 'config check'`, 'Usage: portico config check FILE...');
  if (argv.length === 0) throw new UsageError("'config check' needs at least one FILE", 'Usage: portico config check FILE...');
  const { config, diagnostics, texts } = await loadGatewayConfig(argv, gatewayEnvironment(process.env, cliDataDir(process.env)));
  // Your own files, read here: the lines are shown as they are (the consoles hide secret values).
  printDiagnostics(
    diagnostics.map((d) => {
      const text = d.range ? texts.get(d.range.filename) : undefined;
      return { line: formatDiagnostic(d), excerpt: d.range && text !== undefined ? sourceExcerpt(text, d.range) : null };
    }),
  );
  if (diagnostics.some((d) => d.severity === 'error')) return 1;
  // Routes that load but can never serve: the daemon logs the same warnings at each apply.
  const warnings = config ? routeWarnings(config) : [];
  for (const warning of warnings) console.error(`warning: ${warning}`);
  console.log(warnings.length === 0 ? 'ok' : `ok (${warnings.length} warning${warnings.length === 1 ? '' : 's'})`);
  return 0;
}

const RELOAD_USAGE = `Usage: portico config reload [options]

Asks the running daemon to reload its gateway configuration (as a save or SIGHUP would) and
prints the result. A configuration that does not load keeps the old one serving; its problems
are printed and the exit code is 1.

Options:
      --url URL          control API (default http://<PORTICO_CONTROL_ADDR or ${DEFAULT_CONTROL_ADDR}>)
      --token-file FILE  file holding the control token (default <data dir>/control.token)
      --data-dir DIR     data directory (default PORTICO_DATA_DIR or ./data)
      --json             print the reload record as JSON
  -h, --help             show this help`;

const RELOAD_OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function reloadCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, RELOAD_OPTIONS, RELOAD_USAGE, true);
  if (values.help) {
    console.log(RELOAD_USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`, RELOAD_USAGE);
  let connection: ReturnType<typeof connectControl>;
  try {
    connection = connectControl({ url: values.url, tokenFile: values['token-file'], dataDir: values['data-dir'] });
  } catch (error) {
    console.error(`portico config reload: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  try {
    const record = await connection.client.config.reload.mutate();
    if (values.json) console.log(JSON.stringify(record, null, 2));
    else if (record.result === 'applied') console.log(`applied in ${Math.round(record.durationMs)} ms: ${record.diff?.summary ?? 'unchanged'}`);
    else if (record.result === 'failed') console.error(`not applied: ${record.error ?? 'unknown error'}; the previous configuration keeps serving`);
    else {
      printDiagnostics(record.diagnostics.map((d) => ({ line: d.text, excerpt: d.excerpt ?? null })));
      if (record.diagnostics.some((d) => d.excerpt)) console.error('');
      console.error('rejected; the previous configuration keeps serving');
    }
    return record.result === 'applied' ? 0 : 1;
  } catch (error) {
    console.error(`portico config reload: ${describeCallError(error, connection.url)}`);
    return 1;
  }
}

/**
 * Problems on standard error, each as its `file:line,col-col: summary; detail` line and then
 * the source lines around it with a caret under the problem; with lines shown, a blank line
 * sets each problem apart.
 */
function printDiagnostics(list: ReadonlyArray<{ line: string; excerpt: SourceExcerpt | null }>): void {
  const apart = list.some((d) => d.excerpt);
  list.forEach(({ line, excerpt }, i) => {
    if (apart && i > 0) console.error('');
    console.error(line);
    if (excerpt) for (const l of renderExcerpt(excerpt)) console.error(`  ${l.text}`);
  });
}

/** Reads a file as UTF-8; invalid bytes are a diagnostic at the first bad position, as upstream reports them. */
async function loadSource(file: string): Promise<{ source: string; diagnostics: Diagnostic[] } | { reason: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : String(error);
    return { reason };
  }
  const source = bytes.toString('utf8');
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return { source, diagnostics: [] };
  } catch {
    const bad = source.indexOf('\ufffd');
    const before = source.slice(0, Math.max(bad, 0));
    const line = before.split('\n').length;
    const column = [...before.slice(before.lastIndexOf('\n') + 1)].length + 1;
    const start = { line, column, byte: Buffer.byteLength(before) };
    return {
      source,
      diagnostics: [{
        severity: 'error',
        summary: 'Invalid character encoding',
        detail: 'All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.',
        range: { filename: file, start, end: { ...start, column: column + 1, byte: start.byte + 1 } },
      }],
    };
  }
}

interface EvalOptions {
  file: string | undefined;
  json: boolean;
  expr: string | undefined;
}

function parseEvalArgs(argv: string[]): EvalOptions | 'help' {
  const opts: EvalOptions = { file: process.env.PORTICO_CONFIG || undefined, json: false, expr: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--json') opts.json = true;
    else if (arg === '-f' || arg === '--file') {
      const file = argv[++i];
      if (file === undefined) throw new UsageError(`'${arg}' needs a FILE`, EVAL_USAGE);
      opts.file = file;
    } else if (arg.startsWith('-') && arg !== '-' && !/^-[\d.(]/.test(arg)) {
      throw new UsageError(`unknown option '${arg}' for 'config eval'`, EVAL_USAGE);
    } else if (opts.expr !== undefined) {
      throw new UsageError("'config eval' takes one EXPR (quote it)", EVAL_USAGE);
    } else opts.expr = arg;
  }
  return opts;
}

async function evalCommand(argv: string[]): Promise<number> {
  const opts = parseEvalArgs(argv);
  if (opts === 'help') {
    console.log(EVAL_USAGE);
    return 0;
  }
  const env = await environment(opts.file);
  if (env instanceof Array) {
    for (const d of env) console.error(formatDiagnostic(d));
    return 1;
  }
  const variables = { env };
  const show = (value: HclValue): string => (opts.json ? JSON.stringify(toPlain(value), null, 2) : formatValue(value));
  const evalOne = (expr: string): boolean => {
    try {
      console.log(show(evaluateSourceValue(expr, variables)));
      return true;
    } catch (error) {
      if (!(error instanceof HclError)) throw error;
      for (const d of error.diagnostics) console.error(formatDiagnostic(d));
      return false;
    }
  };
  if (opts.expr !== undefined) return evalOne(opts.expr) ? 0 : 1;
  return repl(evalOne);
}

/** process.env over the config file's `defaults { environment_variables }`, like the daemon's `env`. */
async function environment(file: string | undefined): Promise<Record<string, string> | Diagnostic[]> {
  const env: Record<string, string> = {};
  if (file) {
    const loaded = await loadSource(file);
    if ('reason' in loaded) throw new UsageError(`cannot read ${file}: ${loaded.reason}`, EVAL_USAGE);
    const { body, diagnostics } = parse(loaded.source, file);
    if (diagnostics.length > 0) return diagnostics;
    for (const block of body.blocks) {
      const attr = block.type === 'defaults' ? block.body.attributes['environment_variables'] : undefined;
      if (!attr) continue;
      try {
        const defaults = toPlain(evaluateValue(attr.expr, {}));
        if (defaults && typeof defaults === 'object' && !Array.isArray(defaults)) {
          for (const [k, v] of Object.entries(defaults)) if (typeof v === 'string') env[k] = v;
        }
      } catch (error) {
        if (error instanceof HclError) return error.diagnostics;
        throw error;
      }
    }
  }
  for (const [k, v] of Object.entries(gatewayEnvironment(process.env, cliDataDir(process.env)))) if (v !== undefined) env[k] = v;
  return env;
}

function repl(evalOne: (expr: string) => boolean): Promise<number> {
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive, prompt: '> ' });
  return new Promise((resolve) => {
    let failed = false;
    rl.on('line', (line) => {
      const text = line.trim();
      if (text === '.exit') {
        rl.close();
        return;
      }
      if (text !== '' && !evalOne(text)) failed = true;
      if (interactive) rl.prompt();
    });
    // Ctrl-D (end of input) ends the session; piped input reports whether every line worked.
    rl.on('close', () => resolve(interactive || !failed ? 0 : 1));
    if (interactive) rl.prompt();
  });
}
