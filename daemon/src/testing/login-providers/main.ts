import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startOidcProvider, type OidcProviderHandle } from './oidc-provider.js';
import { startSamlIdp, type SamlIdp } from './saml-idp.js';
import { startTokenEndpoint, type TokenEndpointHandle } from './token-endpoint.js';

export interface ExampleProvidersOptions {
  readonly oidcPort: number;
  readonly samlPort: number;
  readonly tokenPort: number;
  readonly samlMetadataOut: string;
}

export interface ExampleProviders {
  readonly oidc: OidcProviderHandle;
  readonly saml: SamlIdp;
  readonly token: TokenEndpointHandle;
  /** One line per provider: its URL, client and users. */
  readonly summary: readonly string[];
  close(): Promise<void>;
}

const CLIENT_ID = 'portico-example';
const CLIENT_SECRET = 'example-secret';
const USERS = {
  alice: { password: 'alice-password', name: 'Alice Example', email: 'alice@example.test', groups: ['staff', 'admins'] },
  bob: { password: 'bob-password', name: 'Bob Example', email: 'bob@example.test', groups: ['staff'] },
} as const;

const USAGE = 'usage: node daemon/dist/testing/login-providers/main.js [--oidc-port 9411] [--saml-port 9412] [--token-port 9413] [--saml-metadata-out data/examples/saml-idp-metadata.xml]';

/** The providers the runnable example's gateway config logs in with, on fixed loopback ports. */
export async function startExampleProviders(options: ExampleProvidersOptions): Promise<ExampleProviders> {
  const started: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    await Promise.allSettled(started.map((provider) => provider.close()));
  };
  try {
    const oidc = await startOidcProvider({
      port: options.oidcPort,
      clients: [{ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUris: ['http://localhost:8080/oidc/callback', 'http://127.0.0.1:8080/oidc/callback'], tokenEndpointAuthMethod: 'client_secret_basic' }],
      accounts: Object.fromEntries(Object.entries(USERS).map(([username, user]) => [username, { password: user.password, claims: { name: user.name, email: user.email, groups: [...user.groups] } }])),
    });
    started.push(oidc);
    const saml = await startSamlIdp({
      port: options.samlPort,
      users: Object.fromEntries(Object.entries(USERS).map(([username, user]) => [username, { password: user.password, attributes: { displayName: user.name, email: user.email, groups: user.groups } }])),
    });
    started.push(saml);
    const token = await startTokenEndpoint({ port: options.tokenPort, clients: { [CLIENT_ID]: CLIENT_SECRET } });
    started.push(token);
    mkdirSync(dirname(options.samlMetadataOut), { recursive: true });
    saml.writeMetadata(options.samlMetadataOut);
    const users = Object.entries(USERS).map(([username, user]) => `${username}/${user.password}`).join(', ');
    const summary = [
      `OpenID Provider  ${oidc.issuer} (discovery ${oidc.discoveryUrl}); client ${CLIENT_ID}/${CLIENT_SECRET} (client_secret_basic); users ${users}`,
      `SAML IdP         ${saml.url} (entity id ${saml.entityId}, metadata in ${options.samlMetadataOut}); users ${users}`,
      `Token endpoint   ${token.tokenUrl} (client_credentials); client ${CLIENT_ID}/${CLIENT_SECRET}; resource ${token.resourceUrl('/')}`,
    ];
    return { oidc, saml, token, summary, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export function parseExampleArgs(argv: readonly string[]): ExampleProvidersOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'oidc-port': { type: 'string', default: '9411' },
      'saml-port': { type: 'string', default: '9412' },
      'token-port': { type: 'string', default: '9413' },
      'saml-metadata-out': { type: 'string', default: 'data/examples/saml-idp-metadata.xml' },
    },
    strict: true,
  });
  return {
    oidcPort: portFlag('--oidc-port', values['oidc-port']),
    samlPort: portFlag('--saml-port', values['saml-port']),
    tokenPort: portFlag('--token-port', values['token-port']),
    samlMetadataOut: resolve(values['saml-metadata-out']),
  };
}

function portFlag(flag: string, value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new Error(`${flag} must be a port number from 0 to 65535, got "${value}"`);
  return port;
}

async function main(): Promise<void> {
  let options: ExampleProvidersOptions;
  try {
    options = parseExampleArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
  const providers = await startExampleProviders(options);
  for (const line of providers.summary) process.stdout.write(`${line}\n`);
  const stop = () => {
    providers.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

// Importing this module (its test does) must not start anything.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`login providers: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
