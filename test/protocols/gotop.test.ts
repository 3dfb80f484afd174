import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gotop.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('gotop replies', () => {
  it('answers nothing, to reports nor to link checks (the trackers expect no acknowledgement)', () => {
    expect(decode('353327020115804,CMD-T,A,DATE:090329,TIME:223252,LAT:22.7634066N,LOT:114.3964783E,Speed:000.0,84-20,000').reply).toBeUndefined();
    expect(decode('353327020412763,CMD-X')).toEqual({ deviceId: '353327020412763' });
  });
});

describe('gotop decoding', () => {
  it('decodes a report with labels: time, position, speed (km/h), battery, signal, altitude, hdop', () => {
    const r = decode('867648044456745,CMD-T,A,DATE:240813,TIME:235937,LAT:02.9930825N,LON:101.5746188E,Speed:000.0,095-70,59.5,00.90,502~16');
    expect(r.deviceId).toBe('867648044456745');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2024, 7, 13, 23, 59, 37), valid: true, lat: 2.9930825, lng: 101.5746188, speed: 0, altitude: 59.5, hdop: 0.9, attributes: { batteryLevel: 95, rssi: 70 } });
  });
  it('decodes the unlabelled layout, south and west', () => {
    const [f] = decode('012896001901633,CMD-T,A,130104,175950,24.0234233S,029.4691133W,Speed:001.8,90-24,1.3,00.00').records!;
    expect(f).toMatchObject({ lat: -24.0234233, lng: -29.4691133, speed: 1.8 });
  });
  it('maps SOS and geofence alarms', () => {
    expect(decode('860264050778076,CMD-KEY,V,DATE:220516,TIME:090224,LAT:48.7592616N,LON:003.4658121W,Speed:000.0,057-21,01.60').records![0].attributes.alarm).toBe('sos');
    expect(decode('867688033841044,ALM-B1-1,A,DATE:190622,TIME:144956,LAT:22.7193976N,LON:114.3878200E,Speed:000.1,100-22,03.72').records![0].attributes.alarm).toBe('geofenceEnter');
    expect(decode('867688033841044,ALM-B2-1,A,DATE:190622,TIME:144956,LAT:22.7193976N,LON:114.3878200E,Speed:000.1,100-22,03.72').records![0].attributes.alarm).toBe('geofenceExit');
  });
});

describe('gotop framer', () => {
  it('cuts at #', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from('353327020412763,CMD-X#\r\n1'))).toEqual({ frame: Buffer.from('353327020412763,CMD-X'), consumed: 22 });
    expect(f.next(Buffer.from('3533270'))).toBeNull();
    expect(() => f.next(Buffer.alloc(3000, 0x31))).toThrow(FrameError);
  });
});
