/**
 * HCL for the endpoints the access tests put in front of their controls, written once so that a
 * test's configuration shows only what the test is about.
 */

/** An `endpoint` block answering `response` (what goes inside its `response { }`), behind `accessControl` when given. */
export function endpointHcl(path: string, response: string, accessControl: readonly string[] = []): string {
  const guard = accessControl.length > 0 ? `    access_control = ${JSON.stringify(accessControl)}\n` : '';
  return `  endpoint "${path}" {
${guard}    response {
      ${response}
    }
  }`;
}

export interface LoginEndpoints {
  /** The label of the oidc or beta_oauth2 block both endpoints name. */
  readonly control: string;
  /** The cookie `/login` keeps `oauth2_verifier()` in. */
  readonly cookie: string;
  /** What follows the cookie's value in Set-Cookie, e.g. `; HttpOnly; Path=/cb`. */
  readonly cookieAttributes?: string;
  /** What `/cb` answers once the control let the callback in (inside its `response { }`). */
  readonly callbackResponse: string;
}

/**
 * The two endpoints of an authorization code login, as the peer's documentation shows them:
 * `/login` redirects to the control's authorization URL and stores the verifier in a cookie;
 * `/cb`, guarded by the control, is where the provider sends the browser back.
 */
export function loginEndpointsHcl({ control, cookie, cookieAttributes = '', callbackResponse }: LoginEndpoints): string {
  return `  endpoint "/login" {
    response {
      status = 303
      headers = {
        location = oauth2_authorization_url("${control}")
        set-cookie = "${cookie}=\${oauth2_verifier()}${cookieAttributes}"
      }
    }
  }
${endpointHcl('/cb', callbackResponse, [control])}`;
}

/**
 * A server with `/admin` behind basic_auth "ba" (password `pw`, realm `protected`) and an open
 * `/**`, both proxied to `origin`: the shape in which a form of the path that routing and the
 * backend resolve differently reaches the protected path unguarded. `more` goes inside the server.
 */
export function adminBehindCatchAll(origin: string, more = ''): string {
  return `
server {
  hosts = ["*:0"]
  endpoint "/admin" {
    access_control = ["ba"]
    proxy { backend = "b" }
  }
  endpoint "/**" {
    proxy { backend = "b" }
  }
${more}
}
definitions {
  backend "b" { origin = "${origin}" }
  basic_auth "ba" {
    password = "pw"
    realm = "protected"
  }
}
`;
}
