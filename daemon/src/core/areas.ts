import { cdsArea } from '../cds/area.js';
import { gatewayArea } from '../gateway/area.js';
import { infosessionsArea } from '../infosessions/area.js';
import { INGEST_AREAS } from '../ingest/ingest-area.js';
import type { Area } from './area.js';

/**
 * Every area of the daemon, in start order. An area that is built adds one line here.
 * Modes: see docs/operating.md.
 */
export const AREAS: readonly Area[] = [
  // First: it sets ctx.gateway, which cds reads.
  gatewayArea,
  infosessionsArea,
  ...INGEST_AREAS,
  cdsArea,
];
