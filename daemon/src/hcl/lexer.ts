import { errorDiag, type Diagnostic } from './diagnostics.js';
import { scanEscape } from './lexer-escape.js';
import { SourceText } from './source-text.js';
import { TokenList, type TokenType } from './tokens.js';

/**
 * Scanner for the native syntax. It mirrors upstream's scan_tokens.rl: a mode stack
 * (expressions, quoted templates, heredocs) and brace counting so `}` knows whether it
 * closes a `${`/`%{` sequence or an object. Problems with single characters (stray
 * `;`, bad escapes, multi-line quoted strings) are reported here, like upstream's
 * checkInvalidTokens pass. Tokens keep only string offsets; positions come from the
 * SourceText's line table when a range is needed.
 */
export function scan(src: string, filename: string): { tokens: TokenList; diagnostics: Diagnostic[] } {
  return new Scanner(new SourceText(src, filename)).run();
}

interface HeredocMode {
  kind: 'heredoc';
  marker: string;
  startOfLine: boolean;
}
type Mode = { kind: 'main' } | { kind: 'string' } | HeredocMode;

const MAIN: Mode = { kind: 'main' };
const STRING: Mode = { kind: 'string' };

/** Single-character operators by char code (the ones that are not also the start of a longer token handled first). */
const SINGLE: Array<TokenType | undefined> = [];
for (const c of '[](),.*/%+-=<>!?:') SINGLE[c.charCodeAt(0)] = c as TokenType;
const ID_START = /[\p{ID_Start}_]/u;
const ID_CONTINUE = /[\p{ID_Continue}-]/u;
const HEREDOC_OPENER = /<<(-?)([\p{ID_Start}_][\p{ID_Continue}-]*)(\r?\n)/uy;

const enum C {
  Tab = 9, LF = 10, CR = 13, Space = 32, Bang = 33, Quote = 34, Hash = 35, Dollar = 36, Percent = 37, Amp = 38,
  Star = 42, Plus = 43, Minus = 45, Dot = 46, Slash = 47, Zero = 48, Nine = 57, Colon = 58, Lt = 60, Eq = 61, Gt = 62,
  E = 69, Backslash = 92, Underscore = 95, LowerE = 101, LBrace = 123, Pipe = 124, RBrace = 125, Tilde = 126,
}

class Scanner {
  private i: number;
  private readonly src: string;
  private readonly tokens: TokenList;
  private readonly diags: Diagnostic[] = [];
  private readonly modes: Mode[] = [MAIN];
  private braces = 0;
  private readonly retBraces: number[] = [];
  /** Offset of the opening quote of each quoted string being scanned, innermost last. */
  private readonly quoteStarts: number[] = [];
  private toldSemicolon = false;
  private toldBitwise = 0;

  constructor(private readonly source: SourceText) {
    this.src = source.text;
    this.tokens = new TokenList(source);
    this.i = this.src.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  run(): { tokens: TokenList; diagnostics: Diagnostic[] } {
    const n = this.src.length;
    while (this.i < n) {
      const mode = this.modes[this.modes.length - 1] as Mode;
      if (mode.kind === 'main') this.scanMain();
      else if (mode.kind === 'string') this.scanString();
      else this.scanHeredoc(mode);
    }
    this.tokens.push('eof', n, n);
    return { tokens: this.tokens, diagnostics: this.diags };
  }

  private emit(type: TokenType, length: number, value?: string, strip = false, flush = false): void {
    this.tokens.push(type, this.i, this.i + length, value, strip, flush);
    this.i += length;
  }

  private error(summary: string, detail: string, start: number, end: number): void {
    this.diags.push(errorDiag(summary, detail, this.source.range(start, end)));
  }

  private scanMain(): void {
    const src = this.src;
    const i = this.i;
    const c = src.charCodeAt(i);
    const next = src.charCodeAt(i + 1);
    switch (c) {
      case C.Space:
      case C.Tab: {
        let j = i + 1;
        for (let d = src.charCodeAt(j); d === C.Space || d === C.Tab; d = src.charCodeAt(++j));
        this.i = j;
        return;
      }
      case C.LF:
        return this.emit('newline', 1);
      case C.CR:
        if (next === C.LF) return this.emit('newline', 2);
        break;
      case C.Hash:
        return this.scanLineComment();
      case C.Slash:
        if (next === C.Slash) return this.scanLineComment();
        if (next === C.Star) {
          const end = src.indexOf('*/', i + 2);
          // An unclosed comment is not a comment at all upstream: "/" and "*" scan as operators.
          if (end >= 0) {
            this.i = end + 2;
            return;
          }
        }
        return this.emit('/', 1);
      case C.Quote:
        this.quoteStarts.push(i);
        this.emit('oquote', 1);
        this.modes.push(STRING);
        return;
      case C.LBrace:
        this.braces += 1;
        return this.emit('{', 1);
      case C.RBrace:
        return this.closeBrace(false);
      case C.Tilde:
        if (next === C.RBrace) return this.closeBrace(true);
        break;
      case C.Dot:
        return this.emit(next === C.Dot && src.charCodeAt(i + 2) === C.Dot ? '...' : '.', next === C.Dot && src.charCodeAt(i + 2) === C.Dot ? 3 : 1);
      case C.Eq:
        if (next === C.Eq) return this.emit('==', 2);
        if (next === C.Gt) return this.emit('=>', 2);
        return this.emit('=', 1);
      case C.Bang:
        return next === C.Eq ? this.emit('!=', 2) : this.emit('!', 1);
      case C.Lt:
        if (next === C.Lt && this.scanHeredocOpener()) return;
        return next === C.Eq ? this.emit('<=', 2) : this.emit('<', 1);
      case C.Gt:
        return next === C.Eq ? this.emit('>=', 2) : this.emit('>', 1);
      case C.Amp:
        if (next === C.Amp) return this.emit('&&', 2);
        break;
      case C.Pipe:
        if (next === C.Pipe) return this.emit('||', 2);
        break;
      case C.Colon:
        return next === C.Colon ? this.emit('::', 2) : this.emit(':', 1);
      default:
        if (c >= C.Zero && c <= C.Nine) return this.scanNumber();
        if (isIdentStart(src, i, c)) return this.scanIdent();
        break;
    }
    const one = SINGLE[c];
    if (one) return this.emit(one, 1);
    this.scanInvalid();
  }

  private closeBrace(strip: boolean): void {
    const top = this.retBraces[this.retBraces.length - 1];
    const length = strip ? 2 : 1;
    if (top !== undefined && top === this.braces) {
      this.emit('seqend', length, undefined, strip);
      this.retBraces.pop();
      this.braces -= 1;
      this.modes.pop();
      return;
    }
    this.braces -= 1;
    // `~}` that closes no sequence is still a sequence end, so the parser reports the misuse.
    this.emit(strip ? 'seqend' : '}', length, undefined, strip);
  }

  private scanNumber(): void {
    const src = this.src;
    let j = this.i + 1;
    for (;;) {
      const c = src.charCodeAt(j);
      if ((c >= C.Zero && c <= C.Nine) || c === C.Dot) j++;
      else if (c === C.LowerE || c === C.E) {
        const d = src.charCodeAt(j + 1);
        if (d >= C.Zero && d <= C.Nine) j += 2;
        else if ((d === C.Plus || d === C.Minus) && isDigitCode(src.charCodeAt(j + 2))) j += 3;
        else break;
      } else break;
    }
    // A number literal never ends with a dot: `foo.0.bar` is a legacy index, not `0.`.
    while (src.charCodeAt(j - 1) === C.Dot) j--;
    this.emit('number', j - this.i);
  }

  private scanIdent(): void {
    const src = this.src;
    let j = this.i + ((src.codePointAt(this.i) as number) > 0xffff ? 2 : 1);
    for (;;) {
      const c = src.charCodeAt(j);
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= C.Zero && c <= C.Nine) || c === C.Underscore || c === C.Minus) j++;
      else if (c >= 0x80) {
        const cp = src.codePointAt(j) as number;
        if (!ID_CONTINUE.test(String.fromCodePoint(cp))) break;
        j += cp > 0xffff ? 2 : 1;
      } else break;
    }
    this.emit('ident', j - this.i);
  }

  private scanLineComment(): void {
    const end = this.src.indexOf('\n', this.i);
    if (end < 0) {
      this.i = this.src.length;
      return;
    }
    // A line comment counts as the newline that ends it (upstream's peeker does the same).
    this.emit('newline', end + 1 - this.i);
  }

  private scanHeredocOpener(): boolean {
    HEREDOC_OPENER.lastIndex = this.i;
    const m = HEREDOC_OPENER.exec(this.src);
    if (!m) return false;
    const [whole, dash, marker] = m as unknown as [string, string, string];
    this.emit('oheredoc', whole.length, undefined, false, dash === '-');
    this.modes.push({ kind: 'heredoc', marker, startOfLine: true });
    return true;
  }

  private scanInvalid(): void {
    const start = this.i;
    const cp = this.src.codePointAt(start) as number;
    this.emit('invalid', cp > 0xffff ? 2 : 1);
    const end = this.i;
    const c = String.fromCodePoint(cp);
    if (c === '&' || c === '|' || c === '^' || c === '~') {
      if (this.toldBitwise < 4) {
        const hint = c === '&' ? ' Did you mean boolean AND ("&&")?' : c === '|' ? ' Did you mean boolean OR ("||")?' : c === '~' ? ' Did you mean boolean NOT ("!")?' : '';
        this.error('Unsupported operator', `Bitwise operators are not supported.${hint}`, start, end);
        this.toldBitwise += 1;
      }
    } else if (c === ';') {
      if (!this.toldSemicolon) this.error('Invalid character', 'The ";" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.', start, end);
      this.toldSemicolon = true;
    } else if (c === '`') {
      this.error('Invalid character', 'The "`" character is not valid. To create a multi-line string, use the "heredoc" syntax, like "<<EOT".', start, end);
    } else if (c === "'") {
      this.error('Invalid character', 'Single quotes are not valid. Use double quotes (") to enclose strings.', start, end);
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      this.error('Invalid character encoding', 'All input files must be UTF-8 encoded. Ensure that UTF-8 encoding is selected in your editor.', start, end);
    } else {
      this.error('Invalid character', 'This character is not used within the language.', start, end);
    }
  }

  /** `${` / `%{` (optionally with `~`) at the current position: emits the opener and enters expression mode. */
  private scanSequenceOpener(): boolean {
    const src = this.src;
    const c = src.charCodeAt(this.i);
    if ((c !== C.Dollar && c !== C.Percent) || src.charCodeAt(this.i + 1) !== C.LBrace) return false;
    const strip = src.charCodeAt(this.i + 2) === C.Tilde;
    this.emit(c === C.Dollar ? 'interp' : 'control', strip ? 3 : 2, undefined, strip);
    this.braces += 1;
    this.retBraces.push(this.braces);
    this.modes.push(MAIN);
    return true;
  }

  private scanString(): void {
    const src = this.src;
    if (this.scanSequenceOpener()) return;
    const c = src.charCodeAt(this.i);
    if (c === C.Quote) {
      this.emit('cquote', 1);
      this.modes.pop();
      this.quoteStarts.pop();
      return;
    }
    if (c === C.LF || c === C.CR) {
      this.endUnterminatedString();
      // A lone carriage return is not a line break in expressions: it belonged to the string.
      if (c === C.CR && src.charCodeAt(this.i + 1) !== C.LF) this.i += 1;
      return;
    }
    this.scanQuotedLiteral();
  }

  /**
   * A quoted string that reaches the end of its line: almost always a missing closing quote.
   * Upstream scans on into the next lines, which turns the rest of the file inside out (text
   * outside strings scans as string content and the other way round) and buries the cause
   * under dozens of follow-on errors. Here the string, and every string and interpolation it
   * sits in, ends at the line break with zero-width closers, so the parser carries on at the
   * next line and the one error reported is this one.
   */
  private endUnterminatedString(): void {
    const quote = this.quoteStarts[this.quoteStarts.length - 1] as number;
    this.error(
      'Invalid multi-line string',
      'This string has no closing quote (") on its line. Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the "heredoc" multi-line template syntax.',
      quote,
      this.i,
    );
    for (;;) {
      const top = this.modes[this.modes.length - 1] as Mode;
      if (top.kind === 'string') {
        this.tokens.push('cquote', this.i, this.i);
        this.modes.pop();
        this.quoteStarts.pop();
        continue;
      }
      // An interpolation inside a quoted string ends with it; one inside a heredoc may span lines.
      const parent = this.modes[this.modes.length - 2];
      if (top.kind === 'main' && parent?.kind === 'string' && this.retBraces.length > 0) {
        this.tokens.push('seqend', this.i, this.i);
        this.braces = (this.retBraces.pop() as number) - 1;
        this.modes.pop();
        continue;
      }
      return;
    }
  }

  /** A run of quoted-string text up to the next quote, newline or sequence opener, with escapes resolved. */
  private scanQuotedLiteral(): void {
    const src = this.src;
    const n = src.length;
    const start = this.i;
    let i = start;
    // Runs without escapes are sliced once; `value` only collects pieces when something was rewritten.
    let value = '';
    let runStart = i;
    while (i < n) {
      const c = src.charCodeAt(i);
      if (c === C.Quote || c === C.LF || c === C.CR) break;
      if (c === C.Dollar || c === C.Percent) {
        const d = src.charCodeAt(i + 1);
        if (d === C.LBrace) break;
        if (d === c && src.charCodeAt(i + 2) === C.LBrace) {
          value += src.slice(runStart, i + 1) + '{';
          i += 3;
          runStart = i;
          continue;
        }
        i++;
        continue;
      }
      if (c === C.Backslash) {
        value += src.slice(runStart, i);
        const escape = scanEscape(src, i);
        if (escape.error) this.error('Invalid escape sequence', escape.error, i, i + escape.length);
        value += escape.value;
        i += escape.length;
        runStart = i;
        continue;
      }
      i++;
    }
    value = runStart === start ? src.slice(start, i) : value + src.slice(runStart, i);
    this.tokens.push('quotedlit', start, i, value);
    this.i = i;
  }

  private scanHeredoc(mode: HeredocMode): void {
    const src = this.src;
    if (this.scanSequenceOpener()) {
      mode.startOfLine = false;
      return;
    }
    const startIndex = this.i;
    let j = startIndex;
    let value: string;
    // Upstream scans a lone "$" or "%" as its own literal, which matters for the end-marker check.
    const c = src.charCodeAt(j);
    if (c === C.Dollar || c === C.Percent) {
      if (src.charCodeAt(j + 1) === c && src.charCodeAt(j + 2) === C.LBrace) {
        value = c === C.Dollar ? '${' : '%{';
        j += 3;
      } else {
        value = c === C.Dollar ? '$' : '%';
        j += 1;
      }
    } else {
      for (let d = c; j < src.length && d !== C.Dollar && d !== C.Percent && d !== C.LF && d !== C.CR; d = src.charCodeAt(++j));
      value = src.slice(startIndex, j);
    }
    let eol = 0;
    const e = src.charCodeAt(j);
    if (e === C.LF) eol = 1;
    else if (e === C.CR && src.charCodeAt(j + 1) === C.LF) eol = 2;
    else if (e === C.CR && j === startIndex) {
      // A lone carriage return is ordinary text.
      j += 1;
      value = '\r';
    }
    if (eol > 0) {
      if (mode.startOfLine && isMarkerLine(value, mode.marker)) {
        // The marker and its newline are separate tokens so the newline can end the attribute.
        this.emit('cheredoc', j - startIndex);
        this.emit('newline', eol);
        this.modes.pop();
        return;
      }
      mode.startOfLine = true;
      this.emit('stringlit', j + eol - startIndex, value + (eol === 1 ? '\n' : '\r\n'));
      return;
    }
    mode.startOfLine = false;
    this.emit('stringlit', j - startIndex, value);
  }
}

/** Whether a heredoc line is its end marker, allowing white space around it. */
function isMarkerLine(line: string, marker: string): boolean {
  if (line.length < marker.length) return false;
  return line === marker || line.trim() === marker;
}

function isDigitCode(c: number): boolean {
  return c >= C.Zero && c <= C.Nine;
}

function isIdentStart(src: string, i: number, c: number): boolean {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === C.Underscore) return true;
  if (c < 0x80) return false;
  const cp = src.codePointAt(i) as number;
  return ID_START.test(String.fromCodePoint(cp));
}
