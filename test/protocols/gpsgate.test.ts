import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gpsgate.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('gpsgate replies', () => {
  it('answers a login with $FRSES and a session id (with checksum and CR LF), naming the device', () => {
    const r = decode('$FRLIN,IMEI,1234123412341234,*7B');
    expect(r.deviceId).toBe('1234123412341234');
    expect(r.reply?.toString()).toBe('$FRSES,0959f365*2E\r\n');
    expect(decode('$FRLIN,,user1,8IVHF*7A').deviceId).toBe('user1');
  });
  it('refuses an unknown device and a login it cannot parse with $FRERR', () => {
    expect(protocol.refuse!(ctx())?.toString()).toBe('$FRERR,AuthError,Unknown device*51\r\n');
    expect(decode('$FRLIN,x').reply?.toString()).toBe('$FRERR,AuthError,Parse error*2C\r\n');
  });
  it('answers a version notification with ours', () => {
    expect(decode('$FRVER,1,0,Tracker 2.0*00').reply?.toString()).toBe('$FRVER,1,0,FSM gateway 1.0*77\r\n');
  });
  it('answers nothing to positions and pings', () => {
    expect(decode('$FRCMD,862950025974620,_Ping,voltage=4*4F')).toEqual({ deviceId: '862950025974620' });
    expect(decode('$GPRMC,154403.000,A,6311.64120,N,01438.02740,E,0.000,0.0,270707,,*0A', ctx('1')).reply).toBeUndefined();
  });
});

describe('gpsgate decoding', () => {
  it('GPRMC of the logged-in device: knots to km/h', () => {
    const [f] = decode('$GPRMC,074524,A,5553.73701,N,03728.90491,E,10.39,226.5,160614,0.0,E*75', ctx('1')).records!;
    expect(f).toMatchObject({ time: Date.UTC(2014, 5, 16, 7, 45, 24), valid: true, course: 226.5 });
    expect(f.speed).toBeCloseTo(10.39 * 1.852, 9);
    expect(decode('$GPRMC,074524,A,5553.73701,N,03728.90491,E,10.39,226.5,160614,0.0,E*75')).toEqual({});
  });
  it('FRCMD _SendMessage: position, altitude, validity, SOS button and voltage', () => {
    const r = decode('$FRCMD,862950025974620,_SendMessage, ,2721.5781,S,15259.145,E,61,0.00,61,080316,092612,1,SosButton=1,voltage=4*60');
    expect(r.deviceId).toBe('862950025974620');
    expect(r.records![0]).toMatchObject({ valid: true, altitude: 61, course: 61, time: Date.UTC(2016, 2, 8, 9, 26, 12), attributes: { alarm: 'sos', power: 4 } });
    expect(r.records![0].lat).toBeCloseTo(-(27 + 21.5781 / 60), 9);
  });
});

describe('gpsgate framer', () => {
  it('cuts lines at CR, LF or NUL', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from('$FRVER,1,0,x*00\r\n$GP'))).toEqual({ frame: Buffer.from('$FRVER,1,0,x*00'), consumed: 16 });
    expect(f.next(Buffer.from('$GPRMC,1'))).toBeNull();
    expect(() => f.next(Buffer.alloc(3000, 0x41))).toThrow(FrameError);
  });
});
