import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/progress.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const IDENT = '020037000100000003003131310f003335343836383035313339303036320f00323530303136333832383531353535010000000100000000000000e6bb97b6';

/** A point (type 10, or 200 for an alarm) with the given index. */
function point(index: number, type = 10): Buffer {
  const b = Buffer.alloc(4 + 4 + 4 + 4 + 4 + 4 + 2 + 2 + 1 + 1 + 4 + 8 + 4);
  b.writeUInt16LE(type, 0);
  b.writeUInt16LE(b.length - 8, 2);
  b.writeUInt32LE(index, 4);
  b.writeUInt32LE(1_700_000_000, 8);
  b.writeInt32LE(Math.round((55.75 / 180) * 0x7fffffff), 12);
  b.writeInt32LE(Math.round((37.61 / 180) * 0x7fffffff), 16);
  b.writeUInt32LE(3600, 20);
  b.writeUInt16LE(9000, 24);
  b.writeUInt16LE(15000, 26);
  b[28] = 7;
  b[29] = 20;
  b.writeUInt32LE(1234, 30);
  return b;
}

describe('progress replies', () => {
  // Not confirmed by a public document: the alarm acknowledgement and the archive request, as the widely used
  // open-source server sends them.
  it('acknowledges an alarm, and asks for the archive once a point is newer than the last one', () => {
    const c = ctx('1');
    expect(protocol.decode!(point(5, 200), c).reply!.toString('hex')).toBe('c900000000000000');
    expect(protocol.decode!(point(7), c).reply!.toString('hex')).toBe('6400040005000000' + '00000000');
    expect(protocol.decode!(point(7), ctx('1')).reply).toBeUndefined();
  });
});

describe('progress decoding', () => {
  it('takes the identity from the identification (its third string)', () => {
    expect(protocol.decode!(Buffer.from(IDENT, 'hex'), ctx())).toEqual({ deviceId: '250016382851555' });
  });
  it('reads a point', () => {
    const [f] = protocol.decode!(point(1), ctx('1')).records!;
    expect(f).toMatchObject({ time: 1_700_000_000_000, speed: 36, course: 90, altitude: 150, satellites: 7, valid: true, attributes: { rssi: 20, odometer: 1234 } });
    expect(f.lat).toBeCloseTo(55.75, 6);
  });
});
