import type { Attribute, Block, Body } from './ast.js';
import { formatRange, type Range } from './diagnostics.js';
import { parseExpression } from './parse-expression.js';
import { MAX_NESTING, type Peeker } from './peeker.js';
import type { Token, TokenType } from './tokens.js';

/** Body = (Attribute | Block | OneLineBlock)*, up to `end` (EOF at top level, `}` in a block). */
export function parseBody(p: Peeker, end: 'eof' | '}', startRange: Range): Body {
  const attributes: Record<string, Attribute> = Object.create(null) as Record<string, Attribute>;
  const blocks: Block[] = [];
  let endRange = startRange;
  for (;;) {
    const nextType = p.peekType();
    if (nextType === end) {
      endRange = p.peek().range;
      p.skip();
      break;
    }
    if (nextType === 'newline') {
      p.skip();
      continue;
    }
    if (nextType === 'ident') {
      // Each item starts fresh so independent mistakes are all reported (upstream keeps
      // recovery mode on for the rest of the file and reports only the first).
      p.recovery = false;
      const item = parseBodyItem(p);
      if (item && 'expr' in item) {
        const existing = attributes[item.name];
        if (existing) {
          p.error('Attribute redefined', `The argument "${item.name}" was already set at ${formatRange(existing.nameRange)}. Each argument may be set only once.`, item.nameRange);
        } else attributes[item.name] = item;
      } else if (item) blocks.push(item);
      continue;
    }
    const bad = p.read();
    if (!p.recovery) {
      if (bad.type === 'oquote') p.error('Invalid argument name', 'Argument names must not be quoted.', bad.range);
      else if (bad.type === 'eof') {
        if (end === '}') p.error('Unclosed configuration block', 'There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.', startRange);
        else p.error('Unclosed configuration body', 'Found end of file before the end of this configuration body.', startRange);
      } else p.error('Argument or block definition required', 'An argument or block definition is required here.', bad.range);
    }
    endRange = p.prevRange();
    if (bad.type === 'eof') break;
    p.recover(end);
    break;
  }
  return { attributes, blocks, range: p.between(startRange, endRange) };
}

function parseBodyItem(p: Peeker): Attribute | Block | undefined {
  const ident = p.read();
  const next = p.peekType();
  if (next === '=') return finishAttribute(p, ident, false);
  if (next === 'oquote' || next === '{' || next === 'ident') return finishBlock(p, ident);
  p.recoverAfterBodyItem();
  p.error('Argument or block definition required', 'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.', ident.range);
  return undefined;
}

function finishAttribute(p: Peeker, ident: Token, singleLine: boolean): Attribute {
  p.skip(); // the equals sign
  const before = p.diags.length;
  const expr = parseExpression(p);
  let endRange = p.prevRange();
  if (p.recovery && p.diags.length > before) {
    p.recoverAfterBodyItem();
  } else if (!singleLine) {
    const endType = p.peekType();
    if (endType !== 'newline' && endType !== 'eof') {
      if (!p.recovery) {
        const end = p.peek();
        const comma = end.type === ',';
        p.error(
          comma ? 'Unexpected comma after argument' : 'Missing newline after argument',
          `${comma ? 'Argument definitions must be separated by newlines, not commas. ' : ''}An argument definition must end with a newline.`,
          end.range,
        );
      }
      endRange = p.prevRange();
      p.recoverAfterBodyItem();
    } else {
      p.skip(); // the newline
    }
  }
  return { name: ident.text, expr, range: p.between(ident.range, endRange), nameRange: ident.range };
}

function finishBlock(p: Peeker, ident: Token): Block | undefined {
  const labels: string[] = [];
  const labelRanges: Range[] = [];
  let oBrace: Token | undefined;
  while (!oBrace) {
    const tok = p.peek();
    if (tok.type === '{') oBrace = p.read();
    else if (tok.type === 'oquote') {
      const [label, range] = parseQuotedStringLiteral(p);
      labels.push(label);
      labelRanges.push(range);
    } else if (tok.type === 'ident') {
      p.read();
      labels.push(tok.text);
      labelRanges.push(tok.range);
    } else {
      if (tok.type === '=') p.error('Invalid block definition', 'The equals sign "=" indicates an argument definition, and must not be used when defining a block.', tok.range);
      else if (tok.type === 'newline') p.error('Invalid block definition', 'A block definition must have block content delimited by "{" and "}", starting on the same line as the block header.', tok.range);
      else if (!p.recovery) p.error('Invalid block definition', 'Either a quoted string block label or an opening brace ("{") is expected here.', tok.range);
      p.recoverAfterBodyItem();
      return undefined;
    }
  }
  if (p.depth >= MAX_NESTING) {
    p.error('Too deeply nested', `Blocks and expressions may be nested at most ${MAX_NESTING} levels deep.`, ident.range);
    p.recover('}');
    p.recoverAfterBodyItem();
    return undefined;
  }
  p.depth += 1;
  let body: Body;
  const first = p.peek().type;
  if (first === 'newline' || first === 'eof' || first === '}') {
    body = parseBody(p, '}', oBrace.range);
  } else {
    body = parseSingleAttrBody(p, oBrace);
  }
  p.depth -= 1;
  const cBraceRange = p.prevRange();
  const eolType = p.peekType();
  if (eolType === 'newline' || eolType === 'eof') p.skip();
  else {
    if (!p.recovery) p.error('Missing newline after block definition', 'A block definition must end with a newline.', p.peek().range);
    p.recoverAfterBodyItem();
  }
  return { type: ident.text, labels, body, range: p.between(ident.range, cBraceRange), typeRange: ident.range, labelRanges };
}

/** `label { name = expr }`: a one-line block holds exactly one attribute and no nested block. */
function parseSingleAttrBody(p: Peeker, oBrace: Token): Body {
  const attributes: Record<string, Attribute> = Object.create(null) as Record<string, Attribute>;
  const ident = p.read();
  let ok = false;
  if (ident.type !== 'ident') {
    p.recoverAfterBodyItem();
    p.error('Argument or block definition required', 'An argument or block definition is required here.', ident.range);
  } else {
    const next = p.peek();
    if (next.type === '=') {
      const attr = finishAttribute(p, ident, true);
      attributes[attr.name] = attr;
      ok = true;
    } else if (next.type === 'oquote' || next.type === '{' || next.type === 'ident') {
      p.recoverAfterBodyItem();
      p.error('Argument definition required', `A single-line block definition can contain only a single argument. If you meant to define argument "${ident.text}", use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.`, p.between(ident.range, next.range));
    } else {
      p.recoverAfterBodyItem();
      p.error('Argument or block definition required', 'An argument or block definition is required here. To set an argument, use the equals sign "=" to introduce the argument value.', ident.range);
    }
  }
  if (ok) closeSingleLineBlock(p, oBrace);
  return { attributes, blocks: [], range: p.between(oBrace.range, p.prevRange()) };
}

function closeSingleLineBlock(p: Peeker, oBrace: Token): void {
  const next = p.peek();
  const fail = (detail: string): void => {
    p.error('Invalid single-argument block definition', detail, next.range);
    p.recover('}');
  };
  switch (next.type as TokenType) {
    case '}':
      p.read();
      return;
    case ',':
      return fail('Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.');
    case 'newline':
      return fail("An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.");
    case 'eof':
      if (!p.recovery) p.error('Unclosed configuration block', 'There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.', oBrace.range);
      p.recover('}');
      return;
    default:
      if (!p.recovery) p.error('Invalid single-argument block definition', 'A single-line block definition must end with a closing brace immediately after its single argument definition.', next.range);
      p.recover('}');
  }
}

/** A quoted string where template sequences are not allowed (block labels). */
export function parseQuotedStringLiteral(p: Peeker): [string, Range] {
  const oQuote = p.read();
  let value = '';
  for (;;) {
    const tok = p.read();
    switch (tok.type) {
      case 'cquote':
        return [value, p.between(oQuote.range, tok.range)];
      case 'quotedlit':
        value += tok.value ?? '';
        break;
      case 'interp':
      case 'control': {
        const which = tok.type === 'interp' ? '$' : '%';
        p.error('Invalid string literal', `Template sequences are not allowed in this string. To include a literal "${which}", double it (as "${which}${which}") to escape it.`, tok.range);
        value += `${which}{ ... }`;
        p.recover('seqend');
        break;
      }
      case 'eof':
        p.error('Unterminated string literal', 'Unable to find the closing quote mark before the end of the file.', tok.range);
        return [value, p.between(oQuote.range, tok.range)];
      default:
        p.error('Invalid string literal', 'This item is not valid in a string literal.', tok.range);
        p.recover('cquote');
        return [value, p.between(oQuote.range, tok.range)];
    }
  }
}
