import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/raveon.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx: DecodeContext = { now: Date.UTC(2025, 0, 1, 20), transport: 'tcp', config: {}, session: {} };
// The example sentence of Raveon's manuals, with the optional odometer field.
const LINE = '$PRAVE,0001,0001,3308.9051,-11713.1164,195348,1,10,168,31,13.3,3,-83,0,0,,1003.4*66';

describe('raveon replies', () => {
  it('sends nothing back (the radios expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LINE), ctx).reply).toBeUndefined();
  });
});

describe('raveon decoding', () => {
  it('reads the fields in the order the manuals list them', () => {
    const r = protocol.decode!(Buffer.from(LINE), ctx);
    expect(r.deviceId).toBe('0001');
    const rec = r.records![0];
    expect(rec).toMatchObject({
      time: Date.UTC(2025, 0, 1, 19, 53, 48),
      valid: true,
      satellites: 10,
      altitude: 168,
      speed: 0,
      course: 0,
      attributes: { deviceTemp: 31, power: 13.3, input: 3, rssi: -83, odometer: 1003.4 },
    });
    expect(rec.lat).toBeCloseTo(33.148418, 5);
    expect(rec.lng).toBeCloseTo(-117.21861, 5);
  });
  it('maps status letters to alarms and reads a sentence without odometer', () => {
    const rec = protocol.decode!(Buffer.from('$PRAVE,0002,0001,3308.9051,11713.1164,195348,0,3,168,31,12.0,0,-90,40,90,C,*00'), ctx).records![0];
    expect(rec).toMatchObject({ valid: false, speed: 40, course: 90, attributes: { status: 'C', alarm: 'sos' } });
    expect(rec.attributes.odometer).toBeUndefined();
  });
  it('yields nothing for other sentences', () => {
    expect(protocol.decode!(Buffer.from('$GPGLL,3308.7292,N,11713.7886,W,155803,A,*1C'), ctx)).toEqual({});
  });
});
