import { evaluate, HclError, standardFunctions, type Attribute, type Body, type PlainValue } from '../../hcl/index.js';
import { checkType } from './attr-types.js';
import type { Diagnostics } from './diagnostics.js';
import { expressionRefs, type FunctionRef } from './expr-refs.js';
import type { Dyn } from './model.js';
import { BLOCKS, type AttrSpec } from './schema.js';

/** Functions whose result differs per call or needs the request: never evaluated at load. */
export const REQUEST_FUNCTIONS: readonly string[] = ['unixtime', 'oauth2_verifier', 'jwt_sign', 'saml_sso_url', 'oauth2_authorization_url'];
/** Functions of the spec this build cannot serve yet: refused where written, at load, never a 500 per request. */
const UNSUPPORTED_FUNCTIONS: Readonly<Record<string, string>> = {};
/** The login URL functions and the block types their label must name. */
const LOGIN_FUNCTIONS: Readonly<Record<string, readonly string[]>> = { oauth2_authorization_url: ['beta_oauth2', 'oidc'], saml_sso_url: ['saml'] };

/** A table's own entry: `toString()` or `constructor()` name no function. */
function ownEntry<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}
/** Variables that exist only while a request is served. */
export const REQUEST_VARIABLES: readonly string[] = ['request', 'backend_requests', 'backend_responses', 'backends', 'backend_request', 'backend_response'];
const LOAD_VARIABLES: readonly string[] = ['env', 'gateway'];

/** What every attribute evaluated at load sees: `env` and `gateway` (maps, as upstream's). */
export class LoadScope {
  readonly variables: Readonly<Record<string, unknown>>;
  /** Labels of the access controls in definitions, known before servers are built. */
  accessControlLabels: ReadonlySet<string> = new Set();
  /** Labels jwt_sign can sign with, known before servers are built. */
  signingProfileLabels: ReadonlySet<string> = new Set();
  /** beta_oauth2, oidc and saml blocks of definitions: label to block type. */
  loginControls: ReadonlyMap<string, string> = new Map();

  constructor(
    readonly diags: Diagnostics,
    env: Readonly<Record<string, string>>,
    version: string,
  ) {
    this.variables = { env: new Map(Object.entries(env)), gateway: new Map([['version', version]]) };
  }

  reader(body: Body, blockType: string): AttrReader {
    return new AttrReader(this, body, blockType);
  }
}

/** Reads a block's attributes by their schema: evaluated and type-checked at load, or kept for the request. */
export class AttrReader {
  constructor(
    private readonly scope: LoadScope,
    readonly body: Body,
    readonly blockType: string,
  ) {}

  attr(name: string): Attribute | undefined {
    return this.body.attributes[name];
  }

  has(name: string): boolean {
    return name in this.body.attributes;
  }

  /** A load-time attribute's converted value; undefined when absent, null, or wrong (then reported). */
  value<T>(name: string): T | undefined {
    const attr = this.attr(name);
    if (!attr) return undefined;
    if (!this.onlyLoadRefs(attr, true)) return undefined;
    return this.evaluateStatic(attr) as T | undefined;
  }

  /**
   * A per-request attribute: evaluated and checked now when it reads only `env` and
   * `gateway` and calls no per-request function, else kept as its expression.
   */
  dyn<T>(name: string): Dyn<T> | undefined {
    const attr = this.attr(name);
    if (!attr) return undefined;
    if (!this.spec(name).perRequest) {
      const value = this.value<T>(name);
      return value === undefined ? undefined : { kind: 'static', value };
    }
    if (!this.onlyLoadRefs(attr, false)) return this.knownRefs(attr) ? { kind: 'expr', expr: attr.expr } : undefined;
    const value = this.evaluateStatic(attr);
    return value === undefined ? undefined : { kind: 'static', value: value as T };
  }

  private spec(name: string): AttrSpec {
    return BLOCKS[this.blockType]?.attributes[name] ?? { type: 'any' };
  }

  /** Whether the expression can be evaluated at load; when `report`, says why not. */
  private onlyLoadRefs(attr: Attribute, report: boolean): boolean {
    const refs = expressionRefs(attr.expr);
    const diags = this.scope.diags;
    for (const v of refs.variables) {
      if (LOAD_VARIABLES.includes(v.root)) continue;
      if (!report) return false;
      if (REQUEST_VARIABLES.includes(v.root)) {
        diags.error('Variables not allowed', `The attribute "${attr.name}" is read once at load, so it can use only env and gateway; "${v.root}" exists only while a request is served.`, v.rootRange);
      } else {
        diags.error('Unknown variable', `There is no variable named "${v.root}".`, v.rootRange);
      }
      return false;
    }
    for (const c of refs.calls) {
      const unsupported = ownEntry(UNSUPPORTED_FUNCTIONS, c.name);
      if (unsupported !== undefined) {
        if (report) diags.error('Unsupported function', `${c.name}() cannot be used: ${unsupported}.`, c.range);
        return false;
      }
      if (!REQUEST_FUNCTIONS.includes(c.name)) continue;
      if (report) diags.error('Function calls not allowed', `The attribute "${attr.name}" is read once at load; ${c.name}() gives its result per request and cannot be used here.`, c.range);
      return false;
    }
    return true;
  }

  /** For a kept expression: every variable and function must exist at request time. */
  private knownRefs(attr: Attribute): boolean {
    const refs = expressionRefs(attr.expr);
    let known = true;
    for (const v of refs.variables) {
      if (LOAD_VARIABLES.includes(v.root) || REQUEST_VARIABLES.includes(v.root)) continue;
      this.scope.diags.error('Unknown variable', `There is no variable named "${v.root}".`, v.rootRange);
      known = false;
    }
    for (const c of refs.calls) {
      const unsupported = ownEntry(UNSUPPORTED_FUNCTIONS, c.name);
      if (unsupported !== undefined) {
        this.scope.diags.error('Unsupported function', `${c.name}() cannot be used: ${unsupported}.`, c.range);
        known = false;
        continue;
      }
      if (c.name === 'jwt_sign') this.checkSigningLabel(c);
      const loginKinds = ownEntry(LOGIN_FUNCTIONS, c.name);
      if (loginKinds) this.checkLoginLabel(c, loginKinds);
      if (Object.hasOwn(standardFunctions, c.name) || REQUEST_FUNCTIONS.includes(c.name)) continue;
      this.scope.diags.error('Call to unknown function', `There is no function named "${c.name}".`, c.range);
      known = false;
    }
    return known;
  }

  /** oauth2_authorization_url / saml_sso_url with a literal label must name a block of the right type. */
  private checkLoginLabel(call: FunctionRef, kinds: readonly string[]): void {
    const label = literalLabel(call);
    if (label === undefined || kinds.includes(this.scope.loginControls.get(label) ?? '')) return;
    const fitting = [...this.scope.loginControls].filter(([, kind]) => kinds.includes(kind)).map(([l]) => JSON.stringify(l));
    const what = kinds.join(' or ');
    const found = this.scope.loginControls.get(label);
    const problem = found !== undefined ? `${JSON.stringify(label)} is a ${found} block` : `there is no ${what} block labelled ${JSON.stringify(label)}`;
    this.scope.diags.error('Undefined login control', `${call.name}(${JSON.stringify(label)}) needs a ${what} block in definitions: ${problem}${fitting.length === 0 ? '' : `; defined: ${fitting.join(', ')}`}.`, call.args[0]?.range ?? call.range);
  }

  /** jwt_sign with a literal label must name a profile: found at load, not by the first request. */
  private checkSigningLabel(call: FunctionRef): void {
    const first = call.args[0];
    if (!first) return;
    const label = literalLabel(call);
    if (typeof label !== 'string' || this.scope.signingProfileLabels.has(label)) return;
    const known = [...this.scope.signingProfileLabels].map((l) => JSON.stringify(l)).join(', ');
    this.scope.diags.error('Undefined signing profile', `jwt_sign(${JSON.stringify(label)}, ...) needs a jwt_signing_profile or a jwt block with signing_ttl labelled ${JSON.stringify(label)}${known === '' ? '; there is none in definitions' : `; defined: ${known}`}.`, first.range);
  }

  private evaluateStatic(attr: Attribute): unknown {
    let value: PlainValue;
    try {
      value = evaluate(attr.expr, this.scope.variables);
    } catch (error) {
      if (!(error instanceof HclError)) throw error;
      this.scope.diags.add(error.diagnostics);
      return undefined;
    }
    // A null attribute is an unset one, as upstream's decoder treats optional attributes.
    if (value === null) {
      if (this.spec(attr.name).required) this.scope.diags.error('Missing required argument', `The argument "${attr.name}" is required, but the given value is null.`, attr.expr.range);
      return undefined;
    }
    const checked = checkType(value, this.spec(attr.name).type);
    if (checked.ok) return checked.value;
    if (checked.kind === 'type') {
      this.scope.diags.error('Incorrect attribute value type', `Inappropriate value for attribute "${attr.name}": ${checked.problem}.`, attr.expr.range);
    } else {
      this.scope.diags.error('Invalid attribute value', `Invalid value for attribute "${attr.name}": ${checked.problem}.`, attr.expr.range);
    }
    return undefined;
  }
}

/** A call's first argument when it is a constant string (no variables, no calls); else undefined. */
function literalLabel(call: FunctionRef): string | undefined {
  const first = call.args[0];
  if (!first) return undefined;
  try {
    const refs = expressionRefs(first);
    if (refs.variables.length > 0 || refs.calls.length > 0) return undefined;
    const value = evaluate(first, {});
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
