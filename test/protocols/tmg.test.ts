import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tmg.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

const OLD = '$loc,869309013800417,08032014,094459,1,2826.1956,N,07659.7690,E,0.0,2.5,4441,31,6,95,1,LLLL,NNTN,HH,0.15,0.26,HR38AU1389,0,SW0.1a';
const NEW = '$nor,L,869309999985699,24062015,094459,4,2826.1956,N,07659.7690,E,67.5,2.5,167,0.82,15,22,airtel,31,4441,1,4.1,12.7,00000011,00000011,1111,0.0,0.0,21.3,SW00.01,#';
const RFID = '$rid,L,868325023006341,14022017,103706,1,2836.6542,N,07706.2504,E,0.0,0.0,0.0,0.0,0,22,VODAFONE - DELH,15,49B7,1,2.57,13.2,00000011,00000000,0111,00.0,00.0,0.0,SW10.12,0004909463,#';

describe('tmg replies', () => {
  // The TMG reports are not acknowledged: no server answer is documented for them (none could be
  // found in public material), so the decoder returns no reply bytes.
  it('sends nothing back for a report', () => {
    expect(decode(NEW).reply).toBeUndefined();
    expect(decode(OLD).reply).toBeUndefined();
  });
});

describe('tmg decoding', () => {
  it('decodes the newer layout: altitude, hdop, satellites, operator, voltages, IO, trip', () => {
    const { deviceId, records } = decode(NEW);
    expect(deviceId).toBe('869309999985699');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-06-24T09:44:59.000Z');
    expect(r).toMatchObject({ valid: true, speed: 67.5, course: 2.5, altitude: 167, hdop: 0.82, satellites: 15 });
    expect(r.lat).toBeCloseTo(28 + 26.1956 / 60, 6);
    expect(r.attributes).toMatchObject({ operator: 'airtel', rssi: 31, ignition: true, battery: 4.1, power: 12.7, input: 3, output: 3, distance: 21300, event: 'nor' });
  });
  it('reads the RFID card of a `rid` report', () => {
    expect(decode(RFID).records![0].attributes.driverUniqueId).toBe('0004909463');
  });
  it('decodes the older layout: L/H inputs and outputs, battery level, analog inputs, vehicle id', () => {
    const [r] = decode(OLD).records!;
    expect(r).toMatchObject({ satellites: 6, speed: 0 });
    expect(r.attributes).toMatchObject({ in1: false, in4: false, out1: true, out2: true, batteryLevel: 95, adc1: 0.15, adc2: 0.26, vehicleId: 'HR38AU1389', ignition: true });
  });
  it('marks events: main power removed, history records', () => {
    const rmv = decode(NEW.replace('$nor,L', '$rmv,H')).records![0].attributes;
    expect(rmv).toMatchObject({ alarm: 'powerCut', archive: true });
    expect(decode(NEW.replace('$nor', '$ibl')).records![0].attributes.alarm).toBe('lowBattery');
  });
  it('rejects what is not a report', () => {
    expect(() => decode('hello')).toThrow(DecodeError);
  });
});

describe('tmg framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts from `$xxx,` to the line break or `#`, skipping noise', () => {
    expect(next(`\x00\x24\x01${OLD}\n$loc`)?.frame.toString('latin1')).toBe(OLD);
    expect(next(`${NEW}${NEW}`)?.frame.toString('latin1')).toBe(NEW);
    expect(next('$$$$$')).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next('x'.repeat(2000))).toThrow(FrameError);
  });
});
