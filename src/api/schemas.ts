/** Parameter types shared by the calls. */
import { z } from 'zod';

/** An entity id: a positive 32-bit integer. */
export const id = z.number().int().min(1).max(2147483647);
