import type { BinaryOperator, Expression, ForExpression, ObjectItem } from './ast.js';
import type { Range } from './diagnostics.js';
import { MAX_NESTING, type Peeker } from './peeker.js';
import { parseTemplateInner, plainQuotedTemplate } from './parse-template.js';
import { numberLiteral, parseTraversals } from './parse-traversal.js';
import type { Token, TokenType } from './tokens.js';
import { NULL } from './values.js';

/** Binding strength of the binary operators, loosest first; all are left-associative. */
const PRECEDENCE: Readonly<Partial<Record<TokenType, number>>> = {
  '||': 1,
  '&&': 2,
  '==': 3, '!=': 3,
  '<': 4, '>': 4, '<=': 4, '>=': 4,
  '+': 5, '-': 5,
  '*': 6, '/': 6, '%': 6,
};

export function parseExpression(p: Peeker): Expression {
  return parseConditional(p);
}

function parseConditional(p: Peeker): Expression {
  // Where it starts, not its range: most expressions are not conditionals.
  const startIndex = p.peekIndex();
  const before = p.diags.length;
  const cond = parseBinary(p, 1);
  if (p.recovery && p.diags.length > before) return cond;
  if (p.peekType() !== '?') return cond;
  p.skip();
  const trueResult = parseExpression(p);
  if (p.recovery && p.diags.length > before) return cond;
  const colon = p.peek();
  if (colon.type !== ':') {
    p.error('Missing false expression in conditional', 'The conditional operator (...?...:...) requires a false expression, delimited by a colon.', colon.range);
    return cond;
  }
  p.read();
  const falseResult = parseExpression(p);
  if (p.recovery && p.diags.length > before) return cond;
  return { kind: 'conditional', condition: cond, trueResult, falseResult, range: p.between(p.rangeAt(startIndex), falseResult.range) };
}

/** Operators binding at least as tightly as `minPrecedence`, by precedence climbing. */
function parseBinary(p: Peeker, minPrecedence: number): Expression {
  const before = p.diags.length;
  let lhs = parseWithTraversals(p);
  if (p.recovery && p.diags.length > before) return lhs;
  for (;;) {
    const precedence = PRECEDENCE[p.peekType()];
    if (precedence === undefined || precedence < minPrecedence) return lhs;
    const op = p.peekType() as BinaryOperator;
    p.skip();
    const rhs = parseBinary(p, precedence + 1);
    lhs = { kind: 'binary', op, lhs, rhs, range: p.between(lhs.range, rhs.range) };
    if (p.recovery && p.diags.length > before) return lhs;
  }
}

function parseWithTraversals(p: Peeker): Expression {
  if (p.depth >= MAX_NESTING) {
    const tok = p.read();
    if (!p.recovery) p.error('Too deeply nested', `Blocks and expressions may be nested at most ${MAX_NESTING} levels deep.`, tok.range);
    p.recovery = true;
    return { kind: 'invalid', range: tok.range };
  }
  p.depth += 1;
  try {
    return parseTraversals(p, parseTerm(p));
  } finally {
    p.depth -= 1;
  }
}

function parseTerm(p: Peeker): Expression {
  const start = p.peek();
  switch (start.type) {
    case '(': {
      const open = p.read();
      p.pushIncludeNewlines(false);
      const before = p.diags.length;
      const expr = parseExpression(p);
      if (p.diags.length > before) {
        p.recover(')');
        p.popIncludeNewlines();
        return expr;
      }
      const close = p.peek();
      if (close.type !== ')') {
        p.error('Unbalanced parentheses', 'Expected a closing parenthesis to terminate the expression.', close.range);
        p.recovery = true;
      }
      const cParen = p.read();
      p.popIncludeNewlines();
      return { kind: 'parens', expr, range: p.span(open, cParen) };
    }
    case 'number': {
      p.read();
      return { kind: 'literal', value: numberLiteral(p, start), range: start.range };
    }
    case 'ident': {
      p.read();
      const after = p.peek().type;
      if (after === '(' || after === '::') return finishCall(p, start);
      if (start.text === 'true') return { kind: 'literal', value: true, range: start.range };
      if (start.text === 'false') return { kind: 'literal', value: false, range: start.range };
      if (start.text === 'null') return { kind: 'literal', value: NULL, range: start.range };
      return { kind: 'scopeTraversal', root: start.text, rootRange: start.range, steps: [], range: start.range };
    }
    case 'oquote':
    case 'oheredoc': {
      const open = p.read();
      const plain = open.type === 'oquote' ? plainQuotedTemplate(p, open) : null;
      if (plain) return plain;
      const { parts, passthru } = parseTemplateInner(p, open.type === 'oquote' ? 'cquote' : 'cheredoc', open.flush === true, open);
      const range = p.between(open.range, p.prevRange());
      if (passthru) return { kind: 'templateWrap', wrapped: parts[0] as Expression, range };
      return { kind: 'template', parts, range };
    }
    case '-':
    case '!': {
      const tok = p.read();
      // Only a term with its traversals: -46+5 is (-46)+5.
      const operand = parseWithTraversals(p);
      return { kind: 'unary', op: start.type, operand, symbolRange: tok.range, range: p.between(tok.range, operand.range) };
    }
    case '[':
      return parseTuple(p);
    case '{':
      return parseObject(p);
    default:
      if (!p.recovery) {
        if (start.type === 'eof') p.error('Missing expression', 'Expected the start of an expression, but found the end of the file.', start.range);
        else p.error('Invalid expression', 'Expected the start of an expression, but found an invalid expression token.', start.range);
      }
      p.recovery = true;
      return { kind: 'invalid', range: start.range };
  }
}

function finishCall(p: Peeker, nameTok: Token): Expression {
  let open = p.read();
  let name = nameTok.text;
  let nameEnd = nameTok.range;
  while (open.type === '::') {
    const part = p.read();
    if (part.type !== 'ident') {
      p.error('Missing function name', 'Function scope resolution symbol :: must be followed by a function name in this scope.', part.range);
      p.recoverOver('(');
      return { kind: 'invalid', range: p.between(nameTok.range, part.range) };
    }
    name = `${name}::${part.text}`;
    nameEnd = part.range;
    open = p.read();
  }
  const nameRange = p.between(nameTok.range, nameEnd);
  if (open.type !== '(') {
    p.error('Missing open parenthesis', 'Function selector must be followed by an open parenthesis to begin the function call.', open.range);
    p.recoverOver('(');
    return { kind: 'invalid', range: p.between(nameTok.range, open.range) };
  }
  const args: Expression[] = [];
  let expandFinal = false;
  let close: Token = open;
  p.pushIncludeNewlines(false);
  for (;;) {
    if (p.peek().type === ')') {
      close = p.read();
      break;
    }
    const before = p.diags.length;
    args.push(parseExpression(p));
    if (p.recovery && p.diags.length > before) {
      const recovered = p.recover(')');
      if (recovered.type === ')') close = recovered;
      break;
    }
    const sepType = p.peekType();
    if (sepType !== ')' && sepType !== ',' && sepType !== '...' && !p.recovery && p.nextStartsBodyItem()) {
      p.error('Unterminated function call', 'There is no closing parenthesis (")") for this function call before the next line, which starts a new argument or block. Add the ")" where the call ends.', p.between(nameTok.range, open.range));
      p.stopBeforeLine();
      close = p.recover(')');
      break;
    }
    const sep = p.read();
    if (sep.type === ')') {
      close = sep;
      break;
    }
    if (sep.type === '...') {
      expandFinal = true;
      if (p.peek().type !== ')') {
        if (!p.recovery) p.error('Missing closing parenthesis', 'An expanded function argument (with ...) must be immediately followed by closing parentheses.', sep.range);
        close = p.recover(')');
      } else close = p.read();
      break;
    }
    if (sep.type !== ',') {
      if (sep.type === 'eof') p.error('Unterminated function call', 'There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.', p.between(nameTok.range, open.range));
      else p.error('Missing argument separator', 'A comma is required to separate each function argument from the next.', sep.range);
      close = p.recover(')');
      break;
    }
    if (p.peek().type === ')') {
      close = p.read();
      break;
    }
  }
  p.popIncludeNewlines();
  return { kind: 'call', name, args, expandFinal, nameRange, openParenRange: open.range, closeParenRange: close.range, range: p.between(nameRange, close.range) };
}

function parseTuple(p: Peeker): Expression {
  const open = p.read();
  p.pushIncludeNewlines(false);
  try {
    if (isKeyword(p.peek(), 'for')) return finishFor(p, open);
    const exprs: Expression[] = [];
    let close: Token;
    for (;;) {
      if (p.peekType() === ']') {
        close = p.read();
        break;
      }
      const before = p.diags.length;
      exprs.push(parseExpression(p));
      if (p.recovery && p.diags.length > before) {
        close = p.recover(']');
        break;
      }
      const nextType = p.peekType();
      if (nextType === ']') {
        close = p.read();
        break;
      }
      if (nextType !== ',' && !p.recovery && p.nextStartsBodyItem()) {
        p.error('Unterminated tuple constructor expression', 'There is no closing bracket ("]") before the next line, which starts a new argument or block. Add the "]" where the list ends.', open.range);
        p.stopBeforeLine();
        close = p.recover(']');
        break;
      }
      if (nextType !== ',') {
        if (!p.recovery) {
          if (nextType === 'eof') p.error('Unterminated tuple constructor expression', 'There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.', open.range);
          else p.error('Missing item separator', 'Expected a comma to mark the beginning of the next item.', p.peek().range);
        }
        close = p.recover(']');
        break;
      }
      p.skip();
    }
    return { kind: 'tuple', exprs, openRange: open.range, range: p.span(open, close) };
  } finally {
    p.popIncludeNewlines();
  }
}

function parseObject(p: Peeker): Expression {
  const open = p.read();
  p.pushIncludeNewlines(false);
  const isFor = isKeyword(p.peek(), 'for');
  p.popIncludeNewlines();
  if (isFor) {
    p.pushIncludeNewlines(false);
    try {
      return finishFor(p, open);
    } finally {
      p.popIncludeNewlines();
    }
  }
  p.pushIncludeNewlines(true);
  const items: ObjectItem[] = [];
  let close: Token;
  try {
    for (;;) {
      const nextType = p.peekType();
      if (nextType === 'newline') {
        p.skip();
        continue;
      }
      if (nextType === '}') {
        close = p.read();
        break;
      }
      const forceNonLiteral = nextType === '(';
      const before = p.diags.length;
      const key = parseExpression(p);
      if (p.recovery && p.diags.length > before) {
        close = p.recover('}');
        break;
      }
      const sepType = p.peekType();
      if (sepType !== '=' && sepType !== ':') {
        if (!p.recovery) {
          const sep = p.peek();
          if (sep.type === 'newline' || sep.type === ',') p.error('Missing attribute value', 'Expected an attribute value, introduced by an equals sign ("=").', sep.range);
          else if (sep.type === 'ident') p.error('Missing key/value separator', 'Expected an equals sign ("=") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.', sep.range);
          else if (sep.type === 'eof') p.error('Unterminated object constructor expression', 'There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.', open.range);
          else p.error('Missing key/value separator', 'Expected an equals sign ("=") to mark the beginning of the attribute value.', sep.range);
        }
        close = p.recover('}');
        break;
      }
      p.skip();
      const valueBefore = p.diags.length;
      const value = parseExpression(p);
      items.push({ key, keyIsBareName: forceNonLiteral ? undefined : bareName(key), forceNonLiteral, value });
      if (p.recovery && p.diags.length > valueBefore) {
        close = p.recover('}');
        break;
      }
      const afterType = p.peekType();
      if (afterType === '}') {
        close = p.read();
        break;
      }
      if (afterType !== ',' && afterType !== 'newline') {
        if (!p.recovery) {
          if (afterType === 'eof') p.error('Unterminated object constructor expression', 'There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.', open.range);
          else p.error('Missing attribute separator', 'Expected a newline or comma to mark the beginning of the next attribute.', p.peek().range);
        }
        close = p.recover('}');
        break;
      }
      p.skip();
    }
  } finally {
    p.popIncludeNewlines();
  }
  return { kind: 'object', items, openRange: open.range, range: p.span(open, close) };
}

/** A key written as a naked name (`{foo = 1}`, also `{null = 1}`) means that string. */
function bareName(key: Expression): string | undefined {
  if (key.kind === 'scopeTraversal' && key.steps.length === 0) return key.root;
  if (key.kind === 'literal' && key.range.end.byte - key.range.start.byte <= 5) {
    if (key.value === true) return 'true';
    if (key.value === false) return 'false';
    if (key.value === NULL) return 'null';
  }
  return undefined;
}

function isKeyword(tok: Token, word: string): boolean {
  return tok.type === 'ident' && tok.text === word;
}

function finishFor(p: Peeker, open: Token): Expression {
  p.read(); // "for"
  const makeObject = open.type === '{';
  const closeType: TokenType = makeObject ? '}' : ']';
  const bail = (detail: string): Expression => {
    const tok = p.peek();
    if (!p.recovery) p.error("Invalid 'for' expression", detail, tok.range);
    const close = p.recover(closeType);
    return { kind: 'invalid', range: p.between(open.range, close.range) };
  };
  if (p.peek().type !== 'ident') return bail("For expression requires variable name after 'for'.");
  let valVar = p.read().text;
  let keyVar: string | undefined;
  if (p.peek().type === ',') {
    keyVar = valVar;
    p.read();
    if (p.peek().type !== 'ident') return bail('For expression requires value variable name after comma.');
    valVar = p.read().text;
  }
  if (!isKeyword(p.peek(), 'in')) return bail("For expression requires the 'in' keyword after its name declarations.");
  p.read();
  const before = p.diags.length;
  const collection = parseExpression(p);
  if (p.recovery && p.diags.length > before) return { kind: 'invalid', range: p.between(open.range, p.recover(closeType).range) };
  if (p.peek().type !== ':') return bail('For expression requires a colon after the collection expression.');
  p.read();
  let keyExpr: Expression | undefined;
  let valExpr = parseExpression(p);
  if (p.peek().type === '=>') {
    p.read();
    keyExpr = valExpr;
    valExpr = parseExpression(p);
  }
  if (p.recovery && p.diags.length > before) return { kind: 'invalid', range: p.between(open.range, p.recover(closeType).range) };
  let ellipsis: Range | undefined;
  if (p.peek().type === '...') ellipsis = p.read().range;
  let condition: Expression | undefined;
  if (isKeyword(p.peek(), 'if')) {
    p.read();
    condition = parseExpression(p);
    if (p.recovery && p.diags.length > before) return { kind: 'invalid', range: p.between(open.range, p.recover(closeType).range) };
  }
  let close: Token;
  if (p.peek().type === closeType) close = p.read();
  else {
    if (!p.recovery) p.error("Invalid 'for' expression", "Extra characters after the end of the 'for' expression.", p.peek().range);
    close = p.recover(closeType);
  }
  if (!makeObject) {
    if (keyExpr) p.error("Invalid 'for' expression", 'Key expression is not valid when building a tuple.', keyExpr.range);
    if (ellipsis) p.error("Invalid 'for' expression", 'Grouping ellipsis (...) cannot be used when building a tuple.', ellipsis);
  } else if (!keyExpr) {
    p.error("Invalid 'for' expression", 'Key expression is required when building an object.', valExpr.range);
  }
  const result: ForExpression = {
    kind: 'for', keyVar, valVar, collection, keyExpr, valExpr, condition, group: ellipsis !== undefined,
    openRange: open.range, closeRange: close.range, range: p.between(open.range, close.range),
  };
  return result;
}
