import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/maxpb.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const ACK = '55aa55aa1100b0f3020000000880d0a54c10f9b7cfaf02';
const POSITION =
  '55aa55aaa800eee7010000000880d0a54c10df9cbc9f0f22940108b6b706107f18dfd6b4c7052215080010011d388a16f4253827cee528cb09300838002a131003180a280b301a381c40861e48015002582a3210080112060801200138011a04080218023a2b0a1b080110ad731802200028af1e3000380148f7fa0150f41f5884d404120608011000200d1a0408001000421b0a0c0800100018002002288ad22e1205080010a8241a0408001000';

describe('maxpb replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(POSITION).reply).toBeUndefined();
  });
});

describe('maxpb decoding', () => {
  it('reads the new report of a position message', () => {
    expect(decode(POSITION)).toEqual({
      deviceId: '160000000',
      records: [
        {
          valid: true, time: Date.UTC(2017, 3, 11, 19, 15, 43), lat: -19.9849416, lng: -43.9474376, altitude: -614, precision: 8, course: 0, satellites: 10, hdop: 1.1,
          attributes: { ignition: true, power: 14.765, batteryLevel: 0, battery: 3.887 },
        },
      ],
    });
  });
  it('takes only the identity of an acknowledgement', () => {
    expect(decode(ACK)).toEqual({ deviceId: '160000000' });
  });
  it('frames on the size after the header and refuses another header', () => {
    const bytes = Buffer.from(POSITION, 'hex');
    const framer = protocol.createFramer!();
    expect(framer.next(bytes.subarray(0, 40))).toBeNull();
    expect(framer.next(Buffer.concat([bytes, bytes]))).toEqual({ frame: bytes, consumed: bytes.length });
    expect(() => framer.next(Buffer.from('0000000000000000', 'hex'))).toThrow();
  });
});
