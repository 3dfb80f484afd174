/**
 * The fix chunk codec (issue 15): every row comes back identical, numbers bit for bit and attrs the
 * same text, for the whole chunk and for any subset of columns; random rows with edge values, every
 * record of the captures and hours of the simulator's streams, stored as the gateway stores them;
 * corrupt and truncated chunks throw a ChunkError.
 */
import { describe, expect, it } from 'vitest';
import { ChunkError, decodeFixChunk, encodeFixChunk, encodeFixChunkJson, FIX_COLUMNS, type StoredFix } from '../../src/core/fix-chunk.ts';
import { crc32 } from '../../src/core/chunk-bytes.ts';
import { numberAt } from '../../src/core/chunk-attrs.ts';
import { captureRows, SIM_PROTOCOLS, simulatorRows } from './fix-rows.ts';

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The first difference between two row lists (Object.is for every member), or null. */
function difference(got: StoredFix[], want: StoredFix[], members: readonly string[] = ['time', ...FIX_COLUMNS]): string | null {
  if (got.length !== want.length) return `${got.length} rows, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    for (const m of members) {
      const a = (got[i] as unknown as Record<string, unknown>)[m];
      const b = (want[i] as unknown as Record<string, unknown>)[m];
      if (!Object.is(a, b)) return `row ${i} ${m}: got ${String(a)} (${Object.is(a, -0) ? '-0' : typeof a}), expected ${String(b)} (${Object.is(b, -0) ? '-0' : typeof b})`;
    }
  }
  return null;
}

function expectRoundtrip(rows: StoredFix[], rand?: () => number): Uint8Array {
  const data = encodeFixChunk(rows);
  expect(difference(decodeFixChunk(data), rows)).toBeNull();
  if (rand) {
    const want = FIX_COLUMNS.filter(() => rand() < 0.4);
    const got = decodeFixChunk(data, want);
    expect(difference(got, rows, ['time', ...want])).toBeNull();
    for (const c of FIX_COLUMNS.filter((x) => !want.includes(x))) expect(got.every((r) => r[c] === null), `${c} not null`).toBe(true);
  }
  return data;
}

const EDGE = [0, -0, 1, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 50, 2 ** 50 + 1, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, Infinity, -Infinity, 0.1 + 0.2, 1e21, 1e-7, 54.71148230000001, 25.440316199999998, 123456789.123456789, 1 / 3];
const KEYS = ['a', 'b', 'ignition', 'power', '1', '0', 'é', '🚗 speed', 'with "quote"', 'back\\slash', 'tab\tkey', '', 'io239', 'cells'];
const STRINGS = ['', 'x', 'Ünïcødé', '😀', '\u0000\u001f', '"quoted"', '\\', '\ud800', '\udc00x', 'line\nbreak', 'Привет'];

function randomValue(rand: () => number, depth = 0): unknown {
  const p = rand();
  if (p < 0.25) return Math.floor(rand() * 2000) - 1000;
  if (p < 0.4) return Math.round(rand() * 1e6) / 1000;
  if (p < 0.45) return EDGE[Math.floor(rand() * EDGE.length)];
  if (p < 0.55) return rand() * 1e6;
  if (p < 0.7) return STRINGS[Math.floor(rand() * STRINGS.length)];
  if (p < 0.8) return rand() < 0.5;
  if (p < 0.85) return null;
  if (depth > 2) return 7;
  if (p < 0.93) return Array.from({ length: Math.floor(rand() * 3) }, () => randomValue(rand, depth + 1));
  return randomObject(rand, depth + 1);
}

function randomObject(rand: () => number, depth = 0): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const k = Math.floor(rand() * 6);
  for (let i = 0; i < k; i++) o[KEYS[Math.floor(rand() * KEYS.length)]] = randomValue(rand, depth);
  return o;
}

/** Texts no JSON.stringify writes: kept verbatim, or split where they still rebuild exactly. */
const ODD_TEXTS = ['{"a":1.0}', '{"a": 1}', '{"a":-0}', '{"a":1E5,"b":1e+21}', '[1,2]', 'not json', '', '{', '{}}', '{"a":1,"a":2}', '{"1":1,"0":2}', '{"a":"x\\"}', '{"a":tru"e"}', ' {}', '{"a":{"b":[1,{"c":"}"}]}}', '{"a":01}', '{"a":-Infinity}'];

function randomColumn(rand: () => number): (i: number, time: number) => number | null {
  const style = Math.floor(rand() * 7);
  const nulls = rand() < 0.3 ? rand() : 0;
  let walk = (rand() - 0.5) * 360;
  return (i) => {
    if (rand() < nulls) return null;
    if (rand() < 0.03) return EDGE[Math.floor(rand() * EDGE.length)];
    switch (style) {
      case 0:
        return null;
      case 1:
        return Math.floor(rand() * 300);
      case 2:
        return (walk = Math.round((walk + (rand() - 0.5) * 0.01) * 1e7) / 1e7);
      case 3:
        return rand() * 1000 - 500;
      case 4:
        return Math.round(rand() * 100) / 10;
      case 5:
        return i * 1000 + 0.5;
      default:
        return EDGE[Math.floor(rand() * EDGE.length)];
    }
  };
}

function randomRows(rand: () => number): StoredFix[] {
  const n = 1 + Math.floor(rand() ** 2 * 400);
  const cols = Object.fromEntries(FIX_COLUMNS.map((c) => [c, randomColumn(rand)]));
  const timeStyle = Math.floor(rand() * 3);
  let time = timeStyle === 0 ? Date.UTC(2025, 0, 1) + Math.floor(rand() * 1e9) : timeStyle === 1 ? -1e6 : rand() * 1000;
  const attrStyle = rand();
  const rows: StoredFix[] = [];
  for (let i = 0; i < n; i++) {
    time += timeStyle === 2 ? 0.5 + rand() : rand() < 0.8 ? 10_000 : 1 + Math.floor(rand() * 100_000);
    const a = rand();
    const attrs =
      attrStyle < 0.1 ? null : a < 0.1 ? null : a < 0.15 ? '{}' : a < 0.2 ? ODD_TEXTS[Math.floor(rand() * ODD_TEXTS.length)] : JSON.stringify(randomObject(rand));
    const r = rand();
    rows.push({
      time,
      lat: cols.lat(i, time),
      lng: cols.lng(i, time),
      alt: cols.alt(i, time),
      speed: cols.speed(i, time),
      course: cols.course(i, time),
      satellites: cols.satellites(i, time),
      hdop: cols.hdop(i, time),
      precision: cols.precision(i, time),
      flags: Math.floor(rand() * 64),
      received: r < 0.8 ? time + 30 + Math.floor(rand() * 400) : r < 0.9 ? (cols.received(i, time) ?? time) : -0,
      attrs,
      odometer: cols.odometer(i, time),
      hours: cols.hours(i, time),
      fuel_used: cols.fuel_used(i, time),
    });
  }
  return rows;
}

describe('fix chunk roundtrip', () => {
  it('random rows with edge values come back identical, whole and by any columns (300 seeded cases)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const rand = prng(seed);
      const rows = randomRows(rand);
      try {
        expectRoundtrip(rows, rand);
      } catch (e) {
        throw new Error(`seed ${seed}: ${(e as Error).message}`);
      }
    }
  });

  it('keeps the key order of every row, keys in some rows only, and attribute texts it cannot split', () => {
    const texts = [
      '{"a":1,"b":2}',
      '{"b":2,"a":1}',
      '{"a":1}',
      '{"b":true,"c":"x","a":null}',
      '{}',
      null,
      '{"1":1,"0":2}',
      '{"a":1.0}',
      '{"a":1,"a":2}',
      '{"a":[1,{"b":"}]"}],"c":{"d":{}}}',
      '{"é":"😀","\\ud800":"\\udc00"}',
      '{"a":"\ud800 lone"}',
      '{"a":5e-7,"b":1e+21,"c":-1.5,"d":123456789012345680000}',
    ];
    const rows = texts.map((attrs, i) => ({ ...base(i), attrs }));
    expectRoundtrip(rows);
  });

  it('a column of one odd value among scaled ones keeps both (-0, 2^53-1, 5e-324, values beyond 1e-7)', () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({ ...base(i), lat: 54 + i * 1e-7, lng: i === 100 ? -0 : i === 200 ? 2 ** 53 - 1 : i === 300 ? 5e-324 : i === 400 ? 25.440316199999998 : 25 + i / 1e7 }));
    expectRoundtrip(rows);
  });

  it('a chunk of one row, and rows with every member null', () => {
    expectRoundtrip([base(0)]);
    const empty = { lat: null, lng: null, alt: null, speed: null, course: null, satellites: null, hdop: null, precision: null, attrs: null, odometer: null, hours: null, fuel_used: null };
    expectRoundtrip(Array.from({ length: 50 }, (_, i) => ({ ...base(i), ...empty })));
  });

  it('format 0 chunks (the placeholder) still decode, whole and by columns', () => {
    const rows = Array.from({ length: 20 }, (_, i) => base(i));
    const data = encodeFixChunkJson(rows);
    expect(data[0]).toBe(0);
    expect(difference(decodeFixChunk(data), rows)).toBeNull();
    const part = decodeFixChunk(data, ['lat', 'lng', 'flags']);
    expect(difference(part, rows, ['time', 'lat', 'lng', 'flags'])).toBeNull();
    expect(part.every((r) => r.attrs === null && r.received === null)).toBe(true);
  });

  it('refuses empty chunks and times that do not increase', () => {
    expect(() => encodeFixChunk([])).toThrow(RangeError);
    expect(() => encodeFixChunk([base(1), base(1)])).toThrow(/strictly increasing/);
    expect(() => encodeFixChunk([base(2), base(1)])).toThrow(/strictly increasing/);
    expect(() => encodeFixChunk([{ ...base(1), time: NaN }])).toThrow(/time is a number/);
  });
});

function base(i: number): StoredFix {
  const time = Date.UTC(2025, 4, 17) + i * 10_000;
  return { time, lat: 54.6872 + i * 1e-5, lng: 25.2797, alt: 120, speed: 36.5, course: 90, satellites: 9, hdop: 0.9, precision: null, flags: 1, received: time + 150, attrs: `{"n":${i}}`, odometer: 1000 + i, hours: null, fuel_used: null };
}

describe('numbers in attribute texts', () => {
  it('a value text is a number exactly when String(Number(text)) is the text (fast path checked against the definition)', () => {
    const rand = prng(7);
    const digits = (k: number) => Array.from({ length: k }, () => Math.floor(rand() * 10)).join('');
    const texts = ['0', '-0', '00', '01', '0.5', '-0.5', '.5', '5.', '1.50', '0.000001', '0.0000001', '0.0000010', '1e-7', '1e+21', '1E5', '-', '', '123456789012345', '1234567890123456', '999999999999999999999', '1000000000000000000000', '1.7976931348623157e308', '5e-324', '-Infinity', 'NaN', '0x10', '1_000', '+1', '12.34.5', '2.2250738585072014e-308'];
    for (let i = 0; i < 100_000; i++) {
      const p = rand();
      const sign = rand() < 0.3 ? '-' : '';
      if (p < 0.3) texts.push(sign + digits(1 + Math.floor(rand() * 17)));
      else if (p < 0.7) texts.push(sign + digits(1 + Math.floor(rand() * 8)) + '.' + digits(1 + Math.floor(rand() * 10)));
      else if (p < 0.8) texts.push(sign + '0.' + '0'.repeat(Math.floor(rand() * 8)) + digits(1 + Math.floor(rand() * 6)));
      else texts.push(String((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20)));
    }
    for (const t of texts) {
      const v = Number(t);
      // (texts not starting with a digit or minus, such as NaN, stay texts)
      const want = /^[-0-9]/.test(t) && String(v) === t ? v : null;
      const got = numberAt(`{"k":${t}}`, 5, 5 + t.length);
      if (t === '') continue;
      if (!Object.is(got, want)) throw new Error(`${t}: got ${got}, expected ${want}`);
    }
  });
});

describe('fix chunks of real streams', () => {
  it('every record of the captures, per device, comes back identical', () => {
    const sources = captureRows();
    const fixes = sources.reduce((s, x) => s + x.rows.length, 0);
    expect(sources.length).toBeGreaterThan(500);
    expect(fixes).toBeGreaterThan(2000);
    const rand = prng(15);
    let bytes = 0;
    for (const { source, rows } of sources) {
      try {
        bytes += expectRoundtrip(rows, rand).length;
      } catch (e) {
        throw new Error(`${source}: ${(e as Error).message}`);
      }
    }
    // every row in one chunk too (sources' times interleave: sorted, one row per instant)
    const all = new Map<number, StoredFix>();
    for (const { rows } of sources) for (const r of rows) all.set(r.time, r);
    expectRoundtrip([...all.values()].sort((a, b) => a.time - b.time), rand);
    expect(bytes).toBeGreaterThan(0);
  }, 120_000);

  it.each(SIM_PROTOCOLS)('three hours of a simulated %s tracker at 10 s come back identical, in under 25 bytes per fix', (protocol) => {
    const rows = simulatorRows({ protocol, seed: 11, start: Date.UTC(2025, 4, 17, 6), hours: 3, intervalS: 10 });
    expect(rows.length).toBeGreaterThan(1000);
    const data = expectRoundtrip(rows, prng(3));
    expect(data.length / rows.length).toBeLessThan(25);
  }, 60_000);
});

describe('bad chunks', () => {
  const rows = Array.from({ length: 300 }, (_, i) => base(i));
  const small = encodeFixChunk(rows.slice(0, 3));
  const large = encodeFixChunk(rows);

  it('a chunk cut short at any length throws a ChunkError', () => {
    for (const data of [small, large]) {
      for (let len = 0; len < data.length; len++) expect(() => decodeFixChunk(data.subarray(0, len)), `cut at ${len}`).toThrow(ChunkError);
    }
  });

  it('any changed byte throws a ChunkError', () => {
    for (const data of [small, large]) {
      for (let i = 1; i < data.length; i++) {
        const bad = data.slice();
        bad[i] ^= 1 << (i % 8);
        expect(() => decodeFixChunk(bad), `byte ${i}`).toThrow(ChunkError);
      }
    }
  });

  it('an unknown format byte throws', () => {
    const bad = small.slice();
    bad[0] = 9;
    expect(() => decodeFixChunk(bad)).toThrow(/unknown format 9/);
  });

  it('forged chunks with a valid checksum throw a ChunkError or decode, never hang or allocate without bound', () => {
    const rand = prng(99);
    const forge = (body: number[]) => {
      const b = new Uint8Array(body.length + 4);
      b.set(body);
      const c = crc32(b, 0, body.length);
      b.set([c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, c >>> 24], body.length);
      return b;
    };
    // a huge row count, a huge block count, a huge raw length
    expect(() => decodeFixChunk(forge([1, 1, 0xff, 0xff, 0xff, 0xff, 0x7f, 15]))).toThrow(/row count/);
    expect(() => decodeFixChunk(forge([1, 0, 10, 0xff, 0xff, 0xff, 0x7f]))).toThrow(ChunkError);
    expect(() => decodeFixChunk(forge([1, 0, 10, 15, 1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4, 5]))).toThrow(ChunkError);
    // random changes to the bytes of real chunks, checksum fixed
    for (const data of [small, large]) {
      for (let k = 0; k < 2000; k++) {
        const bad = Array.from(data.subarray(0, data.length - 4));
        const changes = 1 + Math.floor(rand() * 3);
        for (let j = 0; j < changes; j++) bad[1 + Math.floor(rand() * (bad.length - 1))] = Math.floor(rand() * 256);
        try {
          const got = decodeFixChunk(forge(bad));
          expect(Array.isArray(got)).toBe(true);
        } catch (e) {
          expect(e, String(e)).toBeInstanceOf(ChunkError);
        }
      }
    }
  }, 60_000);

  it('a format 0 chunk that does not decompress throws a ChunkError', () => {
    expect(() => decodeFixChunk(new Uint8Array([0, 1, 2, 3]))).toThrow(ChunkError);
  });
});
