import { describe, expect, it } from 'vitest';
import { makeCertificates } from '../backend/testing/certificates.js';
import { load, loadOk, problems } from './testing/config-files.js';

const certs = makeCertificates(['idp.example']);
const CERT_BODY = certs.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
certs.dispose();

function metadata(sso = '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>'): string {
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example/metadata">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${CERT_BODY}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    ${sso}
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`;
}

const LOGIN_SERVER = `server {
  endpoint "/login" {
    response {
      status = 303
      headers = { location = oauth2_authorization_url("oidc") }
    }
  }
  endpoint "/cb" {
    access_control = ["oidc"]
    response {
      json_body = request.context.oidc.id_token_claims
    }
  }
}
`;

describe('login controls at load', () => {
  it('loads beta_oauth2, oidc and saml blocks with their defaults and backends', async () => {
    const config = await loadOk({
      'portico.hcl': `${LOGIN_SERVER}definitions {
  beta_oauth2 "gh" {
    authorization_endpoint = "https://as.example/authorize"
    token_endpoint = "https://as.example/token"
    redirect_uri = "/gh/cb"
    grant_type = "authorization_code"
    client_id = "cid"
    client_secret = "s3cret"
    scope = "  read   write "
    verifier_method = "state"
    verifier_value = request.cookies.st
  }
  oidc "oidc" {
    configuration_url = "https://op.example/.well-known/openid-configuration"
    configuration_ttl = "10m"
    redirect_uri = "https://app.example/cb"
    client_id = "app"
    client_secret = "s"
    token_endpoint_auth_method = "client_secret_post"
    verifier_value = request.cookies.pkcecv
    token_backend = "slow"
  }
  backend "slow" {
    origin = "https://op.example"
    timeout = "2s"
  }
  saml "sso" {
    idp_metadata_file = "idp.xml"
    sp_entity_id = "portico"
    sp_acs_url = "/saml/acs"
    array_attributes = ["groups"]
  }
}
`,
      'idp.xml': metadata(),
    });
    const gh = config.accessControls['gh'];
    expect(gh).toMatchObject({ kind: 'beta_oauth2', redirectUri: '/gh/cb', verifierMethod: 'state', client: { clientId: 'cid', authMethod: 'client_secret_basic', scope: 'read write' } });
    expect(gh?.kind === 'beta_oauth2' && config.backends[gh.backend]?.origin).toBe('https://as.example');
    const oidc = config.accessControls['oidc'];
    expect(oidc).toMatchObject({ kind: 'oidc', configurationTtl: 600_000, configurationMaxStale: 3_600_000, verifierMethod: null, client: { authMethod: 'client_secret_post', scope: null } });
    if (oidc?.kind !== 'oidc') throw new Error('oidc expected');
    expect(oidc.backends.token).toBe('slow');
    // Without a backend, one anonymous backend takes the other requests, its origin each URL's own.
    expect(oidc.backends.configuration).toBe(oidc.backends.jwks);
    expect(config.backends[oidc.backends.userinfo]?.origin).toBeNull();
    expect(config.accessControls['sso']).toMatchObject({ kind: 'saml', spEntityId: 'portico', arrayAttributes: ['groups'], idp: { entityId: 'https://idp.example/metadata', ssoUrl: 'https://idp.example/sso' } });
  });

  it('names every missing or unusable attribute where it is written', async () => {
    const messages = await problems('server {}\ndefinitions {\n  oidc "o" {\n    configuration_url = "https://op.example/.well-known/openid-configuration"\n    redirect_uri = "/cb"\n    client_id = "c"\n    verifier_value = request.cookies.v\n  }\n}\n');
    expect(messages).toEqual(['portico.hcl:3,3-11: Missing required argument; The argument "client_secret" is required, but no definition was found.']);
    const more = await problems(`server {}
definitions {
  beta_oauth2 "a" {
    authorization_endpoint = "as.example/authorize"
    token_endpoint = "https://as.example/token"
    redirect_uri = "cb"
    grant_type = "implicit"
    client_id = "c"
    client_secret = "s"
    verifier_method = "plain"
    verifier_value = "v"
    token_endpoint_auth_method = "private_key_jwt"
  }
  oidc "o" {
    configuration_url = "https://op.example/.well-known/openid-configuration"
    redirect_uri = "/cb"
    client_id = "c"
    client_secret = "s"
    verifier_method = "state"
    verifier_value = request.cookies.v
  }
}
`);
    expect(more).toEqual([
      'portico.hcl:4,30-52: Invalid attribute value; Invalid value for attribute "authorization_endpoint": "as.example/authorize" is not an absolute http or https URL.',
      'portico.hcl:6,20-24: Invalid attribute value; Invalid value for attribute "redirect_uri": "cb" must be an absolute http(s) URL or a path starting with "/" (resolved against the request\'s origin).',
      'portico.hcl:7,18-28: Invalid attribute value; Invalid value for attribute "grant_type": "implicit" is not supported; beta_oauth2 uses "authorization_code".',
      'portico.hcl:10,23-30: Invalid attribute value; Invalid value for attribute "verifier_method": "plain" is not supported; use "ccm_s256" (PKCE) or "state".',
      'portico.hcl:12,34-51: Invalid attribute value; Invalid value for attribute "token_endpoint_auth_method": "private_key_jwt" is not supported; use client_secret_basic or client_secret_post.',
      'portico.hcl:19,23-30: Invalid attribute value; Invalid value for attribute "verifier_method": "state" is not supported; use "ccm_s256" (PKCE) or "nonce" (or leave it out: ccm_s256 when the provider supports S256, else nonce).',
    ]);
  });

  it('refuses a key set, configuration or token URL that is not on the origin of the backend it goes through', async () => {
    const messages = await problems(`server {}
definitions {
  backend "idp" {
    origin = "https://idp.example"
  }
  jwt "j" {
    jwks_url = "https://keys.example/jwks"
    backend = "idp"
  }
  beta_oauth2 "a" {
    authorization_endpoint = "https://as.example/authorize"
    token_endpoint = "https://as.example/token"
    backend = "idp"
    grant_type = "authorization_code"
    redirect_uri = "/cb"
    client_id = "c"
    client_secret = "s"
    verifier_method = "state"
    verifier_value = "v"
  }
  oidc "o" {
    configuration_url = "https://op.example/.well-known/openid-configuration"
    configuration_backend = "idp"
    redirect_uri = "/cb"
    client_id = "c"
    client_secret = "s"
    verifier_value = request.cookies.v
  }
  backend "api" {
    origin = "https://api.example"
    oauth2 {
      grant_type = "client_credentials"
      token_endpoint = "https://idp.example:8443/token"
      client_id = "c"
      client_secret = "s"
      backend = "later"
    }
  }
  backend "later" {
    origin = "https://idp.example"
  }
}
`);
    const backendIdp = 'is not the host of backend "idp" (origin "https://idp.example"); make them the same, or use a backend without an origin.';
    expect(messages).toEqual([
      `portico.hcl:7,16-43: Invalid attribute value; Invalid value for attribute "jwks_url": its host "keys.example" ${backendIdp}`,
      `portico.hcl:12,22-48: Invalid attribute value; Invalid value for attribute "token_endpoint": its host "as.example" ${backendIdp}`,
      `portico.hcl:22,25-78: Invalid attribute value; Invalid value for attribute "configuration_url": its host "op.example" ${backendIdp}`,
      `portico.hcl:33,24-56: Invalid attribute value; Invalid value for attribute "token_endpoint": its host "idp.example:8443" is not the host of backend "later" (origin "https://idp.example"); make them the same, or use a backend without an origin.`,
    ]);
    // The same host, whatever the path, is fine; so is a backend without an origin.
    await loadOk({
      'portico.hcl': `server {}
definitions {
  backend "idp" {
    origin = "https://idp.example"
  }
  jwt "j" {
    jwks_url = "https://idp.example/keys/jwks.json"
    backend = "idp"
  }
  oidc "o" {
    configuration_url = "https://idp.example/.well-known/openid-configuration"
    backend = "idp"
    redirect_uri = "/cb"
    client_id = "c"
    client_secret = "s"
    verifier_value = request.cookies.v
  }
}
`,
    });
  });

  it('checks the label of the login URL functions against the blocks of definitions', async () => {
    const messages = await problems(`server {
  endpoint "/a" {
    response {
      body = oauth2_authorization_url("nope")
    }
  }
  endpoint "/b" {
    response {
      body = saml_sso_url("gh")
    }
  }
  endpoint "/c" {
    response {
      body = oauth2_authorization_url(request.query.p[0])
    }
  }
}
definitions {
  beta_oauth2 "gh" {
    authorization_endpoint = "https://as.example/authorize"
    token_endpoint = "https://as.example/token"
    redirect_uri = "/cb"
    grant_type = "authorization_code"
    client_id = "c"
    client_secret = "s"
    verifier_method = "ccm_s256"
    verifier_value = request.cookies.v
  }
}
`);
    expect(messages).toEqual([
      'portico.hcl:4,39-45: Undefined login control; oauth2_authorization_url("nope") needs a beta_oauth2 or oidc block in definitions: there is no beta_oauth2 or oidc block labelled "nope"; defined: "gh".',
      'portico.hcl:9,27-31: Undefined login control; saml_sso_url("gh") needs a saml block in definitions: "gh" is a beta_oauth2 block.',
    ]);
  });

  it('refuses SAML metadata it cannot use, with the position inside the file', async () => {
    const broken = await load({
      'portico.hcl': 'server {}\ndefinitions {\n  saml "sso" {\n    idp_metadata_file = "idp.xml"\n    sp_entity_id = "portico"\n    sp_acs_url = "/acs"\n  }\n}\n',
      'idp.xml': '<?xml version="1.0"?>\n<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">\n  <md:IDPSSODescriptor>\n</md:EntityDescriptor>\n',
    });
    expect(broken.config).toBeNull();
    expect(broken.messages).toHaveLength(1);
    expect(broken.messages[0]).toMatch(/^portico\.hcl:4,25-34: Invalid SAML metadata; idp\.xml:\d+,\d+: XML syntax error/);
    const postOnly = await problems('server {}\ndefinitions {\n  saml "sso" {\n    idp_metadata_file = "idp.xml"\n    sp_entity_id = "portico"\n    sp_acs_url = "/acs"\n  }\n}\n', {
      'idp.xml': metadata('<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example/sso"/>'),
    });
    expect(postOnly).toHaveLength(1);
    expect(postOnly[0]).toMatch(/Invalid SAML metadata; .*idp\.xml: .*HTTP-Redirect/);
    const missing = await problems('server {}\ndefinitions {\n  saml "sso" {\n    idp_metadata_file = "gone.xml"\n    sp_entity_id = "portico"\n    sp_acs_url = "/acs"\n  }\n}\n');
    expect(missing).toEqual([expect.stringMatching(/^portico\.hcl:4,25-35: Unreadable file; The idp_metadata_file "gone\.xml" .* does not exist\.$/)]);
  });

  it('loads a backend oauth2 block and refuses token requests that lead back to their backend', async () => {
    const config = await loadOk({
      'portico.hcl': `server {
  endpoint "/r" {
    proxy {
      backend = "api"
    }
  }
}
definitions {
  backend "api" {
    origin = "https://api.example"
    oauth2 {
      grant_type = "client_credentials"
      token_endpoint = "https://as.example/token"
      client_id = "c"
      client_secret = "s"
      scope = "read"
      retries = 2
      backend = "as"
    }
  }
  backend "as" {
    origin = "https://as.example"
  }
}
`,
    });
    expect(config.backends['api']?.oauth2).toMatchObject({ tokenEndpoint: 'https://as.example/token', backend: 'as', retries: 2, client: { clientId: 'c', scope: 'read', authMethod: 'client_secret_basic' } });
    const loop = await problems(`server {}
definitions {
  backend "a" {
    origin = "https://a.example"
    oauth2 {
      grant_type = "client_credentials"
      token_endpoint = "https://b.example/token"
      client_id = "c"
      client_secret = "s"
      backend = "b"
    }
  }
  backend "b" {
    origin = "https://b.example"
    oauth2 {
      grant_type = "password"
      token_endpoint = "https://a.example/token"
      client_id = "c"
      client_secret = "s"
      backend = "a"
    }
  }
}
`);
    expect(loop).toEqual([
      'portico.hcl:5,5-11: Circular token request; The oauth2 token requests of backend "a" lead back to it (a → b → a); give the oauth2 block a backend of its own.',
      'portico.hcl:15,5-11: Circular token request; The oauth2 token requests of backend "b" lead back to it (b → a → b); give the oauth2 block a backend of its own.',
      'portico.hcl:16,20-30: Invalid attribute value; Invalid value for attribute "grant_type": "password" is not supported in a backend; use "client_credentials".',
    ]);
  });
});
