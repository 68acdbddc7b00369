/** One backslash escape in a quoted string: what it stands for, how many UTF-16 units it spans, and its error if invalid. */
export interface Escape {
  value: string;
  length: number;
  error?: string;
}

const SIMPLE: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/** Resolves the escape sequence starting with the backslash at `i`. */
export function scanEscape(src: string, i: number): Escape {
  const sel = src[i + 1];
  if (sel === undefined || sel === '\n' || sel === '\r') {
    return { value: '', length: 1, error: 'Backslash must be followed by an escape sequence selector character.' };
  }
  const simple = SIMPLE[sel];
  if (simple !== undefined) return { value: simple, length: 2 };
  if (sel === 'u' || sel === 'U') {
    const want = sel === 'u' ? 4 : 8;
    let n = 0;
    while (n < want && isHex(src.charCodeAt(i + 2 + n))) n++;
    if (n < want) {
      return { value: '', length: 2 + n, error: `The \\${sel} escape sequence must be followed by ${sel === 'u' ? 'four' : 'eight'} hexadecimal digits.` };
    }
    const cp = parseInt(src.slice(i + 2, i + 2 + want), 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return { value: '', length: 2 + want, error: `Cannot encode character U+${cp.toString(16).padStart(4, '0')} in UTF-8.` };
    }
    return { value: String.fromCodePoint(cp), length: 2 + want };
  }
  const ch = String.fromCodePoint(src.codePointAt(i + 1) as number);
  return { value: ch, length: 1 + ch.length, error: `The symbol ${JSON.stringify(ch)} is not a valid escape sequence selector.` };
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
