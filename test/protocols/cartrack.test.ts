import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/cartrack.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());
const MSG = '$$020040????????&A9955&B011939.000,A,4436.3804,N,02606.9434,E,0.00,0.00,190317,,,A*64|0.9|&C0100000000&D01830=?6&E00000001&Y00000000';

describe('cartrack replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(MSG).reply).toBeUndefined();
  });
});

describe('cartrack decoding', () => {
  it('reads the fix, the io string and the odometer in shifted hex', () => {
    const r = decode(MSG);
    expect(r.deviceId).toBe('020040');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2017, 2, 19, 1, 19, 39), valid: true, attributes: { command: '9955', io1: '0100000000', odometer: 0x01830df6, adc1: '00000000' } });
  });
  it('frames at ##', () => {
    expect(protocol.createFramer!().next(Buffer.from('$$1&A0000##$$'))!.frame.toString()).toBe('$$1&A0000');
  });
});
