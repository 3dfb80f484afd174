import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/esky.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (transport: 'tcp' | 'udp'): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport, config: {}, session: {} });
const REPORT = 'ET;0;860337031066546;R;9+200717114059+41.32053+19.80761+0.30+0+0x2+8+40381744+0+1409+11';

// The UDP acknowledgement (`ACK,<last value>#`) follows the open-source server's implementation; no
// public Esky document confirms it.
describe('esky replies', () => {
  it('acknowledges a UDP report with its last value', () => {
    expect(protocol.decode!(Buffer.from(REPORT), ctx('udp')).reply?.toString()).toBe('ACK,11#');
  });
  it('answers nothing over TCP', () => {
    expect(protocol.decode!(Buffer.from(REPORT), ctx('tcp')).reply).toBeUndefined();
  });
});

describe('esky decoding', () => {
  it('reads active-low inputs, odometer and battery', () => {
    const [p] = protocol.decode!(Buffer.from(REPORT), ctx('tcp')).records!;
    expect(new Date(p.time!).toISOString()).toBe('2020-07-17T11:40:59.000Z');
    expect(p).toMatchObject({ satellites: 9, lat: 41.32053, lng: 19.80761, course: 0 });
    expect(p.speed).toBeCloseTo(1.08, 6);
    expect(p.attributes).toEqual({ adc1: 0, battery: 14.09, ignition: true, in1: false, in2: true, event: 8, odometer: 40381744 });
  });
  it('reads the VIN newer firmware appends', () => {
    const [p] = protocol.decode!(Buffer.from('ET;1;864431045310325;R;0+240303180628+-33.40958+149.56797+0.00+63+0xb+0+17814846+1168+0+0+WVWZZZ6RZFY242201+135+DTCNULL'), ctx('tcp')).records!;
    expect(p.attributes.vin).toBe('WVWZZZ6RZFY242201');
  });
});

describe('esky framer', () => {
  it('cuts at the next header and waits for a tail that is not visibly whole', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from(`${REPORT}ET;0;8603`))?.frame.toString()).toBe(REPORT);
    expect(f.next(Buffer.from(REPORT))).toBeNull(); // ends with +11: more digits may follow
    expect(f.next(Buffer.from('EL;1;864906029196626;170822143426;'))?.consumed).toBe(34);
  });
});
