import type { Expression, Traverser } from './ast.js';
import { rangeBetween } from './diagnostics.js';
import { HclNumber } from './number.js';
import { parseExpression } from './parse-expression.js';
import type { Peeker } from './peeker.js';
import type { Token } from './tokens.js';
import { NULL } from './values.js';

// Postfix operators after a term: `.attr`, legacy `.0`, `[key]`, and the `.*` / `[*]` splats.

function appendStep(expr: Expression, step: Traverser): Expression {
  if (expr.kind === 'scopeTraversal' || expr.kind === 'relativeTraversal') {
    expr.steps.push(step);
    expr.range = rangeBetween(expr.range, step.range);
    return expr;
  }
  return { kind: 'relativeTraversal', source: expr, steps: [step], range: rangeBetween(expr.range, step.range) };
}

function legacyIndexError(p: Peeker, num: Token, inSplat: boolean): void {
  const [first, second] = num.text.split('.');
  const how = inSplat ? 'Use the proper index syntax with a full splat expression [*] instead' : 'Use the proper index syntax instead';
  p.error('Invalid legacy index syntax', `When using the legacy index syntax, chaining two indexes together is not permitted. ${how}, like [${first}][${second}].`, num.range);
}

export function parseTraversals(p: Peeker, from: Expression): Expression {
  let ret = from;
  for (;;) {
    const nextType = p.peekType();
    if (nextType === '.') {
      const dot = p.read();
      const attr = p.peek();
      if (attr.type === 'ident') {
        p.read();
        ret = appendStep(ret, { kind: 'attr', name: attr.text, range: p.span(dot, attr) });
      } else if (attr.type === 'number') {
        p.read();
        const range = p.span(dot, attr);
        if (attr.text.includes('.')) {
          legacyIndexError(p, attr, false);
          ret = appendStep(ret, { kind: 'index', key: NULL, range });
        } else ret = appendStep(ret, { kind: 'index', key: numberLiteral(p, attr), range });
      } else if (attr.type === '*') {
        ret = finishAttrSplat(p, from, ret, dot, p.read());
      } else {
        p.error('Invalid attribute name', 'An attribute name is required after a dot.', attr.range);
        p.recovery = true;
        return { kind: 'invalid', range: p.between(from.range, dot.range) };
      }
    } else if (nextType === '[') {
      const open = p.read();
      if (p.peek().type === '*') {
        p.read();
        let close = p.read();
        if (close.type !== ']' && !p.recovery) {
          p.error('Missing close bracket on splat index', 'The star for a full splat operator must be immediately followed by a closing bracket ("]").', close.range);
          close = p.recover(']');
        }
        const markerRange = p.span(open, close);
        const each = parseTraversals(p, { kind: 'anonSymbol', range: markerRange });
        ret = { kind: 'splat', source: ret, each, markerRange, range: p.between(from.range, each.range) };
      } else {
        ret = finishIndex(p, from, ret, open);
      }
    } else {
      return ret;
    }
  }
}

function finishIndex(p: Peeker, from: Expression, ret: Expression, open: Token): Expression {
  p.pushIncludeNewlines(false);
  const before = p.diags.length;
  const key = parseExpression(p);
  let close: Token;
  if (p.recovery && p.diags.length > before) close = p.recover(']');
  else {
    close = p.read();
    if (close.type !== ']' && !p.recovery) {
      p.error('Missing close bracket on index', 'The index operator must end with a closing bracket ("]").', close.range);
      close = p.recover(']');
    }
  }
  p.popIncludeNewlines();
  const bracketRange = p.span(open, close);
  const constant = constantKey(key);
  if (constant !== undefined) return appendStep(ret, { kind: 'index', key: constant, range: bracketRange });
  return { kind: 'index', collection: ret, key, bracketRange, range: p.between(from.range, bracketRange) };
}

function constantKey(key: Expression): Extract<Traverser, { kind: 'index' }>['key'] | undefined {
  if (key.kind === 'literal') return key.value;
  if (key.kind === 'template' && key.parts.length === 1 && key.parts[0]?.kind === 'literal') return key.parts[0].value;
  return undefined;
}

function finishAttrSplat(p: Peeker, from: Expression, source: Expression, dot: Token, marker: Token): Expression {
  const markerRange = p.span(dot, marker);
  const item: Expression = { kind: 'anonSymbol', range: markerRange };
  const steps: Traverser[] = [];
  let lastRange = marker.range;
  const firstRange = p.nextRange();
  while (p.peek().type === '.') {
    const innerDot = p.read();
    const tok = p.peek();
    if (tok.type === 'number') {
      p.read();
      lastRange = tok.range;
      if (tok.text.includes('.')) {
        legacyIndexError(p, tok, true);
        steps.push({ kind: 'index', key: NULL, range: p.span(innerDot, tok) });
      } else steps.push({ kind: 'index', key: numberLiteral(p, tok), range: p.span(innerDot, tok) });
      continue;
    }
    if (tok.type !== 'ident') {
      if (!p.recovery) {
        if (tok.type === '*') p.error('Nested splat expression not allowed', 'A splat expression (*) cannot be used inside another attribute-only splat expression.', tok.range);
        else p.error('Invalid attribute name', 'An attribute name is required after a dot.', tok.range);
      }
      p.recovery = true;
      break;
    }
    p.read();
    steps.push({ kind: 'attr', name: tok.text, range: p.span(innerDot, tok) });
    lastRange = tok.range;
  }
  const each: Expression = steps.length === 0 ? item : { kind: 'relativeTraversal', source: item, steps, range: p.between(firstRange, lastRange) };
  return { kind: 'splat', source, each, markerRange, range: p.between(from.range, lastRange) };
}

export function numberLiteral(p: Peeker, tok: Token): HclNumber {
  const n = HclNumber.parse(tok.text);
  if (n) return n;
  p.error('Invalid number literal', 'Failed to recognize the value of this number literal.', tok.range);
  return HclNumber.ZERO;
}
