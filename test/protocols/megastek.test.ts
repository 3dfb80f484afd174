import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/megastek.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());
const NEW = '$MGV002,860719020193193,DeviceName,R,240214,104742,A,2238.20471,N,11401.97967,E,00,03,00,1.20,0.462,356.23,137.9,1.5,460,07,262C,0F54,25,0000,0000,0,0,0,28.5,28.3,,10,100,Timer;!';

describe('megastek replies', () => {
  it('sends nothing back: the devices expect no answer', () => {
    expect(decode(NEW).reply).toBeUndefined();
    expect(decode('STX,865067021328417,$GPRMC,064721.000,A,4241.2793,N,02321.9762,E,6.74,346.90,300316,,,1*CA,F,Nil-Alarms,imei:865067021328417,9,559.8,Battery=82%,0,284,03,047E,2B5F;99').reply).toBeUndefined();
  });
});

describe('megastek decoding', () => {
  it('decodes a $MGV002 report: fix, cell, temperatures, charge, battery, odometer', () => {
    const { deviceId, records } = decode(NEW);
    expect(deviceId).toBe('860719020193193');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2014-02-24T10:47:42.000Z');
    expect(r.lat).toBeCloseTo(22.63675, 5);
    expect(r).toMatchObject({ valid: true, satellites: 3, hdop: 1.2, course: 356.23, altitude: 137.9 });
    expect(r.cells).toEqual([{ mcc: 460, mnc: 7, lac: 0x262c, cid: 0x0f54, rssi: 25 }]);
    expect(r.attributes).toMatchObject({ odometer: 1500, input: 0, output: 0, temp1: 28.5, temp2: 28.3, charge: true, belt: 0, batteryLevel: 100, event: 'Timer' });
  });
  it('maps alerts and keeps Wi-Fi access points', () => {
    const [r] = decode('$MGV002,869152024446923,,S,290816,200627,V,5056.21059,N,00439.25034,E,00,00,00,99.9,,,-25.1,,206,01,0BBB,4418,28,,,,,,,,,01,093,PW ON;').records!;
    expect(r.attributes).toMatchObject({ alarm: 'powerOn', archive: true, batteryLevel: 93 });
    const [w] = decode('$MGV002,860537065044539,,S,020824,120719,V,5339.11529,N,01011.15575,E,00,00,00,99.9,3.255,,52.1,,262,01,FFFE,277A602,14,000,0000,0000,0,,,,,01000,078,Timer,dc15c8984804:65|50e63698d1d5:70,,0,,;!').records!;
    expect(w.attributes).toMatchObject({ heartRate: 0, batteryLevel: 78, wifi: 'dc:15:c8:98:48:04,65;50:e6:36:98:d1:d5,70' });
  });
  it('gives no record for a report without coordinates', () => {
    const r = decode('0140$MGV002,354550056642321,GVT900-3,S,300917,071731,V,,,,,00,00,00,99.9,0.000,0.00,,0.0,457,01,0741,00CD,,0000,0000,20,10,0, , ,,1-1,94,PW ON;!');
    expect(r).toEqual({ deviceId: '354550056642321' });
  });
  it('decodes the old STX formats', () => {
    const a = decode('STX,102110830074542,$GPRMC,114229.000,A,2238.2024,N,11401.9619,E,0.00,0.00,310811,,,A*64,F,LowBattery,imei:012207005553885,03,113.1,Battery=24%,,1,460,01,2531,647E;57');
    expect(a.deviceId).toBe('012207005553885');
    expect(a.records![0]).toMatchObject({ satellites: 3, altitude: 113.1, attributes: { alarm: 'lowBattery', batteryLevel: 24, charge: true } });
    const b = decode('STX123456            $GPRMC,063709.000,A,2238.1998,N,11401.9670,E,0.00,,250313,,,A*7F,460,01,2531,647E,11,87,1000,001001,0000,0.00,0.02,0.00,Timer;4A');
    expect(b.deviceId).toBe('123456');
    expect(b.records![0].cells).toEqual([{ mcc: 460, mnc: 1, lac: 0x2531, cid: 0x647e, rssi: 11 }]);
    expect(b.records![0].attributes).toMatchObject({ batteryLevel: 87, input: 9, output: 0, adc2: 0.02 });
  });
});

describe('megastek framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('uses the length prefix, else CRLF, else ! or LF', () => {
    expect(next('0010$MGV002,x;0010')?.frame.toString()).toBe('0010$MGV002,x;');
    expect(next('$MGV002,1,2,3;!\r\n$MGV')?.frame.toString()).toBe('$MGV002,1,2,3;!');
    expect(next('$MGV002,1,2,3;!$MGV')?.frame.toString()).toBe('$MGV002,1,2,3;');
    expect(next('$MGV002,1,2,3;!')).toBeNull();
    expect(() => next('01x0$MGV002,1,2')).toThrow(FrameError);
  });
});
