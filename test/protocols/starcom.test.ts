import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/starcom.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('starcom replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('|unit=416307,longitude=-67.85891,latitude=10.21988,datetime_actual=2019/05/07 21:59:38|').reply).toBeUndefined();
  });
});

describe('starcom decoding', () => {
  it('reads the known keys and keeps the others as text', () => {
    const r = decode('|unit=111111,kind=1,odometer=1300,longitude=-11.11111,latitude=-11.11111,altitude=786,gps_valid=1,satellites=7,velocity=1,heading=0,ignition=1,door=1,arm=0,main_voltage=12.06,backup_voltage=-1.00,analog1=0.50,eventid=52,datetime_actual=2017/11/16 03:18:59|\r\n');
    expect(r.deviceId).toBe('111111');
    expect(r.records![0]).toEqual({
      lat: -11.11111, lng: -11.11111, altitude: 786, valid: true, satellites: 7, speed: 1, course: 0, time: Date.UTC(2017, 10, 16, 3, 18, 59),
      attributes: { kind: '1', odometer: 1_300_000, ignition: true, door: true, armed: false, power: 12.06, battery: -1, adc1: 0.5, event: 52 },
    });
  });
  it('takes the arrival time, not valid, for a device without a clock', () => {
    const [f] = decode('|unit=934706,gps_valid=1,longitude=-66.99394,latitude=10.54119,datetime_actual=1899/12/30 00:00:00|').records!;
    expect(f).toMatchObject({ time: Date.UTC(2025, 0, 1), valid: false });
  });
});
