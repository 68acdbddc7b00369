import { fromPlain, toPlain, type PlainValue } from '../plain.js';
import type { HclType, HclValue } from '../values.js';
import { PorticoError } from '../../core/errors.js';

export interface HclParam {
  name: string;
  /** Arguments are converted to this type before the call ('dynamic' accepts anything). */
  type: HclType;
  /** Null arguments are rejected with "argument must not be null" unless allowed. */
  allowNull?: boolean;
}

/** A function callable from expressions; argument checking follows go-cty's function specs. */
export interface HclFunction {
  params: HclParam[];
  /** The parameter that takes any number of further arguments. */
  varParam?: HclParam;
  impl(args: HclValue[]): HclValue;
}

export type FunctionTable = Record<string, HclFunction>;

/** An error about one argument: reported as `Invalid value for "<param>" parameter: ...`. */
export class FunctionArgError extends PorticoError {
  override name = 'FunctionArgError';
  constructor(
    readonly argIndex: number,
    message: string,
  ) {
    super('hcl_function_argument', message, { category: 'invalid' });
  }
}

/**
 * Wraps a function over plain JS values (how the gateway's runtime functions such as
 * `jwt_sign` are easiest to write); arguments are still checked and converted first.
 */
export function definePlainFunction(spec: {
  params: HclParam[];
  varParam?: HclParam;
  impl: (args: PlainValue[]) => unknown;
}): HclFunction {
  const { params, varParam, impl } = spec;
  const fn: HclFunction = { params, impl: (args) => fromPlain(impl(args.map(toPlain))) };
  if (varParam) fn.varParam = varParam;
  return fn;
}
