import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/armoli.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

// `[TX,];;` is the server acknowledgement the open-source server that documents this protocol sends to
// logins and time requests (and every 3 minutes); no vendor document confirms it.
describe('armoli replies', () => {
  it('answers a login with [TX,];; and takes the IMEI', () => {
    const r = decode('[L866104027971681]');
    expect(r.deviceId).toBe('866104027971681');
    expect(r.reply!.toString('latin1')).toBe('[TX,];;');
    expect(r.records).toBeUndefined();
  });
  it('answers a time request with [TX,];;', () => {
    expect(decode('[Q010001088610010024363698990011101070608200,05XXXXXXXXX,10.49.182.53,C,1,20,19,0]').reply!.toString('latin1')).toBe('[TX,];;');
  });
  it('sends nothing back to a report', () => {
    expect(decode('[M869867038698074210122125205N38.735641E035.4727751E003340000000C00000E9E07FF:106AG505283H60E]').reply).toBeUndefined();
  });
});

describe('armoli decoding', () => {
  it('reads a report with power, alarms and g-sensor', () => {
    expect(decode('[M869867038698074210122125205N38.735641E035.4727751E003340000000C00000E9E07FF:106AG505283H60E]')).toEqual({
      deviceId: '869867038698074',
      records: [
        {
          time: Date.UTC(2022, 0, 21, 12, 52, 5), valid: true, lat: 38.735641, lng: 35.472775, speed: 0, course: 334, satellites: 14,
          attributes: { adc1: 0, adc2: 0, status: 12, maxSpeed: 0, odometer: 3742, alarms: '106A', gSensor: '505283', power: 15.5 },
        },
      ],
    });
  });
  it('reads the OBD answers of a report, the last one of a PID winning', () => {
    const [f] = decode('[M869867039550712160821153237N41.033508E029.2697032F00036000000410006B336FFFFG458563@A6D>04410C2482>03410F56>03412F19>03410D30>04411F01B6>04410C1C98];').records!;
    expect(f.attributes).toMatchObject({ rpm: 1830, intakeTemp: 46, obdSpeed: 48, runTime: 438 });
    expect(f.attributes.fuelLevel).toBeCloseTo(9.8, 1);
  });
  it('keeps a command answer as its result text', () => {
    expect(decode('[W869867038698074,O,1234,2657,1]')).toEqual({ deviceId: '869867038698074', records: [{ attributes: { result: 'O,1234,2657,1' } }] });
  });
  it('frames at the semicolon', () => {
    const framer = protocol.createFramer!();
    const bytes = Buffer.from('[L866104027971681];;[Q1]');
    expect(framer.next(bytes)!.frame.toString()).toBe('[L866104027971681]');
    expect(framer.next(bytes.subarray(19))).toBeNull();
  });
});
