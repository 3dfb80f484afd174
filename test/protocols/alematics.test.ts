import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/alematics.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (b: Buffer | string) => protocol.decode!(Buffer.isBuffer(b) ? b : Buffer.from(b), ctx());
const HEARTBEAT = Buffer.from('faf80007000315ad4e783ad2', 'hex');

describe('alematics replies', () => {
  // The heartbeat echo is the framer comment of the open-source server ("example of heartbeat"); no
  // public document confirms it.
  it('echoes a heartbeat back unchanged, and answers reports with nothing', () => {
    expect(decode(HEARTBEAT).reply!.toString('hex')).toBe('faf80007000315ad4e783ad2');
    expect(decode('$T,2,64,866050035975497,20180726103446,20180726103514,23.033305,72.558032,0,0,41,5.4,4,0,0,0.000,12.960,0,').reply).toBeUndefined();
  });
  it('frames a heartbeat by its 12 bytes and reports by line', () => {
    const framer = protocol.createFramer!();
    const stream = Buffer.concat([HEARTBEAT, Buffer.from('$T,1\r\n')]);
    const first = framer.next(stream)!;
    expect(first.frame.toString('hex')).toBe(HEARTBEAT.toString('hex'));
    expect(framer.next(stream.subarray(first.consumed))!.frame.toString()).toBe('$T,1');
  });
});

describe('alematics decoding', () => {
  it('reads a report with the extras of its mask (power and battery mV, signal)', () => {
    const r = decode('$T,2,552,868259020159698,20170515060949,20170515060949,25.035277,121.561986,0,202,78,1.0,8,1,0,0.000,12.768,1629,38,12770,4109,9');
    expect(r.deviceId).toBe('868259020159698');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2017, 4, 15, 6, 9, 49), valid: true, lat: 25.035277, lng: 121.561986, speed: 0, course: 202, altitude: 78, hdop: 1, satellites: 8,
      attributes: { type: 2, index: 552, input: 1, output: 0, adc1: 0, power: 12.77, odometer: 1629, battery: 4.109, rssi: 9 },
    });
  });
  it('keeps a text message', () => {
    const r = decode('$T,4,4,868259020159698,20170515061033,20170515061033,25.035303,121.561975,0,202,81,1.7,6,1,0,0.000,12.770,1629,0,$S,A1,1,,12345.67');
    expect(r.records![0].attributes.text).toBe('A1,1,,12345.67');
  });
});
