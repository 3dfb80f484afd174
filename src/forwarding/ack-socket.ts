/**
 * A TCP connection to a receiver that answers every packet it is sent, in order: `request` writes a
 * packet and resolves with the receiver's answer to it. Packets may be pipelined (many written
 * before the first answer). No answer within the timeout, a closed socket or bytes the answer
 * framer refuses break the connection: every waiting request rejects and nothing counts as
 * acknowledged.
 */
import { connect, type Socket } from 'node:net';

/** Cuts the first whole answer out of the received bytes, or null when more are needed. */
export type AnswerFramer = (buf: Buffer) => { frame: Buffer; consumed: number } | null;

export class AckSocket {
  private buf: Buffer = Buffer.alloc(0);
  private waiting: Array<{ resolve: (b: Buffer) => void; reject: (e: Error) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private broken: Error | null = null;
  private corked = false;

  private constructor(
    private socket: Socket,
    private framer: AnswerFramer,
    private timeoutMs: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d) => this.onData(d));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error('connection closed by the receiver')));
  }

  static open(host: string, port: number, framer: AnswerFramer, timeoutMs: number): Promise<AckSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect to ${host}:${port} timed out`));
      }, timeoutMs);
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new AckSocket(socket, framer, timeoutMs));
      });
    });
  }

  get closed(): boolean {
    return this.broken !== null;
  }

  request(packet: Buffer | string): Promise<Buffer> {
    if (this.broken) return Promise.reject(this.broken);
    // the packets written in one tick leave in one write (a batch is many small packets)
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.socket.write(packet);
      this.arm();
    });
  }

  close(): void {
    this.fail(new Error('session closed'));
  }

  private arm() {
    clearTimeout(this.timer);
    if (this.waiting.length) this.timer = setTimeout(() => this.fail(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
  }

  private onData(d: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    try {
      for (let f = this.framer(this.buf); f; f = this.framer(this.buf)) {
        this.buf = this.buf.subarray(f.consumed);
        const w = this.waiting.shift();
        if (!w) throw new Error('an answer nothing was sent for');
        w.resolve(f.frame);
        this.arm();
      }
    } catch (e) {
      this.fail(e as Error);
    }
  }

  private fail(e: Error) {
    if (!this.broken) this.broken = e;
    clearTimeout(this.timer);
    this.socket.destroy();
    for (const w of this.waiting.splice(0)) w.reject(this.broken);
  }
}

/** Answers that are lines ending in LF (CR LF tolerated). */
export const lineFramer: AnswerFramer = (buf) => {
  const lf = buf.indexOf(0x0a);
  if (lf < 0) {
    if (buf.length > 4096) throw new Error('answer line too long');
    return null;
  }
  const end = lf > 0 && buf[lf - 1] === 0x0d ? lf - 1 : lf;
  return { frame: buf.subarray(0, end), consumed: lf + 1 };
};
