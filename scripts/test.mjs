#!/usr/bin/env node
// `npm test`: build, typecheck, unit tests, then whole-system tests; ends with one summary line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies } from './ensure-deps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!ensureDependencies(root)) process.exit(1);
const reports = join(root, 'node_modules', '.cache', 'portico-test');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const vitest = join(root, 'node_modules', '.bin', 'vitest');

function step(title, command, args, env = process.env) {
  console.log(`\n=== ${title} ===`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  return result.status === 0;
}

// The port reservations every test process on the machine shares (daemon/src/core/testing/free-port.ts).
const portsDir = process.env.PORTICO_TEST_PORTS_DIR || join(tmpdir(), 'portico-test-ports');

/**
 * One vitest run of `projects` (run side by side in one pool), reported under `name`. The run
 * gets a temporary folder of its own (TMPDIR); what a test leaves in it fails the step, since a
 * test or helper that does not remove what it made fills the disk of whoever runs the tests often.
 */
function vitestProjects(name, projects) {
  const out = join(reports, `${name}.json`);
  const tmp = mkdtempSync(join(tmpdir(), `portico-${name}-tests-`));
  const env = { ...process.env, TMPDIR: tmp, PORTICO_TEST_PORTS_DIR: portsDir };
  const ok = step(`${name} tests`, vitest, ['run', ...projects.flatMap((p) => ['--project', p]), '--reporter=default', '--reporter=json', `--outputFile=${out}`], env);
  const left = readdirSync(tmp);
  rmSync(tmp, { recursive: true, force: true });
  if (left.length > 0) {
    const shown = left.slice(0, 10).join(', ') + (left.length > 10 ? `, and ${left.length - 10} more` : '');
    console.log(`\n${name} tests left ${left.length} temporary ${left.length === 1 ? 'entry' : 'entries'} behind (${shown}): a test or a test helper does not remove what it made.`);
  }
  let counts = { passed: 0, failed: 0, skipped: 0 };
  try {
    const report = JSON.parse(readFileSync(out, 'utf8'));
    counts = { passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
    // A file that fails to load counts as a failure even though it ran no test.
    counts.failed += report.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  } catch {
    counts.failed += 1;
  }
  if ((!ok || left.length > 0) && counts.failed === 0) counts.failed = 1;
  return counts;
}

const failures = [];
if (!step('build', npm, ['run', 'build', '--silent'])) failures.push('build');
if (!step('typecheck', npm, ['run', 'typecheck', '--silent'])) failures.push('typecheck');
const totals = { passed: 0, failed: 0, skipped: 0 };
// The unit projects: `unit` (daemon, web console, scripts) and `unit-tui` (the terminal console, each file isolated).
for (const [name, projects] of [['unit', ['unit', 'unit-tui']], ['e2e', ['e2e']]]) {
  if (failures.includes('build')) break;
  const c = vitestProjects(name, projects);
  totals.passed += c.passed;
  totals.failed += c.failed;
  totals.skipped += c.skipped;
  if (c.failed > 0) failures.push(`${name} tests`);
}
if (failures.includes('build') || failures.includes('typecheck')) totals.failed += 1;

console.log(`\n${failures.length ? `failed steps: ${failures.join(', ')}` : 'all steps passed'}`);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length ? 1 : 0);
