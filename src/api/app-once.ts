/**
 * Idempotency keys of the field app (docs/field-app.md, "Idempotency keys"): an app call that
 * creates something (a form submission, a check-in, a chat message) may carry `idempotency_key`.
 * Its answer is stored with the key (per device token, 30 days); the same key again answers the
 * stored answer without doing the work twice, which makes the app's retries after a lost answer
 * safe. A repeat that arrives while the first is still being carried out waits for its answer.
 */
import { z } from 'zod';
import { invalidParams } from '../core/errors.ts';
import type { AppDevice } from '../fieldapp/activation.ts';
import type { Services } from './kernel.ts';

export const idempotencyKey = z.string().min(1).max(64).optional();

const inFlight = new Map<string, Promise<unknown>>();

export async function once<T>(services: Services, device: AppDevice, path: string, key: string | undefined, run: () => T | Promise<T>): Promise<T> {
  if (key === undefined) return run();
  const tokenId = device.token.id;
  const stored = services.store.fieldApp.answered(tokenId, key);
  if (stored) {
    if (stored.path !== path) throw invalidParams([{ parameter: 'idempotency_key', error: `was used for ${stored.path}` }]);
    return JSON.parse(stored.answer) as T;
  }
  const slot = `${tokenId}:${key}`;
  const pending = inFlight.get(slot);
  if (pending) {
    await pending.catch(() => undefined);
    return once(services, device, path, key, run);
  }
  const work = (async () => {
    const answer = await run();
    services.store.fieldApp.remember(tokenId, key, path, JSON.stringify(answer), services.now());
    return answer;
  })();
  inFlight.set(slot, work);
  try {
    return await work;
  } finally {
    inFlight.delete(slot);
  }
}
