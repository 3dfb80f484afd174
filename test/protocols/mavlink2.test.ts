import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/mavlink2.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 0, 1);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'udp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const POSITION = 'fd1c0000ce01012100004da91f004005d323b89aa30ea6ed070099fb0100f7fffdff0000942c4a88';

describe('mavlink2 replies', () => {
  it('sends nothing back (the vehicles expect no answer)', () => {
    expect(decode(POSITION).reply).toBeUndefined();
  });
});

describe('mavlink2 decoding', () => {
  it('reads GLOBAL_POSITION_INT as a fix at arrival time, the system id as identity', () => {
    expect(decode(POSITION)).toEqual({
      deviceId: '1',
      records: [{ time: NOW, valid: true, lat: 60.1032, lng: 24.5603, altitude: 519.59, speed: (Math.hypot(-9, -3) * 36) / 1000, course: 114.12, attributes: { timeBoot: 2074957, relativeAltitude: 129.945 } }],
    });
  });
  it('restores the trailing zero bytes a sender dropped', () => {
    // heading 0 and vz 0 truncated: payload of 24 bytes
    const truncated = 'fd180000ce01012100004da91f004005d323b89aa30ea6ed070099fb0100f7fffdff' + '4a88';
    expect(decode(truncated).records![0]).toMatchObject({ lat: 60.1032, lng: 24.5603, course: 0 });
  });
  it('keeps only the identity of other messages (a heartbeat)', () => {
    expect(decode('fd09000000070100000000000000020304030000')).toEqual({ deviceId: '7' });
  });
});
