import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/egts.ts';
import { DecodeError, FrameError, type DecodeContext, type DeviceRecord } from '../../protocols/types.ts';
import { DeviceSession, GatewayCore } from '../../src/gateway/core.ts';
import type { DeviceRegistry, Source } from '../../src/gateway/registry.ts';
import type { FixWriter } from '../../src/gateway/writer.ts';
import { PT, SERVICE, dispatcherIdentity, packet, serviceRecord } from '../../src/forwarding/protocols/egts-wire.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 2), transport: 'tcp', config: {}, session: {} });
const hex = (s: string) => Buffer.from(s, 'hex');

const POS = '0100020b0025003a5701c91a003a5701cd6e68490202101700cbb4740f7617fd924364104f116a0000000000010300001ec2';
const AUTH = '0100010b002200c06401f21700c1640171360d00010101140071360d000238363539303500000000000000000047fc';

describe('egts decoding', () => {
  it('decodes POS_DATA: scaled coordinates, 0.1 km/h speed, seconds since 2010', () => {
    const r = protocol.decode!(hex(POS), ctx());
    expect(r.deviceId).toBe(String(0x49686ecd)); // object id stands for the device until it identifies
    const [fix] = r.records!;
    expect(fix.lat).toBeCloseTo(51.67569, 5);
    expect(fix.lng).toBeCloseTo(55.591896, 5);
    expect(fix.speed).toBeCloseTo(10.6, 6);
    expect(fix.valid).toBe(true);
    expect(fix.time).toBe(Date.UTC(2018, 2, 21, 5, 38, 19));
    expect(fix.attributes.motion).toBe(true);
  });

  it('confirms each record with an EGTS_PT_RESPONSE', () => {
    const r = protocol.decode!(hex(POS), ctx());
    expect(r.reply?.toString('hex')).toBe('0100000b001000000000683a5700060000000002020003003a57005c59');
  });

  it('takes the IMEI from TERM_IDENTITY and answers with a response and a result code', () => {
    const c = ctx();
    const r = protocol.decode!(hex(AUTH), c);
    expect(r.deviceId).toBe('865905');
    expect(r.records ?? []).toHaveLength(0);
    expect(r.reply?.toString('hex')).toBe(
      '0100000b00100000000068c0640006000000000101000300c16400de8a' + '0100000b000b00010001190400010000010109010000dd45',
    );
    // once identified, object ids in later records no longer replace the identity
    expect(protocol.decode!(hex(POS), c).deviceId).toBeUndefined();
  });

  it('rejects a packet whose data checksum is wrong', () => {
    const bad = hex(POS);
    bad[bad.length - 1] ^= 0xff;
    expect(() => protocol.decode!(bad, ctx())).toThrow(DecodeError);
  });

  it('ignores the terminal confirming our packets', () => {
    expect(protocol.decode!(hex('0100000b0003006c430004010000acfb'), ctx())).toEqual({});
  });
});

describe('egts dispatcher: a platform retranslating many objects on one connection', () => {
  /** The POS_DATA subrecord of POS (type, length, 23 bytes): the fix every record below carries. */
  const FIX = hex(POS).subarray(22, 22 + 26);
  const FIX_TIME = Date.UTC(2018, 2, 21, 5, 38, 19);
  const DISPATCHER = packet(PT.appData, 1, serviceRecord(0, SERVICE.auth, dispatcherIdentity(7000)));
  /** Packet 2: TELEDATA records 10-13 of objects 1001, 1002, 1001 and 9999 (unknown to the server below). */
  const DATA = packet(PT.appData, 2, Buffer.concat([1001, 1002, 1001, 9999].map((oid, i) => serviceRecord(10 + i, SERVICE.teledata, FIX, oid, 0x0f74b4cb))));
  /** PT_RESPONSE to packet 2 (result 0), a RECORD_RESPONSE with status 0 for each of records 10-13. */
  const DATA_REPLY =
    '0100000b003700020000' + '47' + // header: 55 bytes of data, packet id 2, type 0 (response), CRC-8
    '0200' + '00' + // the packet confirmed, result 0
    '0600' + '0200' + '00' + '0202' + '00' + '0300' + '0a00' + '00' + // our record 2: record 10 ok
    '0600' + '0300' + '00' + '0202' + '00' + '0300' + '0b00' + '00' +
    '0600' + '0400' + '00' + '0202' + '00' + '0300' + '0c00' + '00' +
    '0600' + '0500' + '00' + '0202' + '00' + '0300' + '0d00' + '00' +
    'ec6a'; // CRC-16 of the data

  function dispatcherSession(): DecodeContext {
    const c = ctx();
    c.deviceId = protocol.decode!(DISPATCHER, c).deviceId;
    return c;
  }

  it('authenticates with DISPATCHER_IDENTITY: the dispatcher id names the connection; a response and a result code answer it', () => {
    const r = protocol.decode!(DISPATCHER, ctx());
    expect(r.deviceId).toBe('7000');
    expect(r.records ?? []).toHaveLength(0);
    expect(r.reply?.toString('hex')).toBe(
      '0100000b0010000000006801000006000000000101000300000000255c' + '0100000b000b00010001190400010000010109010000dd45',
    );
  });

  it('each record belongs to the object its OID names, and every record is confirmed', () => {
    const r = protocol.decode!(DATA, dispatcherSession());
    expect(r.deviceId).toBeUndefined(); // the connection stays the dispatcher's
    expect(r.records!.map((x) => [x.deviceId, x.time, x.lat?.toFixed(5)])).toEqual([
      ['1001', FIX_TIME, '51.67569'],
      ['1002', FIX_TIME, '51.67569'],
      ['1001', FIX_TIME, '51.67569'],
      ['9999', FIX_TIME, '51.67569'],
    ]);
    expect(r.reply?.toString('hex')).toBe(DATA_REPLY);
  });

  it('through the gateway: each known object gets its records, the unknown one is noted and left out, and the reply confirms all four', async () => {
    const known = new Map<string, Source>(['7000', '1001', '1002'].map((id, i) => [id, { id: i + 1, deviceId: id, protocol: 'egts', blocked: false, trackerIds: [i + 1] }]));
    const unknown: string[] = [];
    const registry = { lookup: (id: string) => known.get(id), noteUnknown: (id: string) => unknown.push(id) } as unknown as DeviceRegistry;
    const stored: Array<[number, number[]]> = [];
    const writer = { submit: (source: number, records: DeviceRecord[]) => (stored.push([source, records.map((x) => x.time!)]), Promise.resolve()) } as unknown as FixWriter;
    const session = new DeviceSession(new GatewayCore(registry, writer), protocol, 'tcp', '127.0.0.1:1');
    expect(session.handle(protocol.decode!(DISPATCHER, session.context())).refused).toBeUndefined();
    const h = session.handle(protocol.decode!(DATA, session.context()));
    await h.committed;
    expect(stored).toEqual([[2, [FIX_TIME, FIX_TIME]], [3, [FIX_TIME]]]); // 1001 twice, 1002 once
    expect(unknown).toEqual(['9999']);
    expect(h.records).toBe(3);
    expect(h.reply?.toString('hex')).toBe(DATA_REPLY); // 9999's record confirmed too: the sender does not send it again
  });

  it('a terminal that identified itself keeps its records, whatever OID they carry', () => {
    const c = ctx();
    c.deviceId = protocol.decode!(hex(AUTH), c).deviceId;
    const r = protocol.decode!(DATA, c);
    expect(r.records!.map((x) => x.deviceId)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('before any identity each object id names its record; the first identifies the connection', () => {
    const r = protocol.decode!(DATA, ctx());
    expect(r.deviceId).toBe('1001');
    expect(r.records!.map((x) => x.deviceId)).toEqual(['1001', '1002', '1001', '9999']);
  });
});

describe('egts framer', () => {
  const framer = () => protocol.createFramer!();

  it('waits for the whole packet, then cuts it by the lengths in the header', () => {
    expect(framer().next(hex(POS).subarray(0, 20))).toBeNull();
    const two = Buffer.concat([hex(POS), hex(AUTH)]);
    const f = framer().next(two)!;
    expect(f.frame.toString('hex')).toBe(POS);
    expect(framer().next(two.subarray(f.consumed))!.frame.toString('hex')).toBe(AUTH);
  });

  it('rejects bytes that cannot start a packet and a corrupted header', () => {
    expect(() => framer().next(hex('02000b'))).toThrow(FrameError);
    const bad = hex(POS);
    bad[5] ^= 1;
    expect(() => framer().next(bad)).toThrow(FrameError);
  });
});

describe('egts commands', () => {
  const enc = { deviceId: '865905', now: 0x12345678 * 1000, config: {} };

  it('sends chat text as CT_MSGTO in CP-1251', () => {
    const bytes = protocol.encode!({ type: 'message', attributes: { message: 'Привет' } }, enc);
    expect(bytes.toString('hex')).toBe('0100000b001b00785601e3140078560004043311004078563412000000000100cff0e8e2e5f2fcef');
    expect(protocol.createFramer!().next(bytes)?.consumed).toBe(bytes.length); // a well-formed packet
  });

  it('wraps custom data in a CT_COM raw-data command', () => {
    const bytes = protocol.encode!({ type: 'custom', attributes: { data: 'a1b2' } }, enc);
    expect(bytes.subarray(-6, -2).toString('hex')).toBe('0000a1b2'); // command code 0 (raw data), then the bytes
  });

  it('throws for an unsupported command', () => {
    expect(() => protocol.encode!({ type: 'engineStop', attributes: {} }, enc)).toThrow();
  });
});
