/**
 * Shared by the forwarding tests: a server with its Wialon IPS listener (trackers send through it),
 * a tracker that sends fixes over real TCP and waits for each answer, and waiting helpers.
 */
import { connect, type Socket } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Quick reconnects and polls: tests wait for seconds, not minutes. */
export const FAST = { FSM_FORWARD_BACKOFF_MIN_MS: '50', FSM_FORWARD_BACKOFF_MAX_MS: '400', FSM_FORWARD_POLL_MS: '20', FSM_FORWARD_TIMEOUT_MS: '3000', FSM_GATEWAY_HOST: '127.0.0.1' };

export async function serverWithWialon(env: Record<string, string> = {}): Promise<TestServer & { wialonPort: number }> {
  const s = await startTestServer({ ...FAST, FSM_WIALON_PORT: '0', ...env });
  return Object.assign(s, { wialonPort: s.running.gateway.ports.wialon.tcp! });
}

export async function waitFor<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface InFix {
  time: number;
  lat: number;
  lng: number;
  speed?: number;
  params?: string;
}

const p2 = (n: number) => String(n).padStart(2, '0');
/** A Wialon IPS 1.1 `#D#` line as a tracker sends it (independent of the forwarding encoder). */
export function trackerLine(f: InFix): string {
  const d = new Date(f.time);
  const ddmm = (deg: number, w: number) => {
    const a = Math.abs(deg);
    const whole = Math.floor(a);
    return `${String(whole).padStart(w, '0')}${((a - whole) * 60).toFixed(6).padStart(9, '0')}`;
  };
  return `#D#${p2(d.getUTCDate())}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCFullYear() % 100)};${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())};${ddmm(f.lat, 2)};${f.lat < 0 ? 'S' : 'N'};${ddmm(f.lng, 3)};${f.lng < 0 ? 'W' : 'E'};${f.speed ?? 0};90;120;9;0.9;3;0;NA;NA;${f.params ?? 'NA'}\r\n`;
}

/** A tracker on our server's Wialon IPS listener: login, then each fix answered before it counts. */
export class Tracker {
  private buf = '';
  private waiting: Array<(line: string) => void> = [];
  private constructor(private socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.buf += d;
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i).replace(/\r$/, '');
        this.buf = this.buf.slice(i + 1);
        this.waiting.shift()?.(line);
      }
    });
    socket.on('error', () => undefined);
  }
  static async login(port: number, imei: string): Promise<Tracker> {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise((r, j) => socket.once('connect', r).once('error', j));
    const t = new Tracker(socket);
    const a = await t.ask(`#L#${imei};NA\r\n`);
    if (a !== '#AL#1') throw new Error(`login: ${a}`);
    return t;
  }
  ask(line: string): Promise<string> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.socket.write(line);
    });
  }
  /** Sends the fixes (pipelined); resolves when every one was acknowledged. */
  async send(fixes: InFix[]): Promise<void> {
    const answers = await Promise.all(fixes.map((f) => this.ask(trackerLine(f))));
    const bad = answers.filter((a) => a !== '#AD#1');
    if (bad.length) throw new Error(`not acknowledged: ${bad.join(', ')}`);
  }
  close() {
    this.socket.destroy();
  }
}

/** Fixes one second apart from `start`, along a line. */
export function track(start: number, count: number, from = 0): InFix[] {
  return Array.from({ length: count }, (_, i) => ({ time: start + (from + i) * 1000, lat: 55.75 + (from + i) * 1e-4, lng: 37.61 + (from + i) * 1e-4, speed: (from + i) % 90 }));
}
