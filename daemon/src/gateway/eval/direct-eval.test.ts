import { describe, expect, it } from 'vitest';
import { evaluate, HclError, parseExpressionSource, type Expression } from '../../hcl/index.js';
import { loadOk } from '../config/testing/config-files.js';
import type { RequestInfo } from '../contracts.js';
import { directEvaluator } from './direct-eval.js';
import { resolveTraversals } from './lenient-traversals.js';
import { RequestScope } from './request-scope.js';

function expression(source: string): Expression {
  const { expr, diagnostics } = parseExpressionSource(source, 'test.hcl');
  if (diagnostics.some((d) => d.severity === 'error')) throw new HclError(diagnostics);
  return expr;
}

function requestInfo(headers: Record<string, string | string[]>): RequestInfo {
  return {
    id: 'req-1',
    method: 'GET',
    url: new URL('http://example.com:8080/items/42?tag=a&tag=b&n=1'),
    clientIp: '127.0.0.1',
    headers,
    pathParams: { id: '42' },
    wildcard: null,
    startedAt: Date.now(),
  };
}

/** What the evaluator gives, or the message it fails with. */
function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { error: error instanceof Error ? error.constructor.name : String(error) };
  }
}

describe('direct evaluation', () => {
  it('gives what the HCL evaluator gives for variables and objects of variables and constants', async () => {
    const config = await loadOk({ 'portico.hcl': 'server {\n endpoint "/" {\n response { body = "ok" }\n }\n}\n' }, { HOME: '/home/ada', N: '3' });
    const direct = [
      'request.id',
      'request.headers.x-a',
      'request.headers.x-missing',
      'request.headers',
      'request.query.tag',
      'request.query.tag[1]',
      'request.query["n"][0]',
      'request.port',
      'request.path_params',
      'request.context',
      'request.nothing.deeper',
      'env.HOME',
      'env',
      'gateway.version',
      'nothing_here.x',
      '{ x-request = request.id, x-a = request.headers.x-a }',
      '{ "quoted key" = request.method, b = "text", c = 1.5, d = true, e = null, f = request.headers.x-missing }',
      '{ a = request.id, a = request.method, b = 1 }',
      '{ __proto__ = request.id, constructor = "c", toString = request.port }',
      '{ h = request.headers, q = request.query, multi = request.headers.x-multi }',
      '{}',
    ];
    const general = ['"${request.id}-x"', '{ a = "${request.id}" }', '{ a = [1, 2] }', '{ a = { b = 1 } }', '{ (request.id) = 1 }', 'to_lower(request.method)', '{ a = request.port + 1 }'];
    const headers = { 'x-a': 'one', 'x-multi': ['1', '2'], cookie: 'a=1' };
    for (const source of direct) {
      const expr = expression(source);
      const run = directEvaluator(expr);
      expect(run, source).not.toBeNull();
      const byEvaluator = outcome(() => evaluate(resolveTraversals(expr, new RequestScope({ config, request: requestInfo(headers) })), {}));
      expect(outcome(() => run!(new RequestScope({ config, request: requestInfo(headers) }))), source).toEqual(byEvaluator);
      const value = (byEvaluator as { value?: unknown }).value;
      if (source.startsWith('{') && value !== null && typeof value === 'object') {
        expect(Object.keys(run!(new RequestScope({ config, request: requestInfo(headers) })) as object), source).toEqual(Object.keys(value));
      }
    }
    for (const source of general) expect(directEvaluator(expression(source)), source).toBeNull();
  });

  it('fails where the evaluator fails: a number it cannot hold', () => {
    const resolver = { resolve: (root: string) => (root === 'odd' ? { n: Number.NaN } : undefined) };
    const expr = expression('{ a = odd.n }');
    const byEvaluator = outcome(() => evaluate(resolveTraversals(expr, resolver), {}));
    expect(byEvaluator).toHaveProperty('error');
    expect(outcome(() => directEvaluator(expr)!(resolver))).toEqual(byEvaluator);
  });
});
