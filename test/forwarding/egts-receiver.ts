/**
 * An EGTS receiver written for the tests, independently of the forwarding encoder: a real TCP server
 * that checks both checksums bit by bit, parses the transport header, service records and the
 * TELEDATA subrecords it knows, answers each packet with PT_RESPONSE (a RECORD_RESPONSE per record)
 * and an identity (DISPATCHER_IDENTITY or TERM_IDENTITY) with RESULT_CODE, and records what it took.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface EgtsFix {
  oid: number;
  /** ms UTC, from POS_DATA */
  time: number;
  lat: number;
  lng: number;
  valid: boolean;
  speed: number;
  course: number;
  alt: number | null;
  din: number;
  odometer: number;
  sats?: number;
  hdop?: number;
  dout?: number;
  ins: Record<number, boolean>;
  adc: Record<number, number>;
  counters: Record<number, number>;
  /** liquid level sensors: raw value and unit code */
  fuel: Record<number, { value: number; unit: number }>;
}

function crc8(b: Buffer): number {
  let crc = 0xff;
  for (const x of b) {
    crc ^= x;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x31) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}
function crc16(b: Buffer): number {
  let crc = 0xffff;
  for (const x of b) {
    crc ^= x << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
const T2010 = Date.UTC(2010, 0, 1);

function frame(type: number, pid: number, body: Buffer): Buffer {
  const h = Buffer.from([1, 0, 0, 11, 0, body.length & 0xff, body.length >> 8, pid & 0xff, pid >> 8, type, 0]);
  h[10] = crc8(h.subarray(0, 10));
  const c = Buffer.alloc(2);
  c.writeUInt16LE(crc16(body));
  return Buffer.concat([h, body, c]);
}
/** A record without object id or time: RL, RN, RFL 0, SST, RST, one subrecord. */
function rec(rn: number, service: number, srt: number, data: Buffer): Buffer {
  const h = Buffer.alloc(10);
  h.writeUInt16LE(data.length + 3, 0);
  h.writeUInt16LE(rn, 2);
  h[5] = service;
  h[6] = service;
  h[7] = srt;
  h.writeUInt16LE(data.length, 8);
  return Buffer.concat([h, data]);
}

export class EgtsReceiver {
  readonly fixes: EgtsFix[] = [];
  /** Ids of the identities the sender authenticated with (DISPATCHER_IDENTITY's DID, TERM_IDENTITY's TID). */
  readonly logins: number[] = [];
  /** Which subrecord each login was. */
  readonly loginKinds: Array<'dispatcher' | 'terminal'> = [];
  readonly crcErrors: string[] = [];
  /** Packet ids of ours the sender confirmed with its PT_RESPONSE. */
  readonly confirmedBySender: number[] = [];
  readonly resultCodePids: number[] = [];
  /** RESULT_CODE answered to an identity (0 = authorised). */
  authCode = 0;
  /** Status of each TELEDATA record (0 = taken); a record not taken is not kept. */
  recordStatus: (oid: number) => number = () => 0;
  /** When false, PT_RESPONSE carries no RECORD_RESPONSE (records stay unconfirmed). */
  confirmRecords = true;
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  private pid = 500;
  private rn = 900;
  port = 0;

  async start(port = 0): Promise<number> {
    this.server = createServer((s) => this.connection(s));
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }
  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }
  of(oid: number): EgtsFix[] {
    return this.fixes.filter((f) => f.oid === oid);
  }

  private connection(socket: Socket) {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 11) {
        const hl = buf[3];
        const fdl = buf.readUInt16LE(5);
        const total = hl + fdl + (fdl ? 2 : 0);
        if (buf.length < total) break;
        const p = buf.subarray(0, total);
        buf = buf.subarray(total);
        if (crc8(p.subarray(0, hl - 1)) !== p[hl - 1] || (fdl && crc16(p.subarray(hl, hl + fdl)) !== p.readUInt16LE(hl + fdl))) {
          this.crcErrors.push(p.toString('hex'));
          continue;
        }
        this.packet(socket, p.readUInt16LE(7), p[9], p.subarray(hl, hl + fdl));
      }
    });
  }

  private packet(socket: Socket, pid: number, type: number, body: Buffer) {
    if (type === 0) {
      this.confirmedBySender.push(body.readUInt16LE(0));
      return;
    }
    const responses: Buffer[] = [];
    let authorised = false;
    let at = 0;
    while (at < body.length) {
      const rl = body.readUInt16LE(at);
      const rn = body.readUInt16LE(at + 2);
      const rfl = body[at + 4];
      let p = at + 5;
      let oid = 0;
      if (rfl & 1) (oid = body.readUInt32LE(p)), (p += 4);
      if (rfl & 2) p += 4;
      if (rfl & 4) p += 4;
      const service = body[p];
      p += 2;
      const end = p + rl;
      let status = 0;
      const fix: Partial<EgtsFix> = { oid, ins: {}, adc: {}, counters: {}, fuel: {} };
      while (p < end) {
        const srt = body[p];
        const srl = body.readUInt16LE(p + 1);
        const d = body.subarray(p + 3, p + 3 + srl);
        p += 3 + srl;
        if (service === 1 && (srt === 1 || srt === 5)) {
          // TERM_IDENTITY: TID first; DISPATCHER_IDENTITY: dispatcher type, then DID
          this.logins.push(srt === 5 ? d.readUInt32LE(1) : d.readUInt32LE(0));
          this.loginKinds.push(srt === 5 ? 'dispatcher' : 'terminal');
          authorised = true;
        } else if (service === 2) this.subrecord(fix, srt, d);
      }
      if (service === 2) {
        status = this.recordStatus(oid);
        if (status === 0 && fix.time !== undefined) this.fixes.push(fix as EgtsFix);
      }
      const rr = Buffer.alloc(3);
      rr.writeUInt16LE(rn);
      rr[2] = status;
      responses.push(rec(this.rn++ & 0xffff, service, 0, rr));
      at = end;
    }
    const head = Buffer.from([pid & 0xff, pid >> 8, 0]);
    socket.write(frame(0, this.pid++ & 0xffff, Buffer.concat([head, ...(this.confirmRecords ? responses : [])])));
    if (authorised) {
      this.resultCodePids.push(this.pid);
      socket.write(frame(1, this.pid++ & 0xffff, rec(this.rn++ & 0xffff, 1, 9, Buffer.from([this.authCode]))));
    }
  }

  private subrecord(f: Partial<EgtsFix>, srt: number, d: Buffer) {
    if (srt === 16) {
      const flg = d[12];
      const spd = d.readUInt16LE(13);
      f.time = T2010 + d.readUInt32LE(0) * 1000;
      f.lat = ((d.readUInt32LE(4) * 90) / 0xffffffff) * (flg & 0x20 ? -1 : 1);
      f.lng = ((d.readUInt32LE(8) * 180) / 0xffffffff) * (flg & 0x40 ? -1 : 1);
      f.valid = (flg & 1) === 1;
      f.speed = (spd & 0x3fff) / 10;
      f.course = d[15] | (spd & 0x8000 ? 0x100 : 0);
      f.odometer = d.readUIntLE(16, 3);
      f.din = d[19];
      f.alt = flg & 0x80 ? d.readUIntLE(21, 3) * (spd & 0x4000 ? -1 : 1) : null;
    } else if (srt === 17) {
      let p = 1;
      if (d[0] & 1) p += 2;
      if (d[0] & 2) (f.hdop = d.readUInt16LE(p) / 100), (p += 2);
      if (d[0] & 4) p += 2;
      if (d[0] & 8) f.sats = d[p];
    } else if (srt === 18) {
      const dioe = d[0];
      f.dout = d[1];
      let p = 3;
      for (let g = 0; g < 8; g++) if (dioe & (1 << g)) {
        for (let b = 0; b < 8; b++) f.ins![9 + g * 8 + b] = (d[p] & (1 << b)) !== 0;
        p++;
      }
      for (let i = 0; i < 8; i++) if (d[2] & (1 << i)) (f.adc![i + 1] = d.readUIntLE(p, 3)), (p += 3);
    } else if (srt === 19) {
      let p = 1;
      for (let i = 0; i < 8; i++) if (d[0] & (1 << i)) (f.counters![i + 1] = d.readUIntLE(p, 3)), (p += 3);
    } else if (srt === 24) f.adc![d[0]] = d.readUIntLE(1, 3);
    else if (srt === 25) f.counters![d[0]] = d.readUIntLE(1, 3);
    else if (srt === 27) f.fuel![(d[0] & 7) + 1] = { value: d.readUInt32LE(3), unit: (d[0] >> 4) & 3 };
  }
}
