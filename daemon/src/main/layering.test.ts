import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const AREAS = ['gateway', 'cds', 'infosessions', 'ingest'];
/** Folders every area builds on; they must not know any area, nor the composition root. */
const FOUNDATION = ['core', 'store', 'control', 'hcl', 'display'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(path);
    // Tests and their kits (in testing/ folders) may start the whole daemon; the rule is for what ships.
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Folders under src/ that a file imports from, by its relative import specifiers (static and dynamic, type-only included). */
function importedFolders(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => relative(SRC, join(file, '..', s)).split('/')[0]!);
}

describe('who knows whom', () => {
  it.each(FOUNDATION)('%s/ imports no area and not the composition root', (folder) => {
    const offenders = sourceFiles(join(SRC, folder)).flatMap((file) =>
      importedFolders(file)
        .filter((f) => AREAS.includes(f) || f === 'main')
        .map((f) => `${relative(SRC, file)} -> ${f}/`),
    );
    expect(offenders).toEqual([]);
  });

  it('display/ (both consoles import it, in Node and in the browser) imports only type modules and nothing from Node', () => {
    const offenders = sourceFiles(join(SRC, 'display')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/^(import|export)\s+(type\s+)?[^'\n]*from\s+'([^']+)'/gm)]
        .filter(([, kind, typeOnly, from]) => !from!.startsWith('./') && !(kind === 'import' && typeOnly && from === '../control/client-types.js'))
        .map(([line]) => `${relative(SRC, file)}: ${line}`),
    );
    expect(offenders).toEqual([]);
  });

  it('only the composition root wires cds to the gateway', () => {
    const offenders = sourceFiles(join(SRC, 'gateway'))
      .flatMap((file) => importedFolders(file).filter((f) => f === 'cds').map(() => relative(SRC, file)))
      .concat(sourceFiles(join(SRC, 'cds')).flatMap((file) => importedFolders(file).filter((f) => f === 'main').map(() => relative(SRC, file))));
    expect(offenders).toEqual([]);
  });

  it('areas import no other area, except cds reading the gateway configuration it publishes', () => {
    const allowed = new Set(['cds -> gateway']);
    const offenders = AREAS.flatMap((area) =>
      sourceFiles(join(SRC, area)).flatMap((file) =>
        importedFolders(file)
          .filter((f) => AREAS.includes(f) && f !== area && !allowed.has(`${area} -> ${f}`))
          .map((f) => `${relative(SRC, file)} -> ${f}/`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('every error class of the daemon extends PorticoError (a stable code, one conversion at the edges)', () => {
    const offenders = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g)].map((m) => `${relative(SRC, file)}: ${m[1]}`),
    );
    expect(offenders.filter((o) => !o.startsWith('core/errors.ts: PorticoError'))).toEqual([]);
  });

  it('test kits live in testing/ folders, and nothing that ships imports one (or vitest)', () => {
    const all = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return entry.name === 'testing' ? [] : all(path);
        return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
      });
    const offenders = all(SRC).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const found: string[] = [];
      if (/(^|[-/])test-|test-(kit|support|helpers)/.test(relative(SRC, file))) found.push(`${relative(SRC, file)}: a kit outside testing/`);
      if (/from\s+'vitest'/.test(text)) found.push(`${relative(SRC, file)}: imports vitest`);
      for (const m of text.matchAll(/(?:from\s+|import\(\s*)'(\.{1,2}\/[^']*\/testing\/[^']*)'/g)) found.push(`${relative(SRC, file)}: imports ${m[1]}`);
      return found;
    });
    expect(offenders).toEqual([]);
  });
});
