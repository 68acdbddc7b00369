import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { load, loadOk, problems } from './testing/config-files.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const RSA_PUBLIC = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const RSA_PRIVATE = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const EC_PUBLIC = ec.publicKey.export({ type: 'spki', format: 'pem' }) as string;

/** A server whose endpoint is guarded by `labels`, and `definitions` as given. */
function guarded(labels: string, definitions: string): string {
  return `server {\n  endpoint "/p" {\n    access_control = [${labels}]\n    response {\n      body = "ok"\n    }\n  }\n}\ndefinitions {\n${definitions}\n}\n`;
}

describe('access control definitions at load', () => {
  it('loads basic_auth and jwt blocks and resolves inheritance and disabling per block', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  access_control = ["ba"]
  api {
    base_path = "/api"
    access_control = ["tok"]
    endpoint "/a" {
      response {
        body = "a"
      }
    }
    endpoint "/b" {
      disable_access_control = ["ba"]
      response {
        body = "b"
      }
    }
  }
  files {
    document_root = "."
    disable_access_control = ["ba"]
  }
}
definitions {
  basic_auth "ba" {
    user     = "u"
    password = "p"
    realm    = "Ops"
  }
  jwt "tok" {
    signature_algorithm = "HS256"
    key                 = "secret"
  }
}
`,
    });
    const api = config.servers[0]!.apis[0]!;
    expect(api.endpoints.map((e) => e.access.effective)).toEqual([['ba', 'tok'], ['tok']]);
    expect(config.servers[0]!.files[0]!.access.effective).toEqual([]);
    expect(config.accessControls['ba']).toMatchObject({ kind: 'basic_auth', user: 'u', realm: 'Ops' });
    expect(config.accessControls['tok']).toMatchObject({ kind: 'jwt', algorithm: 'HS256', source: { kind: 'header', name: 'authorization' } });
  });

  it('says which access controls exist when a label is unknown', async () => {
    expect(await problems(guarded('"tok"', '  basic_auth "ba" {\n    password = "p"\n  }'))).toEqual([
      'portico.hcl:3,23-28: Undefined access control; The access control "tok" is not defined in definitions; defined: "ba".',
    ]);
  });

  it('refuses a reused label across access control types, and reserved labels', async () => {
    const messages = await problems(guarded('"a"', '  basic_auth "a" {\n    password = "p"\n  }\n  jwt "a" {\n    signature_algorithm = "HS256"\n    key = "k"\n  }\n  basic_auth "beta_granted_permissions" {\n    password = "p"\n  }'));
    expect(messages).toEqual([
      'portico.hcl:13,7-10: Duplicate label; access control labels must be unique: "a" is already defined at portico.hcl:10,14.',
      'portico.hcl:17,14-40: Reserved label; The label "beta_granted_permissions" is reserved (request.context.beta_granted_permissions is set by the gateway); choose another.',
    ]);
  });

  it('refuses a jwt without a key, with an unknown algorithm, with both header and cookie, or with key and key_file', async () => {
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "HS256"\n  }'))).toEqual([
      'portico.hcl:10,3-10: Missing key; The jwt "t" has no key to verify tokens with: set key, key_file or jwks_url.',
    ]);
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "none"\n    key = "k"\n  }'))).toEqual([
      'portico.hcl:11,27-33: Unsupported signature_algorithm; "none" is not supported; use one of RS256, RS384, RS512, HS256, HS384, HS512, ES256, ES384, ES512.',
    ]);
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "HS256"\n    key = "k"\n    header = "X-Token"\n    cookie = "tok"\n  }'))).toEqual([
      'portico.hcl:14,14-19: Conflicting attributes; Only one of header, cookie or token_value may be set; got header and cookie.',
    ]);
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "HS256"\n    key = "k"\n    key_file = "k.txt"\n  }'), { 'k.txt': 'secret' })).toEqual([
      'portico.hcl:13,16-23: Conflicting attributes; Set either key or key_file, not both.',
    ]);
  });

  it('refuses an unreadable key file and a key that does not fit the algorithm', async () => {
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "RS256"\n    key_file = "missing.pem"\n  }'))).toEqual([
      expect.stringMatching(/^portico\.hcl:12,16-29: Unreadable file; The key_file "missing\.pem" \(.*missing\.pem\) does not exist\.$/),
    ]);
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "RS256"\n    key_file = "ec.pem"\n  }'), { 'ec.pem': EC_PUBLIC })).toEqual([
      'portico.hcl:12,16-24: Invalid key; The key does not fit RS256: an RSA key is needed, got ec.',
    ]);
    expect(await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "ES384"\n    key_file = "ec.pem"\n  }'), { 'ec.pem': EC_PUBLIC })).toEqual([
      'portico.hcl:12,16-24: Invalid key; The key does not fit ES384: ES384 needs the curve secp384r1, got prime256v1.',
    ]);
    const garbage = await problems(guarded('"t"', '  jwt "t" {\n    signature_algorithm = "RS256"\n    key = "not a pem"\n  }'));
    expect(garbage).toHaveLength(1);
    expect(garbage[0]).toMatch(/^portico\.hcl:12,11-22: Invalid key; The key for RS256 must be a PEM public key \(SPKI or PKCS#1\) or certificate: /);
  });

  it('refuses a key set together with a fixed key, and a backend without jwks_url', async () => {
    const messages = await problems(guarded('"t"', `  jwt "t" {\n    key = ${JSON.stringify(RSA_PUBLIC)}\n    signature_algorithm = "RS256"\n    jwks_url = "http://127.0.0.1:1/jwks"\n  }\n  jwt "u" {\n    signature_algorithm = "HS256"\n    key = "k"\n    backend = "b"\n  }\n  backend "b" {\n    origin = "http://127.0.0.1:1"\n  }`));
    expect(messages).toEqual([
      'portico.hcl:13,16-41: Conflicting attributes; A jwt block verifies with either a fixed key (key, key_file) or a key set (jwks_url), not both.',
      'portico.hcl:18,15-18: Unexpected attribute; backend is used for key set requests: it needs jwks_url.',
    ]);
  });

  it('gives a jwks_url its own backend, or the referenced one', async () => {
    const config = await loadOk({ 'portico.hcl': guarded('"t", "u"', '  jwt "t" {\n    jwks_url = "http://127.0.0.1:9/keys.json"\n    jwks_ttl = "5m"\n  }\n  jwt "u" {\n    jwks_url = "http://127.0.0.1:9/k2"\n    backend = "idp"\n  }\n  backend "idp" {\n    origin = "http://127.0.0.1:9"\n  }') });
    const t = config.accessControls['t'];
    const u = config.accessControls['u'];
    expect(t?.kind === 'jwt' && t.jwks).toMatchObject({ url: 'http://127.0.0.1:9/keys.json', ttl: 300_000, maxStale: 3_600_000 });
    expect(t?.kind === 'jwt' && config.backends[t.jwks!.backend]?.origin).toBe('http://127.0.0.1:9');
    expect(u?.kind === 'jwt' && u.jwks?.backend).toBe('idp');
  });

  it('checks signing profiles: keys that cannot sign, alg/typ headers, and label clashes with a signing jwt', async () => {
    const messages = await problems(
      guarded(
        '"t"',
        `  jwt_signing_profile "p" {\n    signature_algorithm = "RS256"\n    key = ${JSON.stringify(RSA_PUBLIC)}\n    headers = { alg = "none" }\n  }\n  jwt_signing_profile "t" {\n    signature_algorithm = "HS256"\n    key = "s"\n  }\n  jwt "t" {\n    signature_algorithm = "HS256"\n    key = "s"\n    signing_ttl = "1h"\n  }`,
      ),
    );
    expect(messages).toEqual([
      expect.stringMatching(/^portico\.hcl:12,11-\d+: Invalid signing key; The key cannot sign RS256 tokens: /),
      'portico.hcl:13,15-31: Invalid attribute value; Invalid value for attribute "headers": "alg" is set by the gateway and cannot be given.',
      'portico.hcl:19,3-10: Duplicate label; A jwt block with signing_ttl cannot share its label with a jwt_signing_profile: "t" is a jwt_signing_profile at portico.hcl:15,3.',
    ]);
  });

  it('makes a jwt with signing_ttl a signing profile (RS256 signs with signing_key)', async () => {
    const config = await loadOk({
      'portico.hcl': guarded('"t"', `  jwt "t" {\n    signature_algorithm = "RS256"\n    key = ${JSON.stringify(RSA_PUBLIC)}\n    signing_key = ${JSON.stringify(RSA_PRIVATE)}\n    signing_ttl = "10m"\n  }`),
    });
    expect(config.signingProfiles['t']).toMatchObject({ origin: 'jwt', algorithm: 'RS256', ttl: 600_000 });
    expect(
      await problems(guarded('"t"', `  jwt "t" {\n    signature_algorithm = "RS256"\n    key = ${JSON.stringify(RSA_PUBLIC)}\n    signing_ttl = "10m"\n  }`)),
    ).toEqual(['portico.hcl:13,19-24: Missing required argument; jwt_sign with RS256 signs with signing_key or signing_key_file (a PEM private key): set one.']);
  });

  it('reports htpasswd problems with the file line, never the hash', async () => {
    const loaded = await load({
      'portico.hcl': guarded('"ba"', '  basic_auth "ba" {\n    htpasswd_file = "users"\n  }'),
      users: '# ops\nalice:$apr1$abcdefgh$0123456789abcdefghijkl\nbob\ncarol:{SHA}qvTGHdzF6KLavt4PO0gs2a6pQ00=\n',
    });
    expect(loaded.config).toBeNull();
    expect(loaded.messages).toHaveLength(2);
    expect(loaded.messages[0]).toMatch(/^portico\.hcl:11,21-28: Invalid htpasswd file; .*users:3: /);
    expect(loaded.messages[1]).toMatch(/^portico\.hcl:11,21-28: Invalid htpasswd file; .*users:4: /);
    expect(loaded.messages.join('\n')).not.toContain('qvTGHdzF6KLavt4PO0gs2a6pQ00');
  });
});

describe('jwt_sign labels at load', () => {
  it('refuses a literal label that names no signing profile, where it is written', async () => {
    const messages = await problems(`server {\n  endpoint "/t" {\n    response {\n      body = jwt_sign("nope", {})\n    }\n  }\n}\ndefinitions {\n  jwt_signing_profile "p" {\n    signature_algorithm = "HS256"\n    key = "k"\n  }\n}\n`);
    expect(messages).toEqual(['portico.hcl:4,23-29: Undefined signing profile; jwt_sign("nope", ...) needs a jwt_signing_profile or a jwt block with signing_ttl labelled "nope"; defined: "p".']);
  });
});
