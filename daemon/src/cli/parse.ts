import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** node:util parseArgs, strict, with its errors turned into UsageErrors that carry the usage text. */
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>>;

export function parseCommandArgs<O extends Options>(argv: string[], options: O, usage: string, allowPositionals = false): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw new UsageError(`unknown option '${flag}'`, usage);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const arg = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw new UsageError(`unexpected argument '${arg}'`, usage);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new UsageError(message.replace(/\.$/, ''), usage);
    throw error;
  }
}
