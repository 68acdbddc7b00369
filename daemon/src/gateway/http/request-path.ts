import { GatewayError } from '../errors/error-types.js';

/**
 * A request path the gateway can route as it is: routes, access controls, files and the
 * upstream URL all see this one path, so no form of dot segment may reach them (a URL
 * parser or path join downstream would remove it and leave the matched route). Refused
 * with 400: `.` and `..` segments as sent or percent-encoded once (`%2e%2e`, `.%2E`), a
 * backslash (`\`, `%5c`: some servers take it for `/`), NUL, malformed percent-encoding, and
 * a dot segment behind an encoded slash (`a%2F..%2Fadmin`: a backend that decodes `%2F` before
 * it resolves dot segments, as nginx does when it matches locations, would climb out of the
 * route), and a dot segment with `;` parameters (`/open/..;/admin`: a servlet container drops
 * the parameters and then climbs). Anything encoded twice (`%252e`) is no dot segment here and
 * travels on still encoded. A segment whose full-width or other compatibility characters read
 * as one of these (`%EF%BC%8E%EF%BC%8E` is `．．`, `..` to a backend that maps them to ASCII) is
 * refused too.
 */
export function checkRequestPath(path: string): void {
  // The common cases need no segment walk: a path with no dot, percent, backslash or NUL; and
  // one with dots but none of the others nor a `;` (`/api/items.json`), where a dot segment is
  // a segment that is all one or two dots.
  if (!/[.%\\\0]/.test(path)) return;
  if (!/[%\\\0;]/.test(path)) {
    const dots = DOT_SEGMENT.exec(path);
    if (dots !== null) throw refuse(`the dot segment ${JSON.stringify(dots[1])}`);
    return;
  }
  const problem = segmentProblem(path);
  if (problem !== null) throw refuse(problem);
}

/**
 * What the request path holds that checkRequestPath refuses, found by walking every segment
 * (decoded once), or null. checkRequestPath answers the common paths without the walk, as this
 * would (path-traversal.test.ts holds the two to the same answers).
 */
export function segmentProblem(path: string): string | null {
  if (path.includes('\\')) return 'a backslash';
  if (path.includes('\0')) return 'a NUL byte';
  for (const segment of path.split('/')) {
    if (segment === '') continue;
    let decoded: string;
    try {
      decoded = segment.includes('%') ? decodeURIComponent(segment) : segment;
    } catch {
      return `malformed percent-encoding in ${JSON.stringify(segment)}`;
    }
    if (decoded === '.' || decoded === '..') return `the dot segment ${JSON.stringify(segment)}`;
    // `..;x` is `..` to a servlet container, which drops `;` parameters before it resolves dot segments.
    if (DOT_WITH_PARAMS.test(decoded)) return `the dot segment with parameters ${JSON.stringify(segment)}`;
    if (hidesDotSegment(decoded)) return `a dot segment behind an encoded slash in ${JSON.stringify(segment)}`;
    if (decoded.includes('\\')) return 'an encoded backslash';
    if (decoded.includes('\0')) return 'an encoded NUL byte';
    if (NON_ASCII.test(decoded)) {
      const problem = compatibilityProblem(decoded);
      if (problem !== null) return `${problem} in ${JSON.stringify(segment)}, written in full-width or other compatibility characters`;
    }
  }
  return null;
}

/** A character outside ASCII: where Unicode normalisation may change a path segment. */
export const NON_ASCII = /[^\x00-\x7f]/;

/**
 * What a segment decoded once holds once its compatibility characters are read as the ASCII
 * they stand for (Unicode NFKC: full-width `．．` is `..`, `＼` is `\`, `／` is `/`), as a backend
 * that maps them does (IIS's best-fit mapping, a framework that normalises paths with NFKC): a
 * dot segment (with `;` parameters or behind such a slash) or a backslash. Null when none.
 */
function compatibilityProblem(decoded: string): string | null {
  const folded = decoded.normalize('NFKC');
  if (folded === decoded) return null;
  if (folded === '.' || folded === '..' || DOT_WITH_PARAMS.test(folded) || hidesDotSegment(folded)) return 'a dot segment';
  if (folded.includes('\\')) return 'a backslash';
  return null;
}

/** `.` or `..` followed by `;` and parameters (`..;`, `.;x=1`). */
const DOT_WITH_PARAMS = /^\.\.?;/;

/** A `.` or `..` segment as sent, in a path with nothing percent-encoded. */
const DOT_SEGMENT = /(?:^|\/)(\.\.?)(?=\/|$)/;

/** True when a segment decoded once holds `.` or `..` between encoded slashes (`..%2Fadmin`). */
function hidesDotSegment(decoded: string): boolean {
  return decoded.includes('/') && decoded.split('/').some((part) => part === '.' || part === '..');
}

/** True when a path segment, as sent or decoded once, is `.` or `..` (with `;` parameters or not), or hides one behind an encoded slash. */
export function isDotSegment(segment: string): boolean {
  if (segment === '.' || segment === '..' || DOT_WITH_PARAMS.test(segment)) return true;
  if (!segment.includes('%')) return false;
  try {
    const decoded = decodeURIComponent(segment);
    return decoded === '.' || decoded === '..' || DOT_WITH_PARAMS.test(decoded) || hidesDotSegment(decoded);
  } catch {
    return false;
  }
}

function refuse(what: string): GatewayError {
  return new GatewayError('client_request', `the request path contains ${what}; paths with dot segments (encoded or not), backslashes or NUL are refused so that the route matched is the route served`);
}
