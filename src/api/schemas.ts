/** Parameter types shared by the calls. */
import { z } from 'zod';
import { MAX_CONDITIONS, parseConditions } from '../core/conditions.ts';

/** An entity id: a positive 32-bit integer. */
export const id = z.number().int().min(1).max(2147483647);

/**
 * The `conditions` parameter of the list calls: a JSON array of conditions, checked without
 * recursion (nesting depth first) by src/core/conditions.ts; code 7 names the condition at fault.
 */
export const conditionsParam = z
  .array(z.unknown())
  .max(MAX_CONDITIONS)
  .transform((raw) => parseConditions(raw));
