import type { Attribute, Block, Body } from './ast.js';
import { emptyRangeOf, formatRange, type Range } from './diagnostics.js';
import { parseExpression } from './parse-expression.js';
import { MAX_NESTING, type Peeker } from './peeker.js';
import type { Reuse } from './reuse.js';
import type { Token, TokenType } from './tokens.js';

/** Body = (Attribute | Block | OneLineBlock)*, up to `end` (EOF at top level, `}` in a block whose header is `header`). */
export function parseBody(p: Peeker, end: 'eof' | '}', startRange: Range, header?: Range): Body {
  const attributes: Record<string, Attribute> = Object.create(null) as Record<string, Attribute>;
  const blocks: Block[] = [];
  let endRange = startRange;
  for (;;) {
    const nextType = p.peekType();
    if (nextType === end) {
      endRange = p.peek().range;
      if (header) p.closedBlocks.push({ header, open: startRange, close: endRange });
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
      p.boundary = false;
      const start = p.peekIndex();
      const kept = p.reuse?.at(start);
      if (kept) {
        // The previous parse's block, the same tokens parsed the same way; then the line ends as in finishBlock.
        const reuse = p.reuse as Reuse;
        reuse.used = true;
        blocks.push(reuse.blocks.blocks[kept.entry] as Block);
        p.blockIndex?.copySubtree(reuse.blocks, kept.entry, kept.shift);
        p.resumeAfter(kept.end);
        endBlockItem(p);
        continue;
      }
      const entry = p.blockIndex?.open(start) ?? -1;
      const item = parseBodyItem(p);
      if (entry >= 0) {
        if (item && !('expr' in item)) p.blockIndex?.close(entry, item, p.blockEnd);
        else p.blockIndex?.drop(entry);
      }
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
        if (end === '}') unclosedBlockError(p, startRange);
        else p.error('Unclosed configuration body', 'Found end of file before the end of this configuration body.', startRange);
      } else p.error('Argument or block definition required', 'An argument or block definition is required here.', bad.range);
    }
    endRange = p.prevRange();
    if (bad.type === 'eof') {
      // One missing brace leaves every enclosing block open too: report it once, not once per level.
      p.recovery = true;
      break;
    }
    p.recover(end);
    break;
  }
  return { attributes, blocks, range: p.between(startRange, endRange) };
}

/**
 * The file ended inside the block opened at `open`. The brace that is missing is usually
 * not this block's but an inner one's, whose "}" then closed this block instead: look for a
 * block inside it whose closing brace is indented differently from its header (the last one
 * opened, the innermost), as an editor's indentation shows where the author meant it to end.
 */
function unclosedBlockError(p: Peeker, open: Range): void {
  let stray: (typeof p.closedBlocks)[number] | undefined;
  for (const block of p.closedBlocks) {
    if (block.open.start.byte <= open.start.byte || block.open.start.line === block.close.start.line) continue;
    if (p.indentOf(block.header) === p.indentOf(block.close)) continue;
    if (!stray || block.open.start.byte > stray.open.start.byte) stray = block;
  }
  if (!stray) {
    p.error('Unclosed configuration block', 'There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.', open);
    return;
  }
  p.error(
    'Unclosed configuration block',
    `This block seems to have no closing brace: the "}" on line ${stray.close.start.line} is indented like an outer block's, yet it is the one that closes this block, so the file ends with a block still open. Add the missing "}" where this block should end.`,
    p.between(stray.header, stray.open),
  );
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
  let endOffset = p.prevEnd();
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
      endOffset = p.prevEnd();
      p.recoverAfterBodyItem();
    } else {
      p.skip(); // the newline
    }
  }
  return { name: ident.text, expr, range: p.spanTo(ident, endOffset), nameRange: ident.range };
}

function finishBlock(p: Peeker, ident: Token): Block | undefined {
  const labels: string[] = [];
  const labelRanges: Range[] = [];
  let oBrace: Token | undefined;
  /** `endpoint "/a {`: the label's quote was never closed and took the brace with it (the scanner reported it). */
  let braceInLabel: Range | undefined;
  while (!oBrace && !braceInLabel) {
    const tok = p.peek();
    if (tok.type === '{') oBrace = p.read();
    else if (tok.type === 'oquote') {
      const [label, range, unclosed] = parseQuotedStringLiteral(p);
      const opensBody = unclosed && /\{\s*$/.test(label) && p.peekType() === 'newline';
      labels.push(opensBody ? label.replace(/\s*\{\s*$/, '') : label);
      labelRanges.push(range);
      if (opensBody) braceInLabel = range;
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
  if (!oBrace || first === 'newline' || first === 'eof' || first === '}') {
    body = parseBody(p, '}', oBrace?.range ?? emptyRangeOf(braceInLabel as Range, 'end'), ident.range);
  } else {
    body = parseSingleAttrBody(p, oBrace);
  }
  p.depth -= 1;
  const endOffset = p.prevEnd();
  p.blockEnd = p.lastIndex();
  endBlockItem(p);
  return { type: ident.text, labels, body, range: p.spanTo(ident, endOffset), typeRange: ident.range, labelRanges };
}

/** After a block's closing brace: the line must end there. */
function endBlockItem(p: Peeker): void {
  const eolType = p.peekType();
  if (eolType === 'newline' || eolType === 'eof') p.skip();
  else {
    if (!p.recovery) p.error('Missing newline after block definition', 'A block definition must end with a newline.', p.peek().range);
    p.recoverAfterBodyItem();
  }
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
/** The label, its range, and whether its quote was left open (the scanner closed it at the line break). */
export function parseQuotedStringLiteral(p: Peeker): [string, Range, boolean] {
  const oQuote = p.read();
  let value = '';
  for (;;) {
    const tok = p.read();
    switch (tok.type) {
      case 'cquote':
        return [value, p.span(oQuote, tok), tok.start === tok.end];
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
        return [value, p.between(oQuote.range, tok.range), true];
      default:
        p.error('Invalid string literal', 'This item is not valid in a string literal.', tok.range);
        p.recover('cquote');
        return [value, p.between(oQuote.range, tok.range), false];
    }
  }
}
