import type { Range } from './diagnostics.js';
import type { HclValue } from './values.js';

/** One step after a variable: `.name`, `[key]` with a constant key, or legacy `.0`. */
export type Traverser =
  | { kind: 'attr'; name: string; range: Range }
  | { kind: 'index'; key: HclValue; range: Range };

export type BinaryOperator = '||' | '&&' | '==' | '!=' | '<' | '>' | '<=' | '>=' | '+' | '-' | '*' | '/' | '%';

/** Expression nodes. Every node has its source range; names follow upstream's hclsyntax AST. */
export type Expression =
  | { kind: 'literal'; value: HclValue; range: Range }
  | { kind: 'template'; parts: Expression[]; range: Range }
  /** A template that is a single interpolation: yields the value unconverted. */
  | { kind: 'templateWrap'; wrapped: Expression; range: Range }
  /** A `%{for}` directive: the tuple of rendered parts joined into one string. */
  | { kind: 'templateJoin'; tuple: ForExpression; range: Range }
  | { kind: 'scopeTraversal'; root: string; rootRange: Range; steps: Traverser[]; range: Range }
  | { kind: 'relativeTraversal'; source: Expression; steps: Traverser[]; range: Range }
  | {
      kind: 'call';
      name: string;
      args: Expression[];
      expandFinal: boolean;
      nameRange: Range;
      openParenRange: Range;
      closeParenRange: Range;
      range: Range;
    }
  | { kind: 'conditional'; condition: Expression; trueResult: Expression; falseResult: Expression; range: Range }
  | { kind: 'binary'; op: BinaryOperator; lhs: Expression; rhs: Expression; range: Range }
  | { kind: 'unary'; op: '-' | '!'; operand: Expression; symbolRange: Range; range: Range }
  | { kind: 'tuple'; exprs: Expression[]; openRange: Range; range: Range }
  | { kind: 'object'; items: ObjectItem[]; openRange: Range; range: Range }
  | ForExpression
  | { kind: 'index'; collection: Expression; key: Expression; bracketRange: Range; range: Range }
  | { kind: 'splat'; source: Expression; each: Expression; markerRange: Range; range: Range }
  /** The placeholder for "each element" inside a splat's `each` expression. */
  | { kind: 'anonSymbol'; range: Range }
  | { kind: 'parens'; expr: Expression; range: Range }
  /** Placeholder where a syntax error was reported; never evaluated, since parse errors stop evaluation. */
  | { kind: 'invalid'; range: Range };

export interface ObjectItem {
  key: Expression;
  /** A bare identifier key like `{foo = 1}` means the string "foo"; parentheses force an expression. */
  keyIsBareName: string | undefined;
  /** The key was written in parentheses: always an expression, never a bare name. */
  forceNonLiteral: boolean;
  value: Expression;
}

export interface ForExpression {
  kind: 'for';
  keyVar: string | undefined;
  valVar: string;
  collection: Expression;
  keyExpr: Expression | undefined;
  valExpr: Expression;
  condition: Expression | undefined;
  group: boolean;
  openRange: Range;
  closeRange: Range;
  range: Range;
}

export interface Attribute {
  name: string;
  expr: Expression;
  /** The whole `name = expr` definition. */
  range: Range;
  nameRange: Range;
}

export interface Block {
  type: string;
  labels: string[];
  body: Body;
  range: Range;
  typeRange: Range;
  labelRanges: Range[];
}

export interface Body {
  attributes: Record<string, Attribute>;
  blocks: Block[];
  range: Range;
}
