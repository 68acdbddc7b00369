// Sign in with SAML 2.0: `npm run example -- saml`, then open http://localhost:8080/
// and sign in as alice / alice-password at the local SAML IdP (docs/gateway.md, "Federated login").
//
// The flow: "/" needs a session cookie (a jwt the gateway signs). Without one, the jwt's
// error handler redirects to the IdP with saml_sso_url(); the IdP posts its signed response
// to /saml/acs, where the saml access control checks it; the ACS endpoint then sets the
// session cookie and sends the browser back to "/".

server "saml-example" {
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

  endpoint "/saml/acs" {
    access_control = ["sso"]
    response {
      status = 303
      headers = {
        cache-control = "no-store"
        location      = "/"
        set-cookie    = "session=${jwt_sign("session", {
          sub    = request.context.sso.sub
          name   = request.context.sso.attributes.displayName
          email  = request.context.sso.attributes.email
          groups = request.context.sso.attributes.groups
        })}; HttpOnly; Path=/; SameSite=Lax"
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
  jwt "session" {
    cookie              = "session"
    signature_algorithm = "HS256"
    key                 = env.EXAMPLE_SESSION_KEY
    signing_ttl         = "1h"

    error_handler "jwt" {
      response {
        status = 303
        headers = {
          cache-control = "no-store"
          location      = saml_sso_url("sso")
        }
      }
    }
  }

  saml "sso" {
    // Written by the example's providers at start (npm run example -- saml).
    idp_metadata_file = env.EXAMPLE_SAML_IDP_METADATA
    sp_entity_id      = "portico-example"
    sp_acs_url        = "/saml/acs"
    array_attributes  = ["groups"]

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
    PORTICO_GATEWAY_PORT      = "8080"
    EXAMPLE_SAML_IDP_METADATA = "../../data/examples/saml-idp-metadata.xml"
    // An example key: set EXAMPLE_SESSION_KEY to a long random secret anywhere else.
    EXAMPLE_SESSION_KEY = "example-session-key-change-me-0123456789"
  }
}
