import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/noran.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

// The hand-shake response (`\r\n*KW\0`, length 13, type 0x8000, status 1, `\r\n`) follows the open-source
// server's implementation; no public Noran document confirms it.
describe('noran replies', () => {
  it('answers the hand shake and names the device', () => {
    const r = decode('0f0000004e52303946303431353500');
    expect(r.deviceId).toBe('NR09F04155');
    expect(r.reply?.toString('hex')).toBe('0d0a2a4b57000d000080010d0a');
  });
  it('answers nothing to positions', () => {
    expect(decode('22000800010c008a007e9daa42317bdd41a7f3e2384e523039463034313535000000').reply).toBeUndefined();
  });
});

describe('noran decoding', () => {
  it('decodes the older layout with temperature and odometer', () => {
    const r = decode('28003200c38000d900fcc97a416b1a7a42b43eef3d4e523039473034383737000000000092fcda4a');
    expect(r.deviceId).toBe('NR09G04877');
    const [p] = r.records!;
    expect(p).toMatchObject({ valid: true, speed: 0, course: 217 });
    expect(p.lat).toBeCloseTo(62.5258, 4);
    expect(p.attributes).toMatchObject({ io1: 0, fuelLevel: 0, temp1: 0 });
  });
  it('decodes the newer layout with a text time', () => {
    const [p] = decode('34000800010b0000000000003f43bb8da6c2ebe229424e523039423233343439000031362d30392d31352030373a30303a303700').records!;
    expect(new Date(p.time!).toISOString()).toBe('2016-09-15T07:00:07.000Z');
    expect(p).toMatchObject({ valid: true, course: 191, attributes: {} });
  });
});

describe('noran commands', () => {
  it('pads the text into a 68-byte control frame', () => {
    const b = protocol.encode!({ type: 'positionPeriodic', attributes: { frequency: 30 } }, { deviceId: 'NR09F04155', now: 0, config: {} });
    expect(b.length).toBe(68);
    expect(b.subarray(0, 12).toString('hex')).toBe('0d0a2a4b5700440002000000');
    expect(b.toString('latin1', 16, 38)).toBe('*KW,000,002,000000,30#');
    expect(() => protocol.encode!({ type: 'reboot', attributes: {} }, { deviceId: 'x', now: 0, config: {} })).toThrow();
  });
});
