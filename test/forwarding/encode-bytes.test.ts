/**
 * The encoders that write straight into bytes (docs/retranslators.md, "Encoding step") give exactly the
 * bytes of a plain reference encoding, written here from the documented formats with strings: Wialon
 * IPS 2.0 `#B#` and `#D#` packets and 1.1 `#D#`, and the JSON webhook's body; for varied fixes
 * (attributes of every kind, negative coordinates, missing values, non-ASCII text), batches that
 * split into packets by count and by size, and pieces that straddle the writer's slabs.
 */
import { describe, expect, it } from 'vitest';
import { crc16Ibm } from '../../protocols/binary.ts';
import { FLAG } from '../../src/core/point.ts';
import { toForwardFix } from '../../src/forwarding/forwarder.ts';
import { BatchEncoder } from '../../src/forwarding/protocols/json-webhook.ts';
import { TextBytes } from '../../src/forwarding/protocols/text-bytes.ts';
import { MessageEncoder } from '../../src/forwarding/protocols/wialon-ips.ts';
import { retranslatorPacket } from '../../src/forwarding/protocols/wialon-retranslator.ts';
import type { ForwardFix } from '../../src/forwarding/types.ts';
import type { LogRow } from '../../src/store/retranslators.ts';

// ---- the reference: one string per field, joined, converted once

const two = (n: number) => String(n).padStart(2, '0');

function refCoordinate(deg: number, width: number, pos: string, neg: string): string {
  const a = Math.abs(deg);
  let whole = Math.floor(a);
  let units = Math.round((a - whole) * 6_000_000); // minutes in 1e-5
  if (units >= 6_000_000) {
    whole += 1;
    units -= 6_000_000;
  }
  const minutes = Math.floor(units / 100_000);
  const fraction = units - minutes * 100_000;
  return `${String(whole).padStart(width, '0')}${two(minutes)}.${String(fraction).padStart(5, '0')};${deg < 0 ? neg : pos}`;
}

const orNA = (v: number | null) => (v === null ? 'NA' : String(Math.round(v)));
const clean = (s: string) => s.replace(/[;,|#:\r\n]/g, ' ');

function refMessage(f: ForwardFix): string {
  const a = f.attrs;
  const t = new Date(Math.floor(f.time / 1000) * 1000);
  const fields: string[] = [
    `${two(t.getUTCDate())}${two(t.getUTCMonth() + 1)}${two(t.getUTCFullYear() % 100)}`,
    `${two(t.getUTCHours())}${two(t.getUTCMinutes())}${two(t.getUTCSeconds())}`,
  ];
  if (f.lat !== null && f.lng !== null) fields.push(refCoordinate(f.lat, 2, 'N', 'S'), refCoordinate(f.lng, 3, 'E', 'W'), orNA(f.speed), orNA(f.course), orNA(f.alt));
  else fields.push('NA;NA;NA;NA;NA;NA;NA');
  fields.push(orNA(f.satellites), f.hdop === null ? 'NA' : String(f.hdop));
  for (const io of [a.input, a.output]) fields.push(typeof io === 'number' ? String(Math.trunc(io)) : 'NA');
  const adc = Object.keys(a)
    .filter((k) => /^adc\d+$/.test(k))
    .map((k) => ({ n: Number(k.slice(3)), v: a[k] }))
    .sort((x, y) => x.n - y.n);
  fields.push(adc.length ? adc.map((e) => e.v).join(',') : 'NA');
  fields.push(typeof a.driverUniqueId === 'string' ? clean(a.driverUniqueId) : 'NA');
  const params: string[] = [];
  if (f.precision !== null) params.push(`accuracy:2:${f.precision}`);
  for (const [k, v] of Object.entries(a)) {
    if (['input', 'output', 'driverUniqueId', 'archive', 'cells'].includes(k) || /^adc\d+$/.test(k) || !/^[A-Za-z0-9_.-]{1,64}$/.test(k)) continue;
    if (typeof v === 'number' && Number.isFinite(v)) params.push(`${k}:${Number.isInteger(v) ? 1 : 2}:${v}`);
    else if (typeof v === 'boolean') params.push(`${k}:3:${v}`);
    else if (typeof v === 'string') params.push(`${k}:3:${clean(v)}`);
  }
  if (Array.isArray(a.cells))
    a.cells.slice(0, 10).forEach((c: Record<string, unknown>, i: number) => {
      for (const [name, key] of [['mcc', 'mcc'], ['mnc', 'mnc'], ['lac', 'lac'], ['cell_id', 'cid']])
        if (typeof c[key] === 'number' && Number.isFinite(c[key])) params.push(`${name}${i ? i : ''}:1:${c[key]}`);
    });
  fields.push(params.length ? params.join(',') : 'NA');
  return fields.join(';');
}

const crcHex = (text: string) => crc16Ibm(Buffer.from(text)).toString(16).toUpperCase().padStart(4, '0');

/** `#B#` packets: at most 100 messages and 48 KiB of characters each. */
function refBlackBox(fixes: ForwardFix[]): { text: string; counts: number[] } {
  const packets: string[][] = [];
  for (const m of fixes.map(refMessage)) {
    const last = packets[packets.length - 1];
    if (last && last.length < 100 && last.join('|').length + 1 + m.length <= 48 * 1024) last.push(m);
    else packets.push([m]);
  }
  return { text: packets.map((p) => `#B#${p.join('|')}|${crcHex(p.join('|'))}\r\n`).join(''), counts: packets.map((p) => p.length) };
}

const refData = (version: '2.0' | '1.1', fixes: ForwardFix[]) =>
  fixes.map((f) => (version === '1.1' ? `#D#${refMessage(f)}\r\n` : `#D#${refMessage(f)};${crcHex(`${refMessage(f)};`)}\r\n`)).join('');

const refIso = (ms: number) => new Date(ms).toISOString();
const refJsonNum = (v: number | null) => (v === null || !Number.isFinite(v) ? null : v);
function refJson(fixes: ForwardFix[]): string {
  return JSON.stringify({
    fixes: fixes.map((f) => ({
      seq: f.seq, tracker_id: f.trackerId, device_id: f.deviceId, time: refIso(f.time), received: refIso(f.received),
      lat: refJsonNum(f.lat), lng: refJsonNum(f.lng), altitude: refJsonNum(f.alt), speed: refJsonNum(f.speed), course: refJsonNum(f.course),
      satellites: refJsonNum(f.satellites), hdop: refJsonNum(f.hdop), precision: refJsonNum(f.precision),
      valid: f.valid, lbs: f.lbs, archive: f.archive, ignition: f.ignition, alarm: f.alarm,
      odometer: refJsonNum(f.odometer), engine_hours: refJsonNum(f.hours), fuel_used: refJsonNum(f.fuelUsed), attributes: f.attrs,
    })),
  });
}

// ---- varied fixes

/** A small deterministic random generator (the same fixes every run). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const TEXTS = ['open', 'a;b,c|d#e:f\r\ng', 'Vilnius–Kaunas', 'Žalgiris ąčęėįšųūž', 'водитель Иванов', '漢字テキスト', '🚚 truck 🚛', '', ' ', 'x'.repeat(300), 'ё'.repeat(400)];
const NAMES = ['fuel', 'power', 'temp1', 'door', 'rpm', 'event', 'batteryLevel', 'motion', 'bad name', 'šilta', 'x'.repeat(70), 'a.b-c_d'];
const NUMBERS = [0, -0, 1, -1, 7, 42, 255, 65535, 2 ** 31, -(2 ** 31), 2 ** 53 - 1, 2 ** 53 + 2, 1e21, 1.5e300, 0.1, 0.2 + 0.1, 35.5, 12.7, -3.25, 1e-7, 123456.789, 5e-324, 99.99, 0.5, 12345678.9];

function attributesOf(r: () => number, i: number): Record<string, unknown> {
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)];
  const a: Record<string, unknown> = {};
  const n = Math.floor(r() * 8);
  for (let k = 0; k < n; k++) {
    const kind = r();
    a[pick(NAMES)] = kind < 0.4 ? pick(NUMBERS) : kind < 0.55 ? r() > 0.5 : kind < 0.8 ? pick(TEXTS) : kind < 0.9 ? null : kind < 0.95 ? { nested: pick(TEXTS) } : [1, pick(TEXTS)];
  }
  if (r() < 0.5) a.input = pick([3, 0, 255, 2.7, -1.5, 'x', true]);
  if (r() < 0.5) a.output = pick([0, 1, 6.9, null]);
  if (r() < 0.3) a.driverUniqueId = pick(['0012AB', 'Jonas;Petraitis', 'Иван', 'tag|7']);
  if (r() < 0.2) a.driverUniqueId = 12345;
  if (r() < 0.3) for (const k of ['adc10', 'adc2', 'adc1', 'adc02'].slice(0, 1 + Math.floor(r() * 4))) a[k] = pick([12.5, 3, 'v', null, 'ąč', { o: 1 }, [1, 2], true]);
  if (r() < 0.3) a.cells = Array.from({ length: Math.floor(r() * 12) }, (_, c) => ({ mcc: 246, mnc: c % 3 ? 1 : 2.5, lac: r() < 0.8 ? 100 + c : undefined, cid: r() < 0.9 ? 70000 + c * i : 'x' }));
  if (r() < 0.2) a.archive = true;
  return a;
}

function fixesOf(count: number, seed: number): ForwardFix[] {
  const r = rng(seed);
  const maybe = <T>(v: T, p = 0.8): T | null => (r() < p ? v : null);
  return Array.from({ length: count }, (_, i) => {
    const located = r() < 0.9;
    const attrs = attributesOf(r, i);
    const lat = r() < 0.05 ? pick2(r, [0, -0.0000001, 89.99999999999, -89.999999999, 10.999999999]) : (r() - 0.5) * 180;
    const lng = r() < 0.05 ? pick2(r, [0, 179.9999999999, -179.99999999, -0.5]) : (r() - 0.5) * 360;
    const time = r() < 0.1 ? pick2(r, [0, -1000, -86_400_001, Date.UTC(1999, 11, 31, 23, 59, 59, 999), Date.UTC(2024, 1, 29, 12), Date.UTC(2099, 11, 31, 23, 59, 59)]) : Date.UTC(2026, 10, 20) + Math.floor(r() * 86_400_000 * 40);
    const flags = Math.floor(r() * 64);
    return {
      seq: 1 + i * 7,
      sourceId: 1 + (i % 5),
      trackerId: 17 + (i % 5),
      deviceId: pick2(r, ['CAR-1', '860000000000001', 'fake "1"', 'Машина-7', 'a\\b']),
      time,
      received: time + Math.floor(r() * 5000),
      lat: located ? lat : null,
      lng: located ? lng : null,
      alt: maybe(Math.round((r() - 0.3) * 3000 * 10) / 10),
      speed: maybe(r() * 200),
      course: maybe(r() * 360),
      satellites: maybe(Math.floor(r() * 20)),
      hdop: maybe(pick2(r, [0.9, 1, 2.5, 0.1 + 0.2, 12])),
      precision: maybe(pick2(r, [5, 12.5, 1000, 0.3]), 0.5),
      valid: (flags & 1) !== 0,
      lbs: (flags & 2) !== 0,
      archive: (flags & 4) !== 0,
      ignition: flags & 8 ? (flags & 16) !== 0 : null,
      alarm: (flags & 32) !== 0,
      odometer: maybe(r() * 1e7),
      hours: maybe(Math.floor(r() * 1e9)),
      fuelUsed: maybe(Math.round(r() * 1000) / 4),
      attrs,
      attrsJson: r() < 0.8 ? JSON.stringify(attrs) : null,
    };
  });
}
function pick2<T>(r: () => number, list: T[]): T {
  return list[Math.floor(r() * list.length)];
}

/** The fixes grouped by device id (a Wialon IPS connection's share of a batch). */
function byDevice(fixes: ForwardFix[]): ForwardFix[][] {
  const groups = new Map<string, ForwardFix[]>();
  for (const f of fixes) (groups.get(f.deviceId) ?? groups.set(f.deviceId, []).get(f.deviceId)!).push(f);
  return [...groups.values()];
}

describe('Wialon IPS bytes', () => {
  it('#B# packets equal the reference, split by count and by size in characters', () => {
    const encoder = new MessageEncoder();
    const kept: Array<[Buffer, string]> = [];
    for (let seed = 1; seed <= 40; seed++) {
      for (const list of byDevice(fixesOf(seed * 13, seed))) {
        const got = encoder.blackBox(list);
        const ref = refBlackBox(list);
        expect(got.bytes.toString('latin1')).toBe(Buffer.from(ref.text).toString('latin1'));
        expect(got.counts).toEqual(ref.counts);
        kept.push([got.bytes, ref.text]);
      }
    }
    // pieces already taken are never written again, whatever came after them (new slabs included)
    for (const [bytes, text] of kept) expect(bytes.equals(Buffer.from(text))).toBe(true);
    expect(encoder.blackBox([]).bytes.length).toBe(0);
  });

  it('a packet is cut by characters, not bytes: long non-ASCII text', () => {
    const encoder = new MessageEncoder();
    for (const text of ['ё'.repeat(3000), '🚚'.repeat(1500), 'x'.repeat(6000), 'a;b'.repeat(2000)]) {
      const fixes = fixesOf(60, 7).map((f, i) => ({ ...f, deviceId: 'ONE', attrs: { ...f.attrs, note: text.slice(0, 1000 + i * 97) }, attrsJson: null }));
      const got = encoder.blackBox(fixes);
      const ref = refBlackBox(fixes);
      expect(ref.counts.length).toBeGreaterThan(1);
      expect(got.counts).toEqual(ref.counts);
      expect(got.bytes.equals(Buffer.from(ref.text))).toBe(true);
    }
  });

  it('#D# packets (2.0 with CRC, 1.1 without) equal the reference', () => {
    const encoder = new MessageEncoder();
    for (let seed = 1; seed <= 10; seed++) {
      const fixes = fixesOf(50, 100 + seed);
      // coordinates no tracker sends still come out as the reference's arithmetic writes them
      if (seed === 1) fixes.push({ ...fixes[0], lat: Infinity, lng: NaN }, { ...fixes[1], lat: -1e12, lng: 1e300 });
      for (const version of ['2.0', '1.1'] as const) {
        const got = encoder.dataPackets(version, fixes);
        expect(got.bytes.equals(Buffer.from(refData(version, fixes)))).toBe(true);
        expect(got.counts).toEqual(fixes.map(() => 1));
      }
    }
  });

  it('a cell that is not an object, or attributes that are not JSON, never fail the batch: skipped, the rest sent', () => {
    const [f] = fixesOf(1, 5);
    const odd: ForwardFix = { ...f, attrs: { fuel: 12, cells: [null, 5, { mcc: 246, mnc: 2, lac: 7, cid: 9 }] } };
    const text = new MessageEncoder().blackBox([odd]).bytes.toString('latin1');
    expect(text).toContain('fuel:1:12');
    expect(text).toContain('mcc2:1:246');
    expect(text).not.toContain('mcc:1:');
    const row: LogRow = [1, 1, f.time, f.lat, f.lng, f.alt, f.speed, f.course, f.satellites, f.hdop, null, FLAG.valid, f.received, '{"fuel": 1', f.odometer, f.hours, f.fuelUsed];
    const logged = toForwardFix(row, { trackerId: 1, deviceId: 'CAR-1', cursor: 0 });
    expect(logged.attrs).toEqual({});
    // Wialon Retranslator likewise: the cell that is one, nothing for the others
    const packet = retranslatorPacket(odd);
    expect(packet.includes(Buffer.from('mcc2\0'))).toBe(true);
    expect(packet.includes(Buffer.from('mcc\0'))).toBe(false);
    // the same packet as the fix without attributes
    const plain = toForwardFix([...row.slice(0, 13), null, ...row.slice(14)] as LogRow, { trackerId: 1, deviceId: 'CAR-1', cursor: 0 });
    expect(new MessageEncoder().blackBox([logged]).bytes.equals(new MessageEncoder().blackBox([plain]).bytes)).toBe(true);
  });

  it('from logged rows as the engine reads them', () => {
    const rows: LogRow[] = fixesOf(300, 77).map((f) => [f.seq, f.sourceId, f.time, f.lat, f.lng, f.alt, f.speed, f.course, f.satellites, f.hdop, f.precision, FLAG.valid, f.received, JSON.stringify(f.attrs), f.odometer, f.hours, f.fuelUsed]);
    const fixes = rows.map((r) => toForwardFix(r, { trackerId: 1, deviceId: 'CAR-1', cursor: 0 }));
    expect(new MessageEncoder().blackBox(fixes).bytes.equals(Buffer.from(refBlackBox(fixes).text))).toBe(true);
    expect(new BatchEncoder().batch(fixes).equals(Buffer.from(refJson(fixes)))).toBe(true);
  });
});

describe('JSON webhook bytes', () => {
  it('the body equals JSON.stringify of the documented objects, as UTF-8', () => {
    const encoder = new BatchEncoder();
    const kept: Array<[Buffer, string]> = [];
    for (let seed = 1; seed <= 30; seed++) {
      const fixes = fixesOf(seed * 37, 1000 + seed);
      const got = encoder.batch(fixes);
      const ref = refJson(fixes);
      expect(got.toString('utf8')).toBe(ref);
      expect(got.equals(Buffer.from(ref))).toBe(true);
      kept.push([got, ref]);
    }
    for (const [bytes, text] of kept) expect(bytes.equals(Buffer.from(text))).toBe(true);
    expect(encoder.batch([]).toString()).toBe('{"fixes":[]}');
  });

  it('fractional and far times as toISOString writes them', () => {
    const times = [0, -1, 999, -86_400_000, 8.64e15 - 1, -8.64e15 + 1, 253402300799999, 253402300800000, -62198755200000, 1.5, Date.UTC(2026, 10, 20, 23, 59, 59, 999)];
    const fixes = fixesOf(times.length, 5).map((f, i) => ({ ...f, time: times[i], received: times[times.length - 1 - i] }));
    expect(new BatchEncoder().batch(fixes).equals(Buffer.from(refJson(fixes)))).toBe(true);
  });
});

describe('TextBytes', () => {
  it('writes numbers as String() does', () => {
    const r = rng(9);
    const values = [...NUMBERS, -5e-324, 1e-6, 1.1e-6, 9.9e-7, 1e-7, 99999999.9999999, 1e8 - 1e-7, 1e8 + 0.5, 0.1234567, 0.12345678, 1.0000000000000002, 2 ** 53, -(2 ** 53), 1e20, 123e-20, NaN, Infinity, -Infinity];
    for (let i = 0; i < 20_000; i++) {
      const scale = 10 ** Math.floor(r() * 12 - 4);
      const v = (r() - 0.5) * scale;
      values.push(v, Math.round(v), Math.round(v * 1000) / 1000, Math.round(v * 100) / 100, Math.round(v * 1e7) / 1e7, Math.round(v * 1e6) / 1e6, -Math.round(v * 1e5) / 1e5);
    }
    const o = new TextBytes();
    for (const v of values) {
      o.num(v);
      expect(o.take().toString('latin1')).toBe(String(v));
    }
  });
});
