/**
 * The forwarding thread's priority and the backlog bound (docs/retranslators.md, "Priority and the
 * backlog bound"), and the cheap per-fix encoding of the throughput step: the JSON text written
 * straight from a logged row is the documented JSON shape.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { getPriority, setPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAG } from '../../src/core/point.ts';
import { toForwardFix } from '../../src/forwarding/forwarder.ts';
import { PriorityGovernor } from '../../src/forwarding/priority.ts';
import { BatchEncoder, fixJson, fixJsonText } from '../../src/forwarding/protocols/json-webhook.ts';
import type { LogRow } from '../../src/store/retranslators.ts';
import type { TestServer } from '../helpers/server.ts';
import { serverWithWialon, track, Tracker, waitFor } from './helpers.ts';

describe('PriorityGovernor', () => {
  it('starts lowered, returns to the normal priority above the bound and lowers again below half of it', () => {
    const applied: number[] = [];
    const g = new PriorityGovernor({ nice: 10, urgentBacklog: 1000 }, (n) => (applied.push(n), true));
    expect(g.lowered).toBe(true);
    g.update(1000);
    expect(applied).toEqual([]);
    g.update(1001);
    expect([g.lowered, applied]).toEqual([false, [0]]);
    g.update(600); // between half and the bound: stays raised
    g.update(5000);
    expect(applied).toEqual([0]);
    g.update(499);
    expect([g.lowered, applied, g.raises]).toEqual([true, [0, 10], 1]);
  });

  it('stays lowered where raising is not permitted; nice 0 or no bound never changes anything', () => {
    const refused = new PriorityGovernor({ nice: 10, urgentBacklog: 100 }, () => false);
    refused.update(1e6);
    expect(refused.lowered).toBe(true);
    const calls: number[] = [];
    for (const o of [{ nice: 0, urgentBacklog: 100 }, { nice: 10, urgentBacklog: 0 }]) new PriorityGovernor(o, (n) => (calls.push(n), true)).update(1e6);
    expect(calls).toEqual([]);
  });
});

describe('JSON text straight from a logged row', () => {
  const row = (o: Record<string, unknown>): LogRow => {
    const r = {
      seq: 7, source_id: 3, time: Date.UTC(2026, 10, 20, 8, 0, 3), lat: 55.7503, lng: -37.6103, alt: 120, speed: 3.5, course: 90, satellites: 9, hdop: 0.9,
      precision: null, flags: FLAG.valid | FLAG.archive | FLAG.ignitionKnown, received: Date.UTC(2026, 10, 20, 8, 0, 4, 512), attrs: '{"fuel":3.5,"driver":"a\\"n","cells":[{"mcc":250,"mnc":1,"lac":2,"cid":3}]}',
      odometer: 1000.5, hours: 3_600_000, fuel_used: null, ...o,
    };
    return [r.seq, r.source_id, r.time, r.lat, r.lng, r.alt, r.speed, r.course, r.satellites, r.hdop, r.precision, r.flags, r.received, r.attrs, r.odometer, r.hours, r.fuel_used] as LogRow;
  };
  const binding = { trackerId: 17, deviceId: 'CAR-1', cursor: 0 };
  it('is exactly JSON.stringify of the documented object, whatever is null or set', () => {
    const rows = [
      row({}),
      row({ attrs: null, lat: null, lng: null, alt: null, speed: null, course: null, satellites: null, hdop: null, flags: 0, odometer: null, hours: null }),
      row({ flags: FLAG.ignitionKnown | FLAG.ignitionOn | FLAG.alarm | FLAG.lbs, precision: 12.5, fuel_used: 0.25 }),
    ];
    for (const r of rows) {
      const f = toForwardFix(r, r[13] ? binding : { ...binding, deviceId: 'fake "1"' });
      expect(fixJsonText(f)).toBe(JSON.stringify(fixJson(f)));
    }
    const fixes = rows.map((r) => toForwardFix(r, binding));
    const encoder = new BatchEncoder();
    expect(JSON.parse(encoder.batch(fixes).toString('utf8'))).toEqual({ fixes: fixes.map(fixJson) });
    expect(encoder.batch([]).toString('utf8')).toBe('{"fixes":[]}');
  });
});

/** The nice value of this process's forwarding thread (named by the thread itself), from /proc. */
function forwardingNice(): number | null {
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    if (stat.includes('(fsm-forward)')) return Number(stat.split(') ')[1].split(' ')[16]);
  }
  return null;
}

/** Whether this process may raise a lowered thread's priority again (root, CAP_SYS_NICE). */
function mayRaise(): boolean {
  const before = getPriority(0);
  try {
    setPriority(0, Math.min(19, before + 1));
    setPriority(0, before);
    return getPriority(0) === before;
  } catch {
    return false;
  }
}

describe('the forwarding thread under a backlog', () => {
  let s: TestServer & { wialonPort: number };
  let ann: { id: number; hash: string };
  let rx: Server | undefined;
  const got: number[] = [];
  beforeAll(async () => {
    // a bound of 50 fixes: a receiver that is away for a moment puts the backlog over it
    s = await serverWithWialon({ FSM_FORWARD_NICE: '10', FSM_FORWARD_URGENT_BACKLOG: '50' });
    ann = await s.user('ann@example.com');
  });
  afterAll(async () => {
    if (rx) await new Promise((r) => rx!.close(r));
    await s?.close();
  });

  it('runs lowered, returns to the normal priority while the backlog is over the bound, drains it and lowers again', async () => {
    if (!existsProc()) return;
    await waitFor('forwarding thread named', () => forwardingNice() !== null);
    expect(forwardingNice()).toBe(10);
    // the receiver's port is taken from a listener closed at once: nothing answers there until it comes back
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const created = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: 'J', protocol_id: 3, address: `http://127.0.0.1:${port}/`, enabled: true } });
    const rid = created.body.id as number;
    const tid = s.addTracker(ann.id, '862000000000001', { protocol: 'wialon' });
    await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid });
    const t = await Tracker.login(s.wialonPort, '862000000000001');
    try {
      const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);
      await t.send(track(T0, 200));
      const backlog = async () => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((r: any) => r.id === rid).status.backlog as number;
      await waitFor('backlog over the bound', async () => (await backlog()) === 200);
      if (mayRaise()) await waitFor('normal priority', () => forwardingNice() === 0);
      else expect(forwardingNice()).toBe(10);
      rx = createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          for (const f of JSON.parse(body).fixes) got.push(Date.parse(f.time));
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((r) => rx!.listen(port, '127.0.0.1', r));
      await waitFor('every fix forwarded', () => got.length >= 200, 30_000);
      await waitFor('backlog empty', async () => (await backlog()) === 0);
      await waitFor('lowered again', () => forwardingNice() === 10);
      expect(got.slice(0, 200)).toEqual(track(T0, 200).map((f) => f.time));
    } finally {
      t.close();
    }
  });
});

function existsProc(): boolean {
  try {
    readdirSync('/proc/self/task');
    return true;
  } catch {
    return false;
  }
}
