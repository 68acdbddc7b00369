/** Test support for the SAML service provider: a service provider identity and ways to read refusals. */
import { expect } from 'vitest';
import { SamlError } from '../saml-error.js';
import type { SamlRefusalReason } from '../saml-error.js';

export const SP = { entityId: 'https://portico.example/saml/sp', acsUrl: 'https://portico.example/saml/acs' } as const;

/** The SamlError `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function refusal(promise: Promise<unknown>): Promise<SamlError> {
  const error: unknown = await promise.then(
    (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SamlError);
  return error as SamlError;
}

/** Asserts the refusal's reason and that its message never quotes the response. */
export async function expectRefusal(promise: Promise<unknown>, reason: SamlRefusalReason, samlResponse: string, message?: RegExp): Promise<SamlError> {
  const error = await refusal(promise);
  expect({ code: error.code, reason: error.reason }).toEqual({ code: 'SAML_INVALID', reason });
  if (message !== undefined) expect(error.message).toMatch(message);
  if (samlResponse.length > 40) expect(error.message).not.toContain(samlResponse.slice(0, 40));
  return error;
}

/** Replaces text inside the decoded response, as an attacker editing it after signing would. */
export function tamper(samlResponse: string, from: string | RegExp, to: string): string {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  const edited = xml.replace(from, to);
  if (edited === xml) throw new Error(`tamper: ${String(from)} not found in the response`);
  return Buffer.from(edited, 'utf8').toString('base64');
}
