// The gateway benchmark's Portico configuration (run.mjs), one per daemon under test, and the
// file the nginx backend serves through it.

/** The 858-byte JSON body every gateway benchmark script serves from nginx. */
export const BENCH_ITEM = JSON.stringify({ id: 1, items: Array.from({ length: 20 }, (_, i) => ({ n: i, name: `item number ${i}`, ok: true })) });

/**
 * The Portico config under test. `/**` is a plain proxy route (what the throughput rows
 * measure); `/rev/**` carries `revision` in a response header so a reload is observable;
 * `/open/**` and `/jwt/**` are the same anonymous-backend route without and with an RS256 jwt;
 * `/expr/**` is `/open/**` with a response header evaluated per request (`request.id`): the
 * plain handler with a request scope and the header step since 2026-11-30, the general handler
 * before (no target; it shows what an expression costs a route, such as the requests an
 * evaluator cache once kept alive: docs/performance-log.md); `/fwd/**` is `/open/**` with a
 * request header evaluated per request and a query parameter added (the plain handler since
 * 2026-11-30, the general handler before; no target either); `/err/**` is `/open/**` under an
 * api with an error handler for timeouts (the plain handler since the twenty-ninth machine, the general handler
 * before); `/gen/**` the same with a handler reading `backend_requests.default`, which the plain
 * handler does not record: the general handler's cost; `/url/**` the open route addressed by a
 * proxy `url` with an expression in its query (the plain handler since the twenty-ninth machine).
 */
export function porticoConfig(port, backendPort, revision, accessLines) {
  return `server "bench" {
  hosts = ["127.0.0.1:${port}"]
  endpoint "/**" {
    proxy {
      backend = "origin"
    }
  }
  endpoint "/rev/**" {
    set_response_headers = { x-config-revision = "${revision}" }
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
  endpoint "/open/**" {
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
  endpoint "/expr/**" {
    set_response_headers = { x-request = request.id }
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
  endpoint "/fwd/**" {
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
      set_request_headers = { x-request = request.id }
      add_query_params    = { via = "portico" }
    }
  }
  api {
    base_path = "/err"
    error_handler "backend_timeout" {
      response {
        status = 504
      }
    }
    endpoint "/**" {
      proxy {
        backend {
          origin = "http://127.0.0.1:${backendPort}"
          path   = "/**"
        }
      }
    }
  }
  api {
    base_path = "/gen"
    error_handler "backend_timeout" {
      response {
        status = 504
        headers = { x-url = backend_requests.default.url }
      }
    }
    endpoint "/**" {
      proxy {
        backend {
          origin = "http://127.0.0.1:${backendPort}"
          path   = "/**"
        }
      }
    }
  }
  endpoint "/url/**" {
    proxy {
      url = "http://127.0.0.1:${backendPort}/**?via=\${request.method}"
    }
  }
  endpoint "/jwt/**" {
    access_control = ["bench_jwt"]
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
}
definitions {
  backend "origin" {
    origin = "http://127.0.0.1:${backendPort}"
  }
  jwt "bench_jwt" {
    signature_algorithm = "RS256"
    key_file            = "jwt-public.pem"
  }
}
settings {
  // "info" writes an access line and a backend line per request (to the log file); "warn" only warnings and errors.
  log_level = "${accessLines ? 'info' : 'warn'}"
}
`;
}
