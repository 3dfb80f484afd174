/** Reconnect backoff (docs/retranslators.md): doubles per failure up to the maximum, with "equal jitter". */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/forwarding/forwarder.ts';

const o = { backoffMinMs: 1000, backoffMaxMs: 60_000 };
describe('backoffDelay', () => {
  it('is between half and all of min·2^n, capped at the maximum', () => {
    for (let n = 0; n < 40; n++) {
      const full = Math.min(60_000, 1000 * 2 ** n);
      expect(backoffDelay(n, o, () => 0)).toBe(full / 2);
      expect(backoffDelay(n, o, () => 0.999999)).toBeCloseTo(full, -1);
      const d = backoffDelay(n, o);
      expect(d).toBeGreaterThanOrEqual(full / 2);
      expect(d).toBeLessThanOrEqual(full);
    }
  });
  it('spreads retries of many retranslators', () => {
    const delays = new Set(Array.from({ length: 100 }, () => backoffDelay(5, o)));
    expect(delays.size).toBeGreaterThan(50);
  });
});
