import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/telemax.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });

describe('telemax replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from('%067374070128'), ctx())).toEqual({ deviceId: '737407' });
  });
});

describe('telemax decoding', () => {
  it('reads the records of a data message', () => {
    const records = protocol.decode!(Buffer.from('Y000007C6999999067374074649003C00A7018074666F60D66818051304321900000000C5'), ctx('737407')).records!;
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ valid: true, speed: 0, time: Date.UTC(2018, 4, 13, 4, 32, 19), attributes: { status: '00000000' } });
    expect(records[0].lng).toBeCloseTo((0x74666f - 5400000) / 30000, 9);
  });
});
