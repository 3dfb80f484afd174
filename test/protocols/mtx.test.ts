import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/mtx.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} };
const LINE = '#MTX,353815011138124,20101226,195550,41.6296399,002.3611174,000,035,000000.00,X,X,1111,000,0,0';

describe('mtx replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('mtx decoding', () => {
  it('reads imei, time, position, speed, course, odometer, inputs, outputs and analog inputs', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx)).toEqual({
      deviceId: '353815011138124',
      records: [
        {
          time: Date.UTC(2010, 11, 26, 19, 55, 50),
          valid: false,
          lat: 41.6296399,
          lng: 2.3611174,
          speed: 0,
          course: 35,
          attributes: { in1: true, in2: true, in3: true, in4: true, input: 15, out1: false, out2: false, out3: false, output: 0, odometer: 0, adc1: 0, adc2: 0 },
        },
      ],
    });
  });
  it('yields nothing for other text; frames at line ends', () => {
    expect(protocol.decode!(Buffer.from('#MTX,1'), ctx)).toEqual({});
    expect(protocol.createFramer!().next(Buffer.from(`${LINE}\r\n#MTX`))?.frame.toString()).toBe(LINE);
  });
});
