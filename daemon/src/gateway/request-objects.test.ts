// Objects made per request have no accessor of their own. An object literal with `get x()`
// inside a function gets a new closure, so V8 gives each such object a hidden class of its
// own; the old generation's transition tree pointed at those, and every request's objects
// outlived young-generation collections and were promoted (3-7 MB per scavenge under load,
// pauses of 13-27 ms; docs/gateway.md, "Performance"). A class with the getter on its
// prototype does the same lazily without that. Objects made once (a module's constants, a
// factory's result) are fine; the folders below are those a request passes through.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const GATEWAY = fileURLToPath(new URL('.', import.meta.url));
const REQUEST_PATH = ['http', 'endpoint', 'access', 'backend', 'eval', 'router', 'modifiers', 'openapi', 'websockets', 'errors'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** `name:line` of each accessor of an object literal made inside a function. */
function accessorsInFunctions(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, inFunction: boolean): void => {
    if ((ts.isGetAccessor(node) || ts.isSetAccessor(node)) && ts.isObjectLiteralExpression(node.parent) && inFunction) {
      found.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    const entersFunction = ts.isFunctionLike(node) && !ts.isGetAccessor(node) && !ts.isSetAccessor(node);
    ts.forEachChild(node, (child) => visit(child, inFunction || entersFunction));
  };
  visit(source, false);
  return found;
}

it('the request path makes no object literal with accessors of its own', () => {
  const offenders = REQUEST_PATH.flatMap((folder) => sourceFiles(join(GATEWAY, folder))).flatMap((file) => accessorsInFunctions(relative(GATEWAY, file), readFileSync(file, 'utf8')));
  // Made once per server, not per request: the upgrade registry's `size`.
  expect(offenders.filter((o) => !o.startsWith('websockets/websocket-upgrades.ts:'))).toEqual([]);
});

it('tells an accessor made per call from one made once', () => {
  const text = [
    'const ONCE = { get a() { return 1; } };',
    'class C { get b() { return 2; } }',
    'function perCall(c) {',
    '  return { get signal() { return c.signal; } };',
    '}',
  ].join('\n');
  expect(accessorsInFunctions('probe.ts', text)).toEqual(['probe.ts:4']);
});
