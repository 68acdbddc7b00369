import type { GatewayConfig } from '../config/model.js';
import type { AccessControlSet, AccessLogFields, BackendSet, GatewayLogSink, SignalSource } from '../contracts.js';
import { logCustomFieldsError } from '../logs/log-sink.js';
import { asGatewayError, GatewayError } from '../errors/error-types.js';
import { evalCustomLogFields } from '../eval/eval-dyn.js';
import type { RequestScope } from '../eval/request-scope.js';
import type { AccessCheck, AccessRequest, LoginCheck } from './access-check.js';
import { basicAuth } from './basic-auth.js';
import { jwtControl, type JwtControl } from './jwt-control.js';
import { betaOAuth2Control } from './oauth2/beta-oauth2-control.js';
import { oidcControl } from './oauth2/oidc-control.js';
import { samlControl } from './saml-control.js';

export interface AccessSetOptions {
  /** Told of configuration problems met while serving (a permissions claim of the wrong type), with the request's id. */
  readonly warn?: (message: string, uid: string) => void;
  /** Where a control's custom_log_fields that fail to evaluate are logged (an error record with the request's uid, as for blocks). */
  readonly logSink?: GatewayLogSink;
}

/** The access controls of one configuration, built when it is applied. */
export function createAccessControlSet(config: GatewayConfig, backends: BackendSet, { warn = () => undefined, logSink }: AccessSetOptions = {}): AccessControlSet {
  const checks = new Map<string, AccessCheck>();
  const jwts = new Map<string, JwtControl>();
  const logins = new Map<string, LoginCheck>();
  const deps = { gateway: config, backends };
  for (const [label, ac] of Object.entries(config.accessControls)) {
    if (ac.kind === 'basic_auth') checks.set(label, basicAuth(ac));
    else if (ac.kind === 'jwt') {
      const control = jwtControl(ac, backends, warn);
      checks.set(label, control);
      jwts.set(label, control);
    } else {
      const control = ac.kind === 'beta_oauth2' ? betaOAuth2Control(ac, deps) : ac.kind === 'oidc' ? oidcControl(ac, deps) : samlControl(ac);
      checks.set(label, control);
      logins.set(label, control);
    }
  }
  // Providers' configurations load in the background, so the first login does not wait for them (and a provider down at start stops nothing).
  const warmUp = new AbortController();
  for (const control of logins.values()) void control.prepare(warmUp.signal);
  /** A control's custom_log_fields, after it ran (so they may read its `request.context.<label>`), into the access line. */
  const addLogFields = (label: string, scope: RequestScope, log: AccessLogFields): void => {
    const fields = config.accessControls[label]?.customLogFields ?? [];
    if (fields.length === 0) return;
    const values = evalCustomLogFields(fields, scope, (error) => logSink && logCustomFieldsError(logSink, scope.request.id, error, `access control "${label}"`));
    log.custom = { ...(log.custom ?? {}), ...values };
  };
  const privateCache = new Map<readonly string[], boolean>();
  return {
    enforce: async function enforceAccess(labels: readonly string[], scope: RequestScope, log: AccessLogFields, cancel: SignalSource): Promise<void> {
      for (const label of labels) {
        const check = checks.get(label);
        // The loader refuses unknown labels; meeting one here is a bug, and a bug must not open the door.
        if (!check) throw new GatewayError('access_control', `access control ${JSON.stringify(label)} is not defined`, { source: label });
        let grant;
        try {
          grant = await check.validate(new ControlRequest(scope, cancel));
        } catch (error) {
          addLogFields(label, scope, log);
          const failure = asGatewayError(error, 'access_control');
          // An evaluation failure in token_value or claims refuses the request as well (it is logged as what it was).
          throw failure.source === label ? failure : new GatewayError(failure.kind === 'evaluation' ? 'access_control' : failure.kind, failure.detail, { headers: failure.headers, source: label, cause: failure });
        }
        scope.grantAccess(label, grant.context, grant.permissions);
        if (grant.user !== null) log.authUser = grant.user;
        addLogFields(label, scope, log);
      }
    },
    privateCaching(labels: readonly string[]): boolean {
      let wanted = privateCache.get(labels);
      if (wanted === undefined) {
        wanted = labels.some((l) => {
          const ac = config.accessControls[l];
          return ac?.kind === 'jwt' && !ac.disablePrivateCaching;
        });
        privateCache.set(labels, wanted);
      }
      return wanted;
    },
    loginUrl(label: string, verifier: () => string, requestUrl: URL): string {
      const control = logins.get(label);
      if (!control) throw new GatewayError('configuration', `no beta_oauth2, oidc or saml block is labelled ${JSON.stringify(label)}`);
      return control.loginUrl(verifier, requestUrl);
    },
    async prepareLogins(labels: ReadonlySet<string>, signal: AbortSignal): Promise<void> {
      await Promise.all([...labels].map((label) => logins.get(label)?.prepare(signal)));
    },
    loginStatus() {
      return [...logins.values()].map((control) => control.status());
    },
    close(): void {
      warmUp.abort();
      for (const control of logins.values()) control.close();
    },
    jwksStatus() {
      const out: Record<string, { fetchedAt: number | null; keys: number; lastError: string | null }> = {};
      for (const [label, control] of jwts) if (control.jwks) out[label] = control.jwks.status();
      return out;
    },
  };
}

/** What a control reads of a request; its AbortSignal is made only if the control reads it (a getter of the class, not of an object literal: see ClientBlockRequest in endpoint/backend-request.ts). */
class ControlRequest implements AccessRequest {
  readonly headers: AccessRequest['headers'];
  readonly #cancel: SignalSource;

  constructor(
    readonly scope: RequestScope,
    cancel: SignalSource,
  ) {
    this.headers = scope.request.headers;
    this.#cancel = cancel;
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }
}
