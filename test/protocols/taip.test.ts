import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/taip.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('taip replies', () => {
  it('acknowledges a numbered message with >ACK;ID=..;#..;*<xor>< ', () => {
    const r = decode('>RGP230615010248-2682523-065236820000003007F4101;ID=0005;#0002;*2A<');
    expect(r.reply?.toString()).toBe('>ACK;ID=0005;#0002;*72<');
    expect(decode('>RUV01120,NT003,190826131202-2353539-046680190500009FFDE0006,00111596,0;ID=FWHS;#1A04;*50<').reply?.toString()).toBe('>ACK;ID=FWHS;#1A04;*0B<');
  });
  it('answers the #IP form with >SAK without checksum', () => {
    expect(decode('>RGP041120190000-3137454-064075520001883004D50;ID=8385;#IP0:0080;*19<').reply?.toString()).toBe('>SAK;ID=8385;#IP0:0080<');
  });
  it('echoes the ID of a message without index, also of messages it does not decode', () => {
    expect(decode('>RPV46640+4197412-0752857900015802;ID=5102;*71<').reply?.toString()).toBe('5102');
    const al = decode('>RAL19500+00230+00012;ID=3168;*48<');
    expect(al.records).toEqual([]);
    expect(al.reply?.toString()).toBe('3168');
  });
  it('sends nothing for a message without ID', () => {
    expect(decode('>RPV46640+4197412-0752857900015802;*71<').reply).toBeUndefined();
  });
});

describe('taip decoding', () => {
  it('PV: time of day on the current day, mph to km/h, fresh fix valid', () => {
    const [f] = decode('>RPV03874+3477708-0923453100029212;ID=0017;*71<').records!;
    expect(new Date(f.time!).toISOString()).toBe('2025-02-22T01:04:34.000Z');
    expect(f).toMatchObject({ valid: true, lat: 34.77708, lng: -92.34531, course: 292 });
    expect(f.speed).toBe(0);
  });
  it('PV: a time of day ahead of now belongs to the previous day', () => {
    const [f] = decode('>RPV46640+4197412-0752857900015802;ID=5102;*71<').records!;
    expect(new Date(f.time!).toISOString()).toBe('2025-02-21T12:57:20.000Z');
  });
  it('EV: GPS week, day and seconds; ;SV= ;BL= ;VO= parameters', () => {
    const [f] = decode('>REV481599462982+2578391-0802945201228512;ID=Test').records!;
    expect(new Date(f.time!).toISOString()).toBe('2010-09-02T17:29:42.000Z');
    expect(f.speed).toBeCloseTo(12 * 1.609344, 6);
    const [g] = decode('>REV451891352379+0307152+1016143700000012;SV=8;BL=4416;VO=8055;ID=356612026322000<').records!;
    expect(g).toMatchObject({ satellites: 8, attributes: { battery: 4.416, odometer: 8055, event: 45 } });
  });
  it('GP: ddmmyy date, degrees with 5 decimals or degrees and minutes', () => {
    const [f] = decode('>RGP230615010248-2682523-065236820000003007F4101;ID=0005;#0002;*2A<').records!;
    expect(new Date(f.time!).toISOString()).toBe('2015-06-23T01:02:48.000Z');
    expect(f).toMatchObject({ valid: true, lat: -26.82523, lng: -65.23682 });
    const [g] = decode('>RGP200317010815-3852.9306-06204.88560000003000101;&01;ID=5555;#7AD7*51<').records!;
    expect(g.lat).toBeCloseTo(-(38 + 52.9306 / 60), 9);
    expect(g.lng).toBeCloseTo(-(62 + 4.8856 / 60), 9);
  });
  it('CQ: supply, odometer and satellites; a zero date is the last position at reception time', () => {
    const [f] = decode('>RCQ00151123235718-2782354-06407582055121FF0013501CDCC6313011100001514;#0805;ID=SIA056;*15<').records!;
    expect(f).toMatchObject({ satellites: 11, attributes: { power: 13.5, odometer: 0x01cdcc63, rssi: 14 } });
    const [z] = decode('>RCQ09000000000000-3460365-058381460000007F0000000000000115000FFFF1099;#0000;ID=555224;*05<').records!;
    expect(z).toMatchObject({ time: NOW, valid: false });
  });
  it('US: power, battery and temperature from the comma fields', () => {
    const [f] = decode('>RUS00,111220124402-3138067-06417623000012200FF,000000000000000000000000000,0000000111,15640422,00000,+25.5,00000,51;ID=CST3G0443;#IP1:089F;*34<').records!;
    expect(f.attributes).toMatchObject({ power: 15.64, battery: 4.22, temp1: 25.5 });
  });
  it('UV: firmware, alarms and fuel used', () => {
    expect(decode('>RUV0000,NT003,190826125922,00111595,39K40156,0B36 F,203 V,V1.5,JMAK,0,0,0,;ID=FWHS;#0004;*03<').records![0].attributes.versionFw).toBe('0B36 F');
    expect(decode('>RUV01111,NT003,190826132746-2353539-046680190000009FFDE0006,00111585,0;ID=FWHS;#1A69;*5A<').records![0].attributes.alarm).toBe('idle');
    expect(decode('>RUV02108,NT003,190826131734-2353539-046680190000009FF5E0006,384,0,0,0,0,385,0,323,6,50000,51515;ID=FWHS;#1A2A;*31<').records![0].attributes.fuelUsed).toBe(5151.5);
  });
});

describe('taip framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts from > to < and skips line breaks between messages', () => {
    const r = next('\r\n>RPV1;ID=1<\r\n>RPV2');
    expect(r?.frame.toString()).toBe('>RPV1;ID=1<');
    expect(r?.consumed).toBe(13);
    expect(next('>RPV1;ID=1')).toBeNull();
  });
  it('rejects endless input', () => {
    expect(() => next(`>${'1'.repeat(3000)}`)).toThrow(FrameError);
    expect(() => next('x'.repeat(3000))).toThrow(FrameError);
  });
});

describe('taip commands', () => {
  it('wraps custom data with the ID and checksum', () => {
    const e = (data: string) => protocol.encode!({ type: 'custom', attributes: { data } }, { deviceId: '1234', now: NOW, config: {} }).toString();
    expect(e('QPV')).toBe('>QPV;ID=1234;*77<');
    expect(e('>SRM;ID=1234<')).toBe('>SRM;ID=1234<');
  });
});
