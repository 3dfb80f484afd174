/**
 * EGTS as a sender (docs/retranslators.md): one TCP connection per retranslator. It authenticates
 * as a dispatcher (EGTS_SR_DISPATCHER_IDENTITY with the retranslator's login as the dispatcher id)
 * and waits for the receiver's EGTS_SR_RESULT_CODE; then every fix goes as one TELEDATA service
 * record with the tracker's object id (a 32-bit number: the numeric fake id, or a numeric device id),
 * up to 100 records per packet, packets pipelined. A batch is acknowledged only when every packet
 * got its PT_RESPONSE and every record its RECORD_RESPONSE; packets the receiver sends (the result
 * code) are confirmed as the standard asks.
 */
import { connect, type Socket } from 'node:net';
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';
import { PT, SERVICE, SR, dispatcherIdentity, egtsTime, fixSubrecords, nextPacket, packet, readPacket, recordResponse, serviceRecord, type ReceivedPacket } from './egts-wire.ts';

/** Most records per packet, and most bytes of a packet's service frame. */
const PACKET_RECORDS = 100;
const PACKET_BYTES = 32 * 1024;
const OK = 0;
/** EGTS_PC_DBL_PROC: the receiver already has the record (a resend). */
const ALREADY = 135;
/**
 * Statuses that say the receiver could not take the record now (in progress, checksum or decryption
 * trouble, not authorised, I/O error, no resources, module fault): the batch is sent again. Any other
 * status than OK means the receiver judged the record and refused it; sending it again would not
 * change that, so it counts as acknowledged (as a refused Wialon IPS message does).
 */
const RETRY = new Set([1, 129, 137, 138, 151, 155, 156, 157]);

/** The EGTS object id of a forwarded identity: a 32-bit unsigned number. */
export const OBJECT_ID_PATTERN = '^(?:0|[1-9][0-9]{0,8}|[1-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}|42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]|429496729[0-5])$';

interface Pending {
  /** Record numbers not yet confirmed. */
  records: Set<number>;
  responded: boolean;
  login: boolean;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class EgtsSession implements Session {
  private buf: Buffer = Buffer.alloc(0);
  private pid = 0;
  private rn = 0;
  private packets = new Map<number, Pending>();
  private records = new Map<number, Pending>();
  private resultCode: { resolve: (code: number) => void; reject: (e: Error) => void } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private broken: Error | null = null;
  /** Records the receiver judged and refused (a status other than OK, "already processed" or a retry). */
  refused = 0;

  private constructor(
    private socket: Socket,
    private timeoutMs: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d) => this.onData(d));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('connection closed by the receiver')));
  }

  static async open(target: Target, opts: OpenOptions): Promise<EgtsSession> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: target.address, port: target.port });
      const t = setTimeout(() => (s.destroy(), reject(new Error(`connect to ${target.address}:${target.port} timed out`))), opts.timeoutMs);
      s.once('error', (e) => (clearTimeout(t), reject(e)));
      s.once('connect', () => (clearTimeout(t), s.removeAllListeners('error'), resolve(s)));
    });
    const session = new EgtsSession(socket, opts.timeoutMs);
    try {
      await session.login(Number(target.login));
    } catch (e) {
      session.close();
      throw e;
    }
    return session;
  }

  /** DISPATCHER_IDENTITY with the dispatcher id; the record confirmed and RESULT_CODE 0 open the session. */
  private async login(dispatcherId: number): Promise<void> {
    const code = new Promise<number>((resolve, reject) => (this.resultCode = { resolve, reject }));
    const rn = this.nextRn();
    await Promise.all([this.write([rn], serviceRecord(rn, SERVICE.auth, dispatcherIdentity(dispatcherId)), true), code.then((c) => { if (c !== OK) throw new Error(`login refused (EGTS result code ${c})`); })]);
  }

  send(fixes: ForwardFix[]): Promise<void> {
    const sent: Array<Promise<void>> = [];
    let records: Buffer[] = [];
    let numbers: number[] = [];
    let bytes = 0;
    const flush = () => {
      if (records.length) sent.push(this.write(numbers, Buffer.concat(records), false));
      records = [];
      numbers = [];
      bytes = 0;
    };
    for (const f of fixes) {
      const rn = this.nextRn();
      const rec = serviceRecord(rn, SERVICE.teledata, fixSubrecords(f), Number(f.deviceId), egtsTime(f.time));
      if (records.length >= PACKET_RECORDS || bytes + rec.length > PACKET_BYTES) flush();
      records.push(rec);
      numbers.push(rn);
      bytes += rec.length;
    }
    flush();
    return Promise.all(sent).then(() => undefined);
  }

  close(): void {
    this.fail(new Error('session closed'));
  }

  private nextPid(): number {
    const pid = this.pid;
    this.pid = (pid + 1) & 0xffff;
    return pid;
  }

  private nextRn(): number {
    const rn = this.rn;
    this.rn = (rn + 1) & 0xffff;
    return rn;
  }

  /** Writes an APPDATA packet of the records; resolves when the packet and every record are confirmed. */
  private write(numbers: number[], sfrd: Buffer, login: boolean): Promise<void> {
    if (this.broken) return Promise.reject(this.broken);
    const pid = this.nextPid();
    return new Promise((resolve, reject) => {
      const p: Pending = { records: new Set(numbers), responded: false, login, resolve, reject };
      this.packets.set(pid, p);
      for (const n of numbers) this.records.set(n, p);
      this.socket.write(packet(PT.appData, pid, sfrd));
      this.arm();
    });
  }

  private arm() {
    clearTimeout(this.timer);
    if (this.packets.size || this.resultCode) this.timer = setTimeout(() => this.fail(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
  }

  private onData(d: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    try {
      for (let n = nextPacket(this.buf); n; n = nextPacket(this.buf)) {
        this.buf = this.buf.subarray(n.consumed);
        this.onPacket(readPacket(n.packet));
      }
      this.arm();
    } catch (e) {
      this.fail(e as Error);
    }
  }

  private onPacket(pk: ReceivedPacket) {
    if (pk.type === PT.response) {
      const p = this.packets.get(pk.responseTo!);
      if (p && pk.result !== OK) throw new Error(p.login ? `login refused (EGTS packet result ${pk.result})` : `receiver refused a packet (EGTS result ${pk.result})`);
      if (p) p.responded = true;
    }
    for (const rec of pk.records) {
      for (const sub of rec.subrecords) {
        if (sub.type === SR.recordResponse && sub.data.length >= 3) this.confirmed(sub.data.readUInt16LE(0), sub.data[2]);
        else if (sub.type === SR.resultCode && rec.service === SERVICE.auth && sub.data.length >= 1 && this.resultCode) {
          this.resultCode.resolve(sub.data[0]);
          this.resultCode = undefined;
        }
      }
    }
    // the standard asks every APPDATA packet to be confirmed, record by record
    if (pk.type === PT.appData) {
      const head = Buffer.alloc(3);
      head.writeUInt16LE(pk.pid, 0);
      const body = pk.records.map((r) => serviceRecord(this.nextRn(), r.service, recordResponse(r.rn, OK)));
      this.socket.write(packet(PT.response, this.nextPid(), Buffer.concat([head, ...body])));
    }
    for (const [pid, p] of this.packets) {
      if (!p.responded || p.records.size) continue;
      this.packets.delete(pid);
      p.resolve();
    }
  }

  private confirmed(rn: number, status: number) {
    const p = this.records.get(rn);
    if (!p) return;
    if (status !== OK && (p.login || RETRY.has(status))) throw new Error(p.login ? `login refused (EGTS record status ${status})` : `receiver could not take a record now (EGTS status ${status})`);
    if (status !== OK && status !== ALREADY) this.refused++;
    this.records.delete(rn);
    p.records.delete(rn);
  }

  private fail(e: Error) {
    if (!this.broken) this.broken = e;
    clearTimeout(this.timer);
    this.socket.destroy();
    this.resultCode?.reject(this.broken);
    this.resultCode = undefined;
    const waiting = [...new Set(this.packets.values())];
    this.packets.clear();
    this.records.clear();
    for (const p of waiting) p.reject(this.broken);
  }
}

export const egts: ForwardProtocol = {
  id: 8,
  name: 'EGTS',
  hasLogin: true,
  hasPassword: false,
  requiredLogin: true,
  requiredPassword: false,
  loginPattern: OBJECT_ID_PATTERN,
  fakeDeviceIdPattern: OBJECT_ID_PATTERN,
  defaultPort: 5162,
  sessions: 'shared',
  ordered: true,
  batch: 1000,
  open: (target: Target, _deviceId: string | undefined, opts: OpenOptions) => EgtsSession.open(target, opts),
};
