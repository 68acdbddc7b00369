/**
 * The load's check of each backend's OpenAPI document: valid against the OpenAPI schema of
 * its version (@seriousme/openapi-schema-validator), references resolvable, schemas
 * compilable. A document that cannot validate fails the load, pointing at the `file` attribute.
 */
import { Validator as DocumentValidator } from '@seriousme/openapi-schema-validator';
import type { ErrorObject } from 'ajv';
import type { Diagnostics } from '../config/diagnostics.js';
import type { BackendConfig } from '../config/model.js';
import { atPointer } from './openapi-file.js';
import { OpenApiValidator } from './openapi-validator.js';

export async function checkOpenApiDocuments(backends: Readonly<Record<string, BackendConfig>>, diags: Diagnostics): Promise<void> {
  const checked = new Set<object>();
  for (const backend of Object.values(backends)) {
    const openapi = backend.openapi;
    if (openapi === null || checked.has(openapi.document)) continue;
    checked.add(openapi.document);
    const problem = await documentProblem(openapi.document);
    if (problem !== null) diags.error('Invalid OpenAPI document', problem, openapi.fileRange);
  }
}

async function documentProblem(document: Readonly<Record<string, unknown>>): Promise<string | null> {
  const where = (pointer: string): string => atPointer(document, pointer) ?? 'the document';
  // The validator annotates what it validates: give it a copy of the model's document.
  const result = await new DocumentValidator().validate(structuredClone(document) as Record<string, unknown>);
  if (!result.valid) {
    const errors = result.errors ?? 'invalid';
    if (typeof errors === 'string') return `${where('')}: ${errors}`;
    const error = mostSpecific(errors);
    if (!error) return `${where('')}: not a valid OpenAPI document`;
    const detail = error.keyword === 'additionalProperties' ? `unknown field ${JSON.stringify((error.params as { additionalProperty?: unknown }).additionalProperty)}` : (error.message ?? error.keyword);
    return `${where(error.instancePath)}: ${error.instancePath || '/'} ${detail} (not a valid OpenAPI ${String(document['openapi'])} document)`;
  }
  try {
    OpenApiValidator.for(document);
    return null;
  } catch (error) {
    return `${where('')}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The schema's errors branch through oneOf alternatives; the deepest one usually names the mistake. */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject | undefined {
  const depth = (e: ErrorObject): number => (e.instancePath === '' ? 0 : e.instancePath.split('/').length);
  return [...errors].sort((a, b) => depth(b) - depth(a) || Number(b.keyword !== 'oneOf') - Number(a.keyword !== 'oneOf'))[0];
}
