/**
 * Round trips (issue 3, simulator): packets built by the simulator's device side are framed and
 * decoded by our protocol modules and must give back the fixes they were built from.
 */
import { describe, expect, it } from 'vitest';
import { protocol as gt06Protocol } from '../../protocols/gt06/index.ts';
import { protocol as osmandProtocol } from '../../protocols/osmand.ts';
import { protocol as teltonikaProtocol } from '../../protocols/teltonika/index.ts';
import { protocol as wialonProtocol } from '../../protocols/wialon.ts';
import { crc16Ibm } from '../../protocols/binary.ts';
import type { DecodeContext, DeviceRecord, Protocol } from '../../protocols/types.ts';
import { DEVICE_PROTOCOLS } from '../../src/simulator/devices/index.ts';
import { httpReplies } from '../../src/simulator/devices/osmand.ts';
import type { SimFix } from '../../src/simulator/types.ts';
import { Vehicle } from '../../src/simulator/vehicle.ts';

const IMEI = '350000000000042';
const T0 = Date.UTC(2025, 4, 17, 8, 30, 0);

/** Known fixes: from the vehicle model, plus hand-made ones in every hemisphere. */
function fixes(): SimFix[] {
  const v = new Vehicle({ seed: 3 });
  const out: SimFix[] = [];
  for (let i = 0; i < 20; i++) {
    v.advance(7);
    out.push(v.fix(T0 + i * 7000));
  }
  const base = out[0];
  out.push({ ...base, time: T0 + 200_000, lat: -33.8688197, lng: 151.2092955, course: 359, speed: 0, motion: false, ignition: false, inputs: 2, event: 239 });
  out.push({ ...base, time: T0 + 201_000, lat: 40.7127753, lng: -74.0059728, course: 0, speed: 118, altitude: -12 });
  out.push({ ...base, time: T0 + 202_000, lat: -22.9068467, lng: -43.1728965, course: 180, satellites: 15 });
  return out;
}

const ctx = (transport: DecodeContext['transport'] = 'tcp'): DecodeContext => ({ now: T0, transport, config: {}, session: {} });

/** Frames a byte stream with the protocol's framer and decodes every frame in one session. */
function decodeStream(p: Protocol, stream: Buffer, c: DecodeContext) {
  const framer = p.createFramer!();
  const results = [];
  let buf = stream;
  for (let cut = framer.next(buf); cut; cut = framer.next(buf)) {
    const r = p.decode!(cut.frame, c);
    if (r.deviceId) c.deviceId = r.deviceId;
    results.push(r);
    buf = buf.subarray(cut.consumed);
  }
  expect(buf.length).toBe(0);
  return results;
}

function expectPosition(rec: DeviceRecord, f: SimFix, digits: number) {
  expect(rec.time).toBe(f.time);
  expect(rec.lat).toBeCloseTo(f.lat, digits);
  expect(rec.lng).toBeCloseTo(f.lng, digits);
  expect(rec.speed).toBeCloseTo(f.speed, 6);
  expect(rec.course).toBe(f.course);
}

const target = { host: '127.0.0.1', port: 5055 };

describe('teltonika device side', () => {
  it('login, then Codec 8E packets of N records decode back, with the u32 count as reply', () => {
    const all = fixes();
    const dev = DEVICE_PROTOCOLS.teltonika.createDevice(IMEI, target);
    const packets = [all.slice(0, 1), all.slice(1, 10), all.slice(10)].map((p) => dev.packet(p, false));
    const c = ctx();
    const [login, ...data] = decodeStream(teltonikaProtocol, Buffer.concat([dev.login()!, ...packets.map((p) => p.bytes)]), c);
    expect(login).toEqual({ deviceId: IMEI, reply: Buffer.from([1]) });
    expect(data.map((d) => d.reply!.readUInt32BE(0))).toEqual([1, 9, all.length - 10]);
    expect(packets.map((p) => p.units)).toEqual([[1], [9], [all.length - 10]]);
    const recs = data.flatMap((d) => d.records!);
    expect(recs).toHaveLength(all.length);
    recs.forEach((rec, i) => {
      const f = all[i];
      expectPosition(rec, f, 7);
      expect(rec).toMatchObject({ altitude: f.altitude, satellites: f.satellites, valid: true });
      expect(rec.attributes).toMatchObject({
        ignition: f.ignition, motion: f.motion, in1: (f.inputs & 1) === 1, in2: (f.inputs & 2) === 2, rssi: f.rssi,
        power: f.power, battery: f.battery, fuelLevel: f.fuelLevel, odometer: f.odometer, hdop: f.hdop, event: f.event, priority: 0,
      });
    });
  });
  it('reads the login answer, u32 counts and a Codec 12 command (answered with a Codec 12 response)', () => {
    const r = DEVICE_PROTOCOLS.teltonika.createDevice(IMEI, target).replies();
    const command = teltonikaProtocol.encode!({ type: 'custom', attributes: { data: 'getver' } }, { deviceId: IMEI, now: T0, config: {} });
    const stream = Buffer.concat([Buffer.from([1, 0, 0, 0, 7]), command, Buffer.from([0, 0, 0, 0])]);
    const out = [];
    let buf = stream;
    for (let n = r.next(buf); n; n = r.next(buf)) {
      out.push(n.reply);
      buf = buf.subarray(n.consumed);
    }
    expect(out.map((o) => o.kind)).toEqual(['login', 'ack', 'command', 'ack']);
    expect(out[1]).toEqual({ kind: 'ack', count: 7 });
    expect(out[3]).toEqual({ kind: 'ack', count: 0 });
    const answer = (out[2] as { answer: Buffer }).answer;
    const c = ctx();
    c.deviceId = IMEI;
    const [decoded] = decodeStream(teltonikaProtocol, answer, c);
    expect(decoded.records![0].attributes.result).toBe('OK getver');
  });
});

describe('gt06 device side', () => {
  it('login 0x01 and GPS/LBS 0x22 frames decode back; every frame is acked with its serial', () => {
    const all = fixes();
    const dev = DEVICE_PROTOCOLS.gt06.createDevice(IMEI, target);
    const login = dev.login()!;
    const first = dev.packet(all.slice(0, 5), false);
    const second = dev.packet(all.slice(5), true);
    expect(first.units).toEqual([1, 1, 1, 1, 1]);
    const c = ctx();
    const results = decodeStream(gt06Protocol, Buffer.concat([login, first.bytes, second.bytes]), c);
    expect(results[0].deviceId).toBe(IMEI);
    const recs = results.slice(1).map((r) => r.records![0]);
    expect(recs).toHaveLength(all.length);
    recs.forEach((rec, i) => {
      const f = all[i];
      expectPosition(rec, { ...f, time: Math.floor(f.time / 1000) * 1000 }, 5);
      expect(rec.satellites).toBe(f.satellites);
      expect(rec.cells).toEqual([f.cell]);
      expect(rec.attributes).toMatchObject({ ignition: f.ignition, odometer: f.odometer, archive: i >= 5, event: f.event === 239 ? 3 : 0 });
    });
    // the acks the server sends are read back as one login answer and one ack per frame
    const reader = dev.replies();
    let buf = Buffer.concat(results.map((r) => r.reply!));
    const kinds = [];
    for (let n = reader.next(buf); n; n = reader.next(buf)) {
      kinds.push(n.reply.kind);
      buf = buf.subarray(n.consumed);
    }
    expect(kinds).toEqual(['login', ...all.map(() => 'ack')]);
  });
});

describe('wialon IPS 2.0 device side', () => {
  it('#L#, #D# and #B# with CRC decode back; answers #AL#1, #AD#1, #AB#n', () => {
    const all = fixes();
    const dev = DEVICE_PROTOCOLS.wialon.createDevice(IMEI, target);
    const single = dev.packet(all.slice(0, 1), false);
    const batch = dev.packet(all.slice(1), false);
    const c = ctx();
    const [login, d, b] = decodeStream(wialonProtocol, Buffer.concat([dev.login()!, single.bytes, batch.bytes]), c);
    expect(login).toEqual({ deviceId: IMEI, reply: Buffer.from('#AL#1\r\n') });
    expect(d.reply!.toString()).toBe('#AD#1\r\n');
    expect(b.reply!.toString()).toBe(`#AB#${all.length - 1}\r\n`);
    const recs = [...d.records!, ...b.records!];
    expect(recs).toHaveLength(all.length);
    recs.forEach((rec, i) => {
      const f = all[i];
      expectPosition(rec, { ...f, time: Math.floor(f.time / 1000) * 1000 }, 6);
      expect(rec).toMatchObject({ altitude: f.altitude, satellites: f.satellites, hdop: f.hdop });
      expect(rec.attributes).toMatchObject({ power: f.power, battery: f.battery, fuel_level: f.fuelLevel, odometer: f.odometer, ignition: f.ignition ? 1 : 0, input: f.inputs });
    });
    const reader = dev.replies();
    const acks = ['#AL#1\r\n', '#AD#1\r\n', '#AB#7\r\n', '#AD#16\r\n'].map((l) => reader.next(Buffer.from(l))!.reply);
    expect(acks).toEqual([{ kind: 'login', ok: true }, { kind: 'ack', count: null }, { kind: 'ack', count: 7 }, { kind: 'ack', count: 0 }]);
  });
});

describe('osmand device side', () => {
  it('a GET query for one record and a JSON POST for a batch decode back', () => {
    const all = fixes();
    const dev = DEVICE_PROTOCOLS.osmand.createDevice(IMEI, target);
    const requests = [dev.packet(all.slice(0, 1), false), dev.packet(all.slice(1), false)].map((p) => p.bytes.toString());
    const recs = requests.flatMap((raw) => {
      const [head, body] = raw.split('\r\n\r\n');
      const [method, uri] = head.split(' ');
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((h) => [h.split(':')[0].toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));
      if (headers['content-length']) expect(Buffer.byteLength(body)).toBe(Number(headers['content-length']));
      const r = osmandProtocol.decodeHttp!({ method, uri, headers, body: Buffer.from(body) }, ctx('http'));
      expect(r).toMatchObject({ deviceId: IMEI, status: 200 });
      return r.records!;
    });
    expect(recs).toHaveLength(all.length);
    recs.forEach((rec, i) => {
      const f = all[i];
      expectPosition(rec, f, 7);
      expect(rec).toMatchObject({ altitude: f.altitude, valid: true });
      expect(rec.attributes).toMatchObject({ ignition: f.ignition, power: f.power, battery: f.battery, fuelLevel: f.fuelLevel, odometer: f.odometer, input: f.inputs, batteryLevel: f.batteryLevel });
    });
  });
  it('reads HTTP responses by Content-Length and chunked, 200 accepts, other statuses refuse', () => {
    const r = httpReplies();
    const stream = Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nbad\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n');
    const first = r.next(stream)!;
    expect(first.reply).toEqual({ kind: 'ack', count: null });
    const rest = stream.subarray(first.consumed);
    const second = r.next(rest)!;
    expect(second.reply).toEqual({ kind: 'ack', count: 0 });
    expect(r.next(rest.subarray(second.consumed))).toBeNull();
  });
});

