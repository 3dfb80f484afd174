import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/upro.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('upro replies', () => {
  it('answers *<head>Y<type><subtype># when the ack flag is 1', () => {
    expect(decode('*HQ201999999,BA&A1656512233362911356523660000230618&B0100060010&C00000<6<&F0000&R2405#').reply?.toString()).toBe('*HQ20YBA#');
    expect(decode('*MG201693502000034964,AB&A0800253335360507036975710000091116&B0000000000&N13&Z12&U_P#').reply?.toString()).toBe('*MG20YAB#');
    expect(decode('*HQ20113800138000,YAA&A0732142233550011405829060520190314&B0100000000&C00001234&R3109&T80#').reply?.toString()).toBe('*HQ20YYA#');
  });
  it('answers a heartbeat with ack flag and yields no record', () => {
    const r = decode('*MG20113800138000,AH#');
    expect(r).toEqual({ deviceId: '13800138000', reply: Buffer.from('*MG20YAH#') });
  });
  it('sends nothing when the ack flag is 0', () => {
    expect(decode('*AI200905300036,AH&A0317264913209801844913060000251115&B0500000000&C0;4?72:9&F0000').reply).toBeUndefined();
  });
});

describe('upro decoding', () => {
  it('decodes the location field, flags and status alarms', () => {
    const [r] = decode('*AI200905300036,AH&A0317264913209801844913060000251115&B0500000000&C0;4?72:9&F0000').records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-11-25T03:17:26.000Z');
    expect(r.lat).toBeCloseTo(49.22016, 5);
    expect(r.lng).toBeCloseTo(18.74855, 5);
    expect(r).toMatchObject({ valid: true, speed: 0 });
    expect(r.attributes).toMatchObject({ ignition: true, status: '0500000000', odometer: expect.any(Number) });
  });
  it('south and west from the flags; not valid from bit 0', () => {
    const [r] = decode('*MG201693502000034964,AB&A0800253335360507036975710000091116&P0730000032d2a94d&B0000000000&N13&Z12&U_P').records!;
    expect(r.lat).toBeCloseTo(-33.58934, 5);
    expect(r.lng).toBeCloseTo(-70.61626, 5);
    expect(r.valid).toBe(false);
    expect(r.cells).toEqual([{ mcc: 730, mnc: 0, lac: 0x32d2, cid: 0xa94d }]);
    expect(r.attributes.rssi).toBe(13);
  });
  it('reads X parameters (ICCID), battery, analog input, logistics lock', () => {
    expect(decode('*HQ200862407688000021,BA&A0925002234596911356066460008120225&B0100000000&X(10)(J0000)(k89882280666128238130)&l2000#').records![0].attributes).toMatchObject({
      iccid: '89882280666128238130',
      timezone: '0000',
      logisticsLock: 2,
    });
    expect(decode('*VK200867282036729446,BA&A1759265051877702037465660022210819&B0000000000&W00&G000030&M830&N26&O1706&o11&T0783#').records![0]).toMatchObject({ altitude: 3, attributes: { batteryLevel: 83 } });
    expect(decode('*HQ200862312328000001,BA&A1520461548253003503696640017270124&B0000000000&d01287#').records![0].attributes.adc1).toBe(12.87);
  });
  it('reads X cells and Y cells', () => {
    const [r] = decode('*VK200867282035455779,BA&A0850065052928902036605660013170719&X260,6,1016,13931,60;1016,13929,81#').records!;
    expect(r.cells).toEqual([{ mcc: 260, mnc: 6, lac: 1016, cid: 13931, rssi: 60 }, { mcc: 260, mnc: 6, lac: 1016, cid: 13929, rssi: 81 }]);
  });
  it('reads a driver card from transparent data', () => {
    const card = 'CARD;123';
    const frame = Buffer.concat([Buffer.from('*HQ200862408328000109,GY'), Buffer.from([0x40, 0x09, 0x00, card.length]), Buffer.from(card), Buffer.from('#')]);
    expect(protocol.decode!(frame, ctx()).records![0].attributes.driverUniqueId).toBe(card);
  });
});

describe('upro framer', () => {
  it('cuts at # and refuses frames that do not start with *', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from('*MG20113800138000,AH#*MG'))).toEqual({ frame: Buffer.from('*MG20113800138000,AH#'), consumed: 21 });
    expect(f.next(Buffer.from('*MG2011'))).toBeNull();
    expect(() => f.next(Buffer.from('hello#'))).toThrow(FrameError);
  });
});
