// Sign in with OpenID Connect: `npm run example -- oidc`, then open http://localhost:8080/
// and sign in as alice / alice-password at the local OpenID Provider (docs/gateway.md, "Federated login").
//
// The flow: "/" needs a session cookie (a jwt the gateway signs). Without one, the jwt's
// error handler redirects to the provider with oauth2_authorization_url() and stores the
// PKCE verifier in a cookie; the provider redirects back to /oidc/callback, where the oidc
// access control exchanges the code, verifies the ID token and fetches userinfo; the
// callback then sets the session cookie and sends the browser back to "/".

server "oidc-example" {
  hosts = ["*:${env.PORTICO_GATEWAY_PORT}"]

  endpoint "/" {
    access_control = ["session"]
    response {
      json_body = {
        signed_in_as = request.context.session.name
        claims       = request.context.session
      }
    }
  }

  endpoint "/oidc/callback" {
    access_control = ["login"]
    response {
      status = 303
      headers = {
        cache-control = "no-store"
        location      = "/"
        // The session, and the PKCE verifier's cookie cleared: it served its one exchange.
        set-cookie = [
          "session=${jwt_sign("session", {
            sub    = request.context.login.id_token_claims.sub
            name   = request.context.login.userinfo.name
            email  = request.context.login.userinfo.email
            groups = request.context.login.userinfo.groups
          })}; HttpOnly; Path=/; SameSite=Lax",
          "pkcecv=; HttpOnly; Path=/oidc/callback; Max-Age=0",
        ]
      }
    }
  }

  endpoint "/logout" {
    response {
      status = 303
      headers = {
        location   = "/signed-out"
        set-cookie = "session=; HttpOnly; Path=/; Max-Age=0"
      }
    }
  }

  endpoint "/signed-out" {
    response {
      body = "Signed out. Open / to sign in again."
    }
  }
}

definitions {
  // The session: a cookie holding a jwt this gateway signed (signing_ttl makes jwt_sign use this block).
  jwt "session" {
    cookie              = "session"
    signature_algorithm = "HS256"
    key                 = env.EXAMPLE_SESSION_KEY
    signing_ttl         = "1h"

    // No (or no longer a valid) session: start the login at the provider.
    error_handler "jwt" {
      response {
        status = 303
        headers = {
          cache-control = "no-store"
          location      = oauth2_authorization_url("login")
          set-cookie    = "pkcecv=${oauth2_verifier()}; HttpOnly; Path=/oidc/callback; SameSite=Lax"
        }
      }
    }
  }

  oidc "login" {
    configuration_url = env.EXAMPLE_OIDC_CONFIGURATION_URL
    client_id         = "portico-example"
    client_secret     = env.EXAMPLE_OIDC_CLIENT_SECRET
    redirect_uri      = "/oidc/callback"
    scope             = "profile email"
    verifier_value    = request.cookies.pkcecv

    error_handler {
      response {
        status = 403
        body   = "Sign-in failed. Open / to try again."
      }
    }
  }
}

defaults {
  environment_variables = {
    PORTICO_GATEWAY_PORT           = "8080"
    EXAMPLE_OIDC_CONFIGURATION_URL = "http://127.0.0.1:9411/.well-known/openid-configuration"
    EXAMPLE_OIDC_CLIENT_SECRET     = "example-secret"
    // An example key: set EXAMPLE_SESSION_KEY to a long random secret anywhere else.
    EXAMPLE_SESSION_KEY = "example-session-key-change-me-0123456789"
  }
}
