import { formatDiagnostic } from '../../hcl/index.js';
import { resolveConfigSources } from '../../core/config-sources.js';
import { parseGoDuration } from '../../core/duration.js';
import { UsageError } from '../../core/errors.js';
import { cliDataDir, gatewayEnvironment } from '../../gateway/config/token-key.js';
import { createSigner } from '../../gateway/access/jwt-sign.js';
import { loadGatewayConfig } from '../../gateway/config/load.js';
import type { SigningProfileConfig } from '../../gateway/config/model.js';
import { parseCommandArgs } from '../parse.js';

const HELP = `Usage: portico token create --tenant T --workspace W [options]

Signs a bearer token for the gateway with a signing profile of the configuration (a
jwt_signing_profile, or a jwt block with signing_ttl) and prints it alone on the last line.
The default configuration's /api/v1/** takes the tenant and workspace from this token.
Works offline: it reads the configuration and the key, it does not need the daemon.

Options:
      --tenant T         the token's "tenant" claim (required)
      --workspace W      the token's "workspace" claim (required)
      --sub S            the token's "sub" claim (default T/W)
      --ttl DURATION     lifetime, e.g. 1h, 30m (default: the profile's ttl or signing_ttl)
      --profile LABEL    signing profile (default: the only one; required when there are several)
  -f, --file FILE        configuration file (default PORTICO_CONFIG or config/portico.hcl)
      --data-dir DIR     data directory with the token key (default PORTICO_DATA_DIR or ./data)
  -h, --help             show this help`;

const OPTIONS = {
  tenant: { type: 'string' },
  workspace: { type: 'string' },
  sub: { type: 'string' },
  ttl: { type: 'string' },
  profile: { type: 'string' },
  file: { type: 'string', short: 'f', multiple: true },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `portico token create ...`; returns the exit code. */
export async function tokenCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') {
    (sub === undefined ? console.error : console.log)(HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'create') throw new UsageError(`unknown command 'token ${sub}'`, HELP);
  const { values } = parseCommandArgs(rest, OPTIONS, HELP);
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const tenant = values.tenant?.trim() ?? '';
  const workspace = values.workspace?.trim() ?? '';
  if (tenant === '' || workspace === '') throw new UsageError("'token create' needs --tenant T and --workspace W", HELP);
  let ttl: number | null = null;
  if (values.ttl !== undefined) {
    const parsed = parseGoDuration(values.ttl);
    if (typeof parsed === 'string' || parsed <= 0) throw new UsageError(`--ttl ${JSON.stringify(values.ttl)} is not a positive duration (write e.g. 90m, 24h)`, HELP);
    ttl = parsed;
  }

  const sources = resolveConfigSources(values.file ?? [], [], process.env.PORTICO_CONFIG);
  if (sources.files.length === 0) throw new UsageError('no configuration file: pass -f FILE or set PORTICO_CONFIG', HELP);
  const env = gatewayEnvironment(process.env, cliDataDir(process.env, values['data-dir']));
  const loaded = await loadGatewayConfig(sources.files, env);
  if (!loaded.config) {
    for (const d of loaded.diagnostics) console.error(formatDiagnostic(d));
    console.error(`portico: the configuration does not load (${sources.files.join(', ')}); fix it first (portico config check)`);
    return 1;
  }
  const profile = chooseProfile(loaded.config.signingProfiles, values.profile);
  if (profile.claims?.kind === 'expr') {
    console.error(`portico: the claims of signing profile "${profile.label}" read the request; they can only be signed while serving one`);
    return 1;
  }
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { tenant, workspace, sub: values.sub ?? `${tenant}/${workspace}` };
  if (ttl !== null) claims['exp'] = now + Math.floor(ttl / 1000);
  const token = createSigner(profile).sign(claims, profile.claims?.kind === 'static' ? (profile.claims.value as Record<string, unknown>) : null, now);
  const exp = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: number };
  console.error(`token for tenant ${JSON.stringify(tenant)}, workspace ${JSON.stringify(workspace)}, signed with "${profile.label}" (${profile.algorithm}), ${exp.exp ? `expires ${new Date(exp.exp * 1000).toISOString()}` : 'does not expire'}:`);
  console.log(token);
  return 0;
}

function chooseProfile(profiles: Readonly<Record<string, SigningProfileConfig>>, wanted: string | undefined): SigningProfileConfig {
  const labels = Object.keys(profiles);
  if (wanted !== undefined) {
    const profile = profiles[wanted];
    if (!profile) throw new UsageError(`no signing profile "${wanted}" in the configuration${labels.length > 0 ? `; there are: ${labels.join(', ')}` : ''}`, HELP);
    return profile;
  }
  if (labels.length === 1) return profiles[labels[0] as string] as SigningProfileConfig;
  if (labels.length === 0) throw new UsageError('the configuration has no signing profile (a jwt_signing_profile, or a jwt block with signing_ttl)', HELP);
  throw new UsageError(`the configuration has several signing profiles (${labels.join(', ')}); choose one with --profile`, HELP);
}
