// Portico's default gateway configuration: what `npm start` serves on :8080.
//
// It fronts the daemon's internal services (infosessions, the ingest API and the cluster
// discovery HTTP form, all on PORTICO_SERVICES_ADDR) under their public paths, serves a
// small landing page, and checks the services' health. Save this file while the daemon
// runs and the new configuration serves within a second; a broken save keeps the old one
// serving and shows its error in `portico tui` (:config) and the web dashboard.
//
// Reference: docs/gateway.md. Check a change without applying it:
//   npm exec portico -- config check config/portico.hcl

server "portico" {
  hosts = ["*:${env.PORTICO_GATEWAY_PORT}"]

  // Landing page with links to everything below.
  files {
    document_root = "www"
  }

  // The gateway's own view of its backends, built from expressions.
  endpoint "/status" {
    allowed_methods = ["GET", "HEAD"]
    response {
      json_body = {
        gateway    = gateway.version
        request_id = request.id
        backends = {
          services = backends.services.health
        }
      }
    }
  }

  api "resources" {
    base_path = "/v2"

    // GET /v2/resources/infosessions.json?key=... (also .xml, and JSONP with callback=)
    endpoint "/resources/**" {
      allowed_methods = ["GET", "HEAD"]
      proxy {
        backend = "services"
      }
    }

    // The discovery service's HTTP form: POST a DiscoveryRequest as JSON.
    endpoint "/discovery:clusters" {
      proxy {
        backend = "services"
      }
    }
  }

  // Datasets, uploads and ingest jobs. Every request needs a bearer token
  // (`npm exec portico -- token create --tenant T --workspace W`); the tenant and workspace
  // the ingest service sees come from the token's claims, and headers a client sends for
  // them are replaced.
  api "ingest" {
    base_path      = "/api/v1"
    access_control = ["tenant_token"]

    endpoint "/**" {
      proxy {
        backend                = "services"
        remove_request_headers = ["authorization"]
        set_request_headers = {
          "X-Tenant-Id"    = request.context.tenant_token.tenant
          "X-Workspace-Id" = request.context.tenant_token.workspace
        }
      }
    }
  }
}

definitions {
  // Tenant tokens: HS256 with the key the daemon keeps in its data dir (data/gateway-token.key,
  // mode 0600, created at first start); `portico token create` signs with the same block.
  jwt "tenant_token" {
    signature_algorithm = "HS256"
    key_file            = env.PORTICO_GATEWAY_TOKEN_KEY
    required_claims     = ["tenant", "workspace", "exp"]
    signing_ttl         = "24h"
  }

  backend "services" {
    origin          = "http://${env.PORTICO_SERVICES_ADDR}"
    connect_timeout = "2s"
    timeout         = "120s"

    beta_health {
      path              = "/internal/healthz"
      interval          = "2s"
      timeout           = "1s"
      failure_threshold = 2
      expected_text     = "healthy"
    }
  }
}

settings {
  health_path = "/healthz"
  log_format  = "common"
}

defaults {
  environment_variables = {
    PORTICO_GATEWAY_PORT  = "8080"
    PORTICO_SERVICES_ADDR = "127.0.0.1:9080"
    // Set by the daemon and the CLI to <data dir>/gateway-token.key unless you set it.
    PORTICO_GATEWAY_TOKEN_KEY = "../data/gateway-token.key"
  }
}
