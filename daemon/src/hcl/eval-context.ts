import type { Expression } from './ast.js';
import { errorDiag, type Diagnostic, type Range } from './diagnostics.js';
import type { FunctionTable, HclFunction } from './functions/define.js';
import { fromPlain, PlainConversionError } from './plain.js';
import { UNKNOWN, type HclValue } from './values.js';

/**
 * Everything one evaluation needs: caller variables (converted lazily, since the gateway
 * passes large request objects and expressions read a few fields), local scopes from
 * `for` expressions, the current element of each splat, the function table and the
 * diagnostics collected so far. The maps and the scope stack are made when first needed: most
 * evaluations (a configuration's literal attributes, a header value per request) need none,
 * and making them took about a fifth of evaluating a literal (135 against 106 ns a quoted string
 * in a loop; a 10,000-backend load evaluates about 25,000 attributes).
 */
export class EvalContext {
  readonly diags: Diagnostic[] = [];
  private converted: Map<string, HclValue> | null = null;
  private locals: Array<Map<string, HclValue>> | null = null;
  private splatItemsMap: Map<Expression, HclValue> | null = null;

  /**
   * `extra` (the caller's functions, which win on a name clash) is looked up before `functions`
   * (the standard library) instead of being merged into a copy of it. A copy per evaluation
   * would copy the whole library each time, and one cached per `extra` in a WeakMap kept every
   * request's objects alive through scavenges: the gateway makes an `extra` per request whose
   * functions hold the request's scope, and V8's scavenger holds a WeakMap's values strongly,
   * so each request that evaluated an expression was promoted to the old generation, to be
   * freed only by a mark-compact (docs/performance-log.md, "A twenty-third machine").
   */
  constructor(
    private readonly variables: Readonly<Record<string, unknown>>,
    private readonly functions: FunctionTable,
    private readonly extra: FunctionTable | null = null,
  ) {}

  /** The function named `name`, or undefined when there is none. */
  fn(name: string): HclFunction | undefined {
    const own = Object.prototype.hasOwnProperty;
    if (this.extra !== null && own.call(this.extra, name)) return this.extra[name];
    return own.call(this.functions, name) ? this.functions[name] : undefined;
  }

  /** Every function's name (for the hint on an unknown one). */
  functionNames(): string[] {
    const names = Object.keys(this.functions);
    return this.extra === null ? names : [...new Set([...Object.keys(this.extra), ...names])];
  }

  /** The current element of each splat being evaluated, by its anonymous symbol. */
  get splatItems(): Map<Expression, HclValue> {
    return (this.splatItemsMap ??= new Map());
  }

  error(summary: string, detail: string, range: Range | undefined): HclValue {
    this.diags.push(errorDiag(summary, detail, range));
    return UNKNOWN;
  }

  pushScope(vars: Map<string, HclValue>): void {
    (this.locals ??= []).push(vars);
  }

  popScope(): void {
    this.locals?.pop();
  }

  lookup(name: string, range: Range): HclValue | undefined {
    const locals = this.locals;
    if (locals !== null) {
      for (let i = locals.length - 1; i >= 0; i--) {
        const v = (locals[i] as Map<string, HclValue>).get(name);
        if (v !== undefined) return v;
      }
    }
    const cached = this.converted?.get(name);
    if (cached !== undefined) return cached;
    if (!Object.prototype.hasOwnProperty.call(this.variables, name)) return undefined;
    try {
      const v = fromPlain(this.variables[name]);
      (this.converted ??= new Map()).set(name, v);
      return v;
    } catch (error) {
      if (!(error instanceof PlainConversionError)) throw error;
      return this.error('Invalid variable value', `The variable "${name}" cannot be used: ${error.message}.`, range);
    }
  }

  variableNames(): string[] {
    const names = new Set(Object.keys(this.variables));
    for (const scope of this.locals ?? []) for (const k of scope.keys()) names.add(k);
    return [...names];
  }

  /** Runs `fn` with its own diagnostics list, for conditional branches whose errors only count when selected. */
  isolated<T>(fn: () => T): { result: T; diags: Diagnostic[] } {
    const saved = this.diags.length;
    const result = fn();
    const diags = this.diags.splice(saved);
    return { result, diags };
  }
}
