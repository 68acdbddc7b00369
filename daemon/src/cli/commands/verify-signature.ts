import { readFileSync } from 'node:fs';
import { UsageError } from '../../core/errors.js';
import { verifySignatures } from '../../ingest/signing.js';
import { parseCommandArgs } from '../parse.js';

const HELP = `Usage: portico verify-signature (--secret-file FILE | PORTICO_CALLBACK_SECRET) [--body FILE] [-H 'Name: value']...

For webhook receivers: checks a callback's signatures offline. Reads the raw body from --body
FILE (or standard input) and the headers from -H options (X-Service-Signature and/or
webhook-id, webhook-timestamp, webhook-signature). Every signature given must match.
Prints "valid" and exits 0, or "invalid: <why>" and exits 1.

Options:
      --secret-file FILE   file holding the shared secret (trailing newline ignored)
      --secret SECRET      the secret itself (visible to other users in ps; prefer the file or
                           PORTICO_CALLBACK_SECRET)
      --body FILE          raw request body (default: standard input)
  -H, --header 'N: V'      a received header; repeatable
      --tolerance SECONDS  also reject webhook-timestamp further than this from now (replays)
  -h, --help               show this help`;

/** `portico verify-signature`; returns the exit code (0 valid, 1 invalid, 2 usage). */
export async function verifySignatureCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      'secret-file': { type: 'string' },
      secret: { type: 'string' },
      body: { type: 'string' },
      header: { type: 'string', short: 'H', multiple: true },
      tolerance: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    HELP,
  );
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const secret = values['secret-file'] !== undefined ? readFileSync(values['secret-file'], 'utf8').replace(/\r?\n$/, '') : (values.secret ?? process.env.PORTICO_CALLBACK_SECRET);
  if (!secret) throw new UsageError('give the secret with --secret-file FILE, --secret or PORTICO_CALLBACK_SECRET', HELP);
  const headers = new Map<string, string>();
  for (const line of values.header ?? []) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`-H '${line}' is not 'Name: value'`, HELP);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  let tolerance: number | null = null;
  if (values.tolerance !== undefined) {
    tolerance = Number(values.tolerance);
    if (!Number.isFinite(tolerance) || tolerance < 0) throw new UsageError('--tolerance must be a number of seconds', HELP);
  }
  const body = values.body !== undefined && values.body !== '-' ? readFileSync(values.body) : await readStdin();
  const result = verifySignatures({
    secret,
    body,
    serviceSignature: headers.get('x-service-signature'),
    webhookId: headers.get('webhook-id'),
    webhookTimestamp: headers.get('webhook-timestamp'),
    webhookSignature: headers.get('webhook-signature'),
    toleranceSeconds: tolerance,
  });
  if (result.valid) {
    console.log(`valid (${result.checked.join(', ')})`);
    return 0;
  }
  console.log(`invalid: ${result.problems.join('; ')}`);
  return 1;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
