import { describe, expect, it } from 'vitest';
import { parseExpressionSource } from '../../hcl/index.js';
import { backendResponseLabel, expressionRefs } from './expr-refs.js';

function refs(source: string): { variables: string[]; calls: string[] } {
  const { expr, diagnostics } = parseExpressionSource(source, 'test');
  expect(diagnostics).toEqual([]);
  const found = expressionRefs(expr);
  return { variables: found.variables.map((v) => v.root), calls: found.calls.map((c) => c.name) };
}

describe('the variables and calls of an expression', () => {
  it('finds roots in templates, calls, conditionals, collections and splats', () => {
    expect(refs('"${env.A}-${to_lower(request.method)}" == (x ? y[0] : z.*.name)')).toEqual({ variables: ['env', 'request', 'x', 'y', 'z'], calls: ['to_lower'] });
  });

  it('leaves out names bound by for expressions and bare object keys', () => {
    expect(refs('{ for k, v in env : k => v if v != other }')).toEqual({ variables: ['env', 'other'], calls: [] });
    expect(refs('{ request = 1, (env.KEY) = unixtime() }')).toEqual({ variables: ['env'], calls: ['unixtime'] });
  });

  it('finds nothing in constants, and the variables of a template with an interpolation or a directive', () => {
    for (const constant of ['"5s"', '100', 'true', '"a\\nb"', '<<EOT\nplain\nEOT\n']) expect(refs(constant)).toEqual({ variables: [], calls: [] });
    expect(refs('"a-${env.B}"')).toEqual({ variables: ['env'], calls: [] });
    expect(refs('"%{ if request.method == "GET" }get%{ endif }"')).toEqual({ variables: ['request'], calls: [] });
    expect(refs('<<EOT\n${upper(x)}\nEOT\n')).toEqual({ variables: ['x'], calls: ['upper'] });
  });

  it('reads the label of backend_responses.<label> and backend_responses["<label>"]', () => {
    const labels = (source: string): (string | undefined)[] =>
      expressionRefs(parseExpressionSource(source, 'test').expr).variables.map(backendResponseLabel);
    expect(labels('[backend_responses.a.status, backend_responses["b"].body, backend_responses, request.id]')).toEqual(['a', 'b', undefined, undefined]);
  });
});
