import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/wli.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string, c = ctx()) => protocol.decode!(Buffer.from(hex, 'hex'), c);
const GPS_REPORT =
  '0231000101bba758c900010034000500ff001001258fc9013e80ed00001183350101e20006003200090030000a0032000b003331000c0031000d00343438000e003530000f003100100031303800130032001b003134001c0033392c33352c32382c33382c34302c33372c33332c33382c33352c34322c33372c3335001d003130001e0038002300343235002400303100250031303432320026003336343733002700323800280037002900312c312c312c312c31302e3232352e3135312e3230342c36353533352c302c39392c39392c3235352c3235352c3235352c323535002a0030002c0030003000300032003000330031003400ff001c0214130502061b0101258fc9013e80ed000001e2000000000000004d004500302c323031392f30352f30322c30363a33333a30302c323031392f30352f30322c30363a32363a3230005a003000f100352c302c342c302c2d312c2d3100f2003300f3003100f50038363634323530333137303639323400f600312c302c302c3431322c3000f70038343437373200f80032312c31312c302c302c302c302c2c2c2c2c2c302c3000f9003300fa00393100fb0032313100fc0032313000ff00313535363737383533340003';

describe('wli', () => {
  it('takes the id from the login and sends no answer', () => {
    expect(decode('0232776c693a30343930333332303332343103')).toEqual({ deviceId: '049033203241' });
  });

  it('decodes the GPS block, the cell and the voltages of a report', () => {
    const [p] = decode(GPS_REPORT).records!;
    expect(new Date(p.time!).toISOString()).toBe('2019-05-02T06:27:01.000Z');
    expect(p).toMatchObject({ valid: true, lat: expect.closeTo(32.0647617, 6), lng: expect.closeTo(34.7890883, 6), speed: 0, course: 48.2, altitude: 7.7 });
    expect(p.cells).toEqual([{ mcc: 425, mnc: 1, lac: 10422, cid: 36473, rssi: 28 }]);
    expect(p.attributes).toEqual({ index: 1, odometer: 0, power: 0, battery: 4.12 });
  });

  it('places a report without GPS at the last fix with its device time', () => {
    const c = ctx();
    decode(GPS_REPORT, c);
    const [p] = decode('0231001f008931c7fe00010032353200030030352f32362f323000040031373a32353a34300007004d322e31313954204d617220323020323031340008003000090031303800f600332c382c313338372c33363200f70038313634383200f800302c313134372c302c322c302c3000f9003300fa00383900fb0032353400fc0031383400ff00313539303531333934300003', c).records!;
    expect(p).toMatchObject({ time: 1590513940000, valid: false, lat: expect.closeTo(32.0647617, 6), attributes: { index: 31, power: 13.87, battery: 3.62 } });
  });

  it('frames STX..ETX and un-escapes DB D2 / DB D3 / DB DD', () => {
    const framer = protocol.createFramer!();
    expect(framer.next(Buffer.from('0231dbd2dbd3dbdd', 'hex'))).toBeNull();
    expect(framer.next(Buffer.from('0231dbd2dbd3dbdd0302', 'hex'))?.frame.toString('hex')).toBe('02310203db03');
  });
});
