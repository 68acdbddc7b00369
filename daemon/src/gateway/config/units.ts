// Durations are Go's syntax everywhere (the gateway's attributes, the daemon's environment); one parser in core.
export { parseGoDuration } from '../../core/duration.js';

const SIZE_UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** `64MiB`, `512KiB`, `1.5GiB`, `100B` in bytes (whole bytes, rounded down); a string is the problem. */
export function parseSize(text: string): number | string {
  const match = /^(\d+(?:\.\d+)?)(B|KiB|MiB|GiB)$/.exec(text.trim());
  if (!match) return `${JSON.stringify(text)} is not a size; write a number and one of the units B, KiB, MiB, GiB, e.g. 64MiB`;
  return Math.floor(Number(match[1]) * (SIZE_UNITS[match[2] as string] as number));
}
