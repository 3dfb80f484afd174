import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/radar.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { capturesDir } from './harness.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const FRAME = Buffer.from(JSON.parse(readFileSync(join(capturesDir, 'radar.jsonl'), 'utf8').split('\n')[0]).payload as string, 'hex');

describe('radar replies', () => {
  it('sends nothing back (we do not send the 0x9C acknowledgement)', () => {
    expect(protocol.decode!(FRAME, ctx()).reply).toBeUndefined();
  });
});

describe('radar decoding', () => {
  it('reads the tracking records by their field masks', () => {
    const r = protocol.decode!(FRAME, ctx());
    expect(r.deviceId).toBe('70745');
    expect(r.records).toHaveLength(5);
    expect(r.records![0]).toEqual({
      time: 1555326087000, lat: -23.480238888888888, lng: -46.62908888888889, speed: 0, course: 194, altitude: 746, valid: false, satellites: 13,
      attributes: { event: 2, ignition: true, charge: false, motion: false, in1: true, in2: false, in3: false, blocked: false, status: 0, odometer: 1800 },
    });
  });
  it('frames by the total length at byte 12', () => {
    expect(protocol.createFramer!().next(Buffer.concat([FRAME, Buffer.from([0x36])]))!.consumed).toBe(FRAME.length);
  });
});
