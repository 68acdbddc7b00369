import type { Range } from './diagnostics.js';

export type TokenType =
  | 'ident'
  | 'number'
  | 'oquote'
  | 'cquote'
  | 'oheredoc'
  | 'cheredoc'
  | 'quotedlit'
  | 'stringlit'
  | 'quotednewline'
  | 'interp'
  | 'control'
  | 'seqend'
  | '{'
  | '}'
  | '['
  | ']'
  | '('
  | ')'
  | ','
  | '.'
  | '*'
  | '/'
  | '%'
  | '+'
  | '-'
  | '='
  | '<'
  | '>'
  | '!'
  | '?'
  | ':'
  | '=='
  | '!='
  | '<='
  | '>='
  | '&&'
  | '||'
  | '::'
  | '...'
  | '=>'
  | 'newline'
  | 'invalid'
  | 'eof';

export interface Token {
  type: TokenType;
  /** The source text of the token. */
  text: string;
  range: Range;
  /** Literal tokens: the text after escapes are resolved. */
  value?: string;
  /** interp/control openers and seqend closers: whether the `~` strip marker is present. */
  strip?: boolean;
  /** Heredoc openers: whether it is the indent-stripping `<<-` form. */
  flush?: boolean;
}
