import { errorDiag, type Diagnostic, type Pos, type Range } from './diagnostics.js';
import type { Token, TokenType } from './tokens.js';

/**
 * Scanner for the native syntax. It mirrors upstream's scan_tokens.rl: a mode stack
 * (expressions, quoted templates, heredocs) and brace counting so `}` knows whether it
 * closes a `${`/`%{` sequence or an object. Problems with single characters (stray
 * `;`, bad escapes, multi-line quoted strings) are reported here, like upstream's
 * checkInvalidTokens pass.
 */
export function scan(src: string, filename: string): { tokens: Token[]; diagnostics: Diagnostic[] } {
  return new Scanner(src, filename).run();
}

type Mode = { kind: 'main' } | { kind: 'string' } | { kind: 'heredoc'; marker: string; startOfLine: boolean };

const SINGLE: Record<string, TokenType> = {
  '[': '[', ']': ']', '(': '(', ')': ')', ',': ',', '.': '.', '*': '*', '/': '/', '%': '%',
  '+': '+', '-': '-', '=': '=', '<': '<', '>': '>', '!': '!', '?': '?', ':': ':',
};
const DOUBLE: Record<string, TokenType> = {
  '==': '==', '!=': '!=', '<=': '<=', '>=': '>=', '&&': '&&', '||': '||', '::': '::', '=>': '=>',
};
const DOUBLE_FIRST = new Set(['=', '!', '<', '>', '&', '|', ':']);
const ID_START = /[\p{ID_Start}_]/u;
const ID_CONTINUE = /[\p{ID_Continue}-]/u;

class Scanner {
  private i = 0;
  private line = 1;
  private col = 1;
  private byte = 0;
  private readonly tokens: Token[] = [];
  private readonly diags: Diagnostic[] = [];
  private readonly modes: Mode[] = [{ kind: 'main' }];
  private braces = 0;
  private readonly retBraces: number[] = [];
  private toldSemicolon = false;
  private toldBitwise = 0;

  constructor(
    private readonly src: string,
    private readonly filename: string,
  ) {
    if (src.charCodeAt(0) === 0xfeff) {
      // A BOM is skipped but still counts in byte offsets, as upstream does.
      this.i = 1;
      this.byte = 3;
    }
  }

  run(): { tokens: Token[]; diagnostics: Diagnostic[] } {
    while (this.i < this.src.length) {
      const mode = this.modes[this.modes.length - 1] as Mode;
      if (mode.kind === 'main') this.scanMain();
      else if (mode.kind === 'string') this.scanString();
      else this.scanHeredoc(mode);
    }
    const here = this.pos();
    this.tokens.push({ type: 'eof', text: '', range: { filename: this.filename, start: here, end: here } });
    return { tokens: this.tokens, diagnostics: this.diags };
  }

  private pos(): Pos {
    return { line: this.line, column: this.col, byte: this.byte };
  }

  /** Moves past `n` UTF-16 units, keeping line, column (code points) and UTF-8 byte offset. */
  private advance(n: number): void {
    const end = this.i + n;
    const src = this.src;
    while (this.i < end) {
      const c = src.charCodeAt(this.i);
      if (c === 10) {
        this.line += 1;
        this.col = 1;
        this.byte += 1;
        this.i += 1;
        continue;
      }
      this.col += 1;
      if (c < 0x80) this.byte += 1;
      else if (c < 0x800) this.byte += 2;
      else if (c >= 0xd800 && c <= 0xdbff && this.i + 1 < src.length) {
        const d = src.charCodeAt(this.i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          this.byte += 4;
          this.i += 2;
          continue;
        }
        this.byte += 3;
      } else this.byte += 3;
      this.i += 1;
    }
  }

  private emit(type: TokenType, length: number, extra?: Partial<Token>): Token {
    const start: Pos = { line: this.line, column: this.col, byte: this.byte };
    const text = this.src.slice(this.i, this.i + length);
    this.advance(length);
    const token: Token = { type, text, range: { filename: this.filename, start, end: { line: this.line, column: this.col, byte: this.byte } } };
    if (extra) Object.assign(token, extra);
    this.tokens.push(token);
    return token;
  }

  private scanMain(): void {
    const src = this.src;
    const c = src[this.i] as string;
    const next = src[this.i + 1];
    if (c === ' ' || c === '\t') {
      let j = this.i + 1;
      while (src[j] === ' ' || src[j] === '\t') j++;
      this.advance(j - this.i);
      return;
    }
    if (c >= '0' && c <= '9') return this.scanNumber();
    if (isIdentStart(src, this.i)) return this.scanIdent();
    if (c === '\n') return void this.emit('newline', 1);
    if (c === '\r' && next === '\n') return void this.emit('newline', 2);
    if (c === '#' || (c === '/' && next === '/')) return this.scanLineComment();
    if (c === '/' && next === '*') {
      const end = src.indexOf('*/', this.i + 2);
      // An unclosed comment is not a comment at all upstream: "/" and "*" scan as operators.
      if (end >= 0) return this.advance(end + 2 - this.i);
    }
    if (c === '"') {
      this.emit('oquote', 1);
      this.modes.push({ kind: 'string' });
      return;
    }
    if (c === '<' && next === '<' && this.scanHeredocOpener()) return;
    if (c === '{') {
      this.braces += 1;
      return void this.emit('{', 1);
    }
    if (c === '}' || (c === '~' && next === '}')) return this.closeBrace(c === '~');
    if (c === '.' && next === '.' && src[this.i + 2] === '.') return void this.emit('...', 3);
    const two = next !== undefined && DOUBLE_FIRST.has(c) ? DOUBLE[c + next] : undefined;
    if (two) return void this.emit(two, 2);
    const one = SINGLE[c];
    if (one) return void this.emit(one, 1);
    this.scanInvalid(c);
  }

  private closeBrace(strip: boolean): void {
    const top = this.retBraces[this.retBraces.length - 1];
    if (top !== undefined && top === this.braces) {
      this.emit('seqend', strip ? 2 : 1, { strip });
      this.retBraces.pop();
      this.braces -= 1;
      this.modes.pop();
      return;
    }
    this.braces -= 1;
    // `~}` that closes no sequence is still a sequence end, so the parser reports the misuse.
    this.emit(strip ? 'seqend' : '}', strip ? 2 : 1, strip ? { strip } : undefined);
  }

  private scanNumber(): void {
    const src = this.src;
    let j = this.i + 1;
    for (;;) {
      const c = src[j];
      if (c !== undefined && ((c >= '0' && c <= '9') || c === '.')) j++;
      else if (c === 'e' || c === 'E') {
        const d = src[j + 1];
        if (d !== undefined && d >= '0' && d <= '9') j += 2;
        else if ((d === '+' || d === '-') && isDigit(src[j + 2])) j += 3;
        else break;
      } else break;
    }
    // A number literal never ends with a dot: `foo.0.bar` is a legacy index, not `0.`.
    while (src[j - 1] === '.') j--;
    this.emit('number', j - this.i);
  }

  private scanIdent(): void {
    const src = this.src;
    let j = this.i + (src.codePointAt(this.i) as number > 0xffff ? 2 : 1);
    for (;;) {
      const c = src.charCodeAt(j);
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45) j++;
      else if (c >= 0x80) {
        const cp = src.codePointAt(j) as number;
        if (!ID_CONTINUE.test(String.fromCodePoint(cp))) break;
        j += cp > 0xffff ? 2 : 1;
      } else break;
    }
    this.emit('ident', j - this.i);
  }

  private scanLineComment(): void {
    let end = this.src.indexOf('\n', this.i);
    if (end < 0) return this.advance(this.src.length - this.i);
    // A line comment counts as the newline that ends it (upstream's peeker does the same).
    this.emit('newline', end + 1 - this.i);
  }

  private scanHeredocOpener(): boolean {
    const m = /^<<(-?)([\p{ID_Start}_][\p{ID_Continue}-]*)(\r?\n)/u.exec(this.src.slice(this.i, this.i + 260));
    if (!m) return false;
    const [whole, dash, marker] = m as unknown as [string, string, string];
    this.emit('oheredoc', whole.length, { flush: dash === '-' });
    this.modes.push({ kind: 'heredoc', marker, startOfLine: true });
    return true;
  }

  private scanInvalid(c: string): void {
    const start = this.pos();
    const cp = this.src.codePointAt(this.i) as number;
    const len = cp > 0xffff ? 2 : 1;
    const token = this.emit('invalid', len);
    const range: Range = { filename: this.filename, start, end: token.range.end };
    if (c === '&' || c === '|' || c === '^' || c === '~') {
      if (this.toldBitwise < 4) {
        const hint = c === '&' ? ' Did you mean boolean AND ("&&")?' : c === '|' ? ' Did you mean boolean OR ("||")?' : c === '~' ? ' Did you mean boolean NOT ("!")?' : '';
        this.diags.push(errorDiag('Unsupported operator', `Bitwise operators are not supported.${hint}`, range));
        this.toldBitwise += 1;
      }
    } else if (c === ';') {
      if (!this.toldSemicolon) this.diags.push(errorDiag('Invalid character', 'The ";" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.', range));
      this.toldSemicolon = true;
    } else if (c === '`') {
      this.diags.push(errorDiag('Invalid character', 'The "`" character is not valid. To create a multi-line string, use the "heredoc" syntax, like "<<EOT".', range));
    } else if (c === "'") {
      this.diags.push(errorDiag('Invalid character', 'Single quotes are not valid. Use double quotes (") to enclose strings.', range));
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      this.diags.push(errorDiag('Invalid character encoding', 'All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.', range));
    } else {
      this.diags.push(errorDiag('Invalid character', 'This character is not used within the language.', range));
    }
  }

  /** `${` / `%{` (optionally with `~`) at the current position: emits the opener and enters expression mode. */
  private scanSequenceOpener(): boolean {
    const src = this.src;
    const c = src[this.i];
    if ((c !== '$' && c !== '%') || src[this.i + 1] !== '{') return false;
    const strip = src[this.i + 2] === '~';
    this.emit(c === '$' ? 'interp' : 'control', strip ? 3 : 2, { strip });
    this.braces += 1;
    this.retBraces.push(this.braces);
    this.modes.push({ kind: 'main' });
    return true;
  }

  private scanString(): void {
    const src = this.src;
    if (this.scanSequenceOpener()) return;
    const c = src[this.i];
    if (c === '"') {
      this.emit('cquote', 1);
      this.modes.pop();
      return;
    }
    if (c === '\n' || c === '\r') {
      let j = this.i;
      while (src[j] === '\n' || src[j] === '\r') j++;
      const token = this.emit('quotednewline', j - this.i);
      this.diags.push(errorDiag('Invalid multi-line string', 'Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.', token.range));
      return;
    }
    this.scanQuotedLiteral();
  }

  /** A run of quoted-string text up to the next quote, newline or sequence opener, with escapes resolved. */
  private scanQuotedLiteral(): void {
    const src = this.src;
    const start = this.pos();
    const startIndex = this.i;
    let value = '';
    while (this.i < src.length) {
      // Copy runs of plain characters in one slice; only escapes and $/% need a closer look.
      let j = this.i;
      for (;;) {
        const code = src.charCodeAt(j);
        if (j >= src.length || code === 34 || code === 10 || code === 13 || code === 92 || code === 36 || code === 37) break;
        j++;
      }
      if (j > this.i) {
        value += src.slice(this.i, j);
        this.advance(j - this.i);
        continue;
      }
      const c = src[this.i] as string;
      if (c === '"' || c === '\n' || c === '\r') break;
      if ((c === '$' || c === '%') && src[this.i + 1] === '{') break;
      if ((c === '$' || c === '%') && src[this.i + 1] === c && src[this.i + 2] === '{') {
        value += `${c}{`;
        this.advance(3);
        continue;
      }
      if (c === '\\') {
        value += this.scanEscape();
        continue;
      }
      value += c;
      this.advance(1);
    }
    this.tokens.push({
      type: 'quotedlit',
      text: src.slice(startIndex, this.i),
      value,
      range: { filename: this.filename, start, end: this.pos() },
    });
  }

  private scanEscape(): string {
    const src = this.src;
    const start = this.pos();
    const sel = src[this.i + 1];
    const fail = (detail: string, length: number, result: string): string => {
      this.advance(length);
      this.diags.push(errorDiag('Invalid escape sequence', detail, { filename: this.filename, start, end: this.pos() }));
      return result;
    };
    switch (sel) {
      case 'n': this.advance(2); return '\n';
      case 'r': this.advance(2); return '\r';
      case 't': this.advance(2); return '\t';
      case '"': this.advance(2); return '"';
      case '\\': this.advance(2); return '\\';
      case 'u':
      case 'U': {
        const want = sel === 'u' ? 4 : 8;
        let n = 0;
        while (n < want && /[0-9a-fA-F]/.test(src[this.i + 2 + n] ?? '')) n++;
        if (n < want) return fail(`The \\${sel} escape sequence must be followed by ${sel === 'u' ? 'four' : 'eight'} hexadecimal digits.`, 2 + n, '');
        const cp = parseInt(src.slice(this.i + 2, this.i + 2 + want), 16);
        if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
          return fail(`Cannot encode character U+${cp.toString(16).padStart(4, '0')} in UTF-8.`, 2 + want, '');
        }
        this.advance(2 + want);
        return String.fromCodePoint(cp);
      }
      case undefined:
      case '\n':
      case '\r':
        return fail('Backslash must be followed by an escape sequence selector character.', 1, '');
      default: {
        const cp = src.codePointAt(this.i + 1) as number;
        const ch = String.fromCodePoint(cp);
        return fail(`The symbol ${JSON.stringify(ch)} is not a valid escape sequence selector.`, 1 + ch.length, ch);
      }
    }
  }

  private scanHeredoc(mode: Extract<Mode, { kind: 'heredoc' }>): void {
    const src = this.src;
    if (this.scanSequenceOpener()) {
      mode.startOfLine = false;
      return;
    }
    const startIndex = this.i;
    let j = this.i;
    let value = '';
    // Upstream scans a lone "$" or "%" as its own literal, which matters for the end-marker check.
    const c = src[j];
    if (c === '$' || c === '%') {
      if (src[j + 1] === c && src[j + 2] === '{') {
        value = `${c}{`;
        j += 3;
      } else {
        value = c;
        j += 1;
      }
    } else {
      while (j < src.length) {
        const d = src[j];
        if (d === '$' || d === '%' || d === '\n' || d === '\r') break;
        j++;
      }
      value = src.slice(startIndex, j);
    }
    let eol = 0;
    if (src[j] === '\n') eol = 1;
    else if (src[j] === '\r' && src[j + 1] === '\n') eol = 2;
    else if (src[j] === '\r' && j === startIndex) {
      // A lone carriage return is ordinary text.
      j += 1;
      value = '\r';
    }
    if (eol > 0) {
      if (mode.startOfLine && value.trim() === mode.marker) {
        // The marker and its newline are separate tokens so the newline can end the attribute.
        this.emit('cheredoc', j - startIndex);
        this.emit('newline', eol);
        this.modes.pop();
        return;
      }
      mode.startOfLine = true;
      this.emitLiteral(j + eol - startIndex, value + src.slice(j, j + eol));
      return;
    }
    mode.startOfLine = false;
    this.emitLiteral(j - startIndex, value);
  }

  private emitLiteral(length: number, value: string): void {
    this.emit('stringlit', length, { value });
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function isIdentStart(src: string, i: number): boolean {
  const c = src.charCodeAt(i);
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) return true;
  if (c < 0x80) return false;
  const cp = src.codePointAt(i) as number;
  return ID_START.test(String.fromCodePoint(cp));
}
