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

/**
 * Every socket reads into this one buffer (the thread runs one read callback at a time, and the
 * answers are copied out of it at once): no buffer and no stream events per read, which a batch of a
 * tracker per connection made many of.
 */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

/** One send: the answers it still waits for, and those that came. */
interface Waiter {
  left: number;
  got: Buffer[];
  resolve: (answers: Buffer[]) => void;
  reject: (e: Error) => void;
}

export class AckSocket {
  private socket!: Socket;
  /** The start of an answer that is not complete yet (a copy). */
  private rest: Buffer | null = null;
  private waiting: Waiter[] = [];
  /** The answer deadline: refreshed on every send and answer, ignored when it fires with nothing waiting. */
  private timer: NodeJS.Timeout | undefined;
  private broken: Error | null = null;
  private corked = false;

  private constructor(
    private framer: AnswerFramer,
    private timeoutMs: number,
  ) {}

  static open(host: string, port: number, framer: AnswerFramer, timeoutMs: number): Promise<AckSocket> {
    const s = new AckSocket(framer, timeoutMs);
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, onread: { buffer: READ_BUFFER, callback: (n: number) => s.onData(READ_BUFFER.subarray(0, n)) } });
      s.socket = socket;
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
        socket.setNoDelay(true);
        socket.on('error', (e) => s.fail(e));
        socket.on('close', () => s.fail(new Error('connection closed by the receiver')));
        resolve(s);
      });
    });
  }

  get closed(): boolean {
    return this.broken !== null;
  }

  /** Writes a packet and resolves with the receiver's answer to it; the packets of one tick leave in one write. */
  request(packet: Buffer | string): Promise<Buffer> {
    if (!this.broken && !this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    return this.send(packet, 1).then((answers) => answers[0]);
  }

  /** Writes packets given as one piece (one write) and resolves with the receiver's `answers` answers to them, in order. */
  send(packets: Buffer | string, answers: number): Promise<Buffer[]> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      this.waiting.push({ left: answers, got: [], resolve, reject });
      this.socket.write(packets);
      this.arm();
    });
  }

  close(): void {
    this.fail(new Error('session closed'));
  }

  private arm() {
    if (!this.waiting.length) return;
    if (this.timer) this.timer.refresh();
    else {
      this.timer = setTimeout(() => this.waiting.length && this.fail(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      // the open socket keeps the thread alive, not its deadline
      this.timer.unref();
    }
  }

  /** Bytes read into the shared buffer: whole answers are copied out, the start of the next one kept. */
  private onData(d: Buffer): boolean {
    let buf = this.rest ? Buffer.concat([this.rest, d]) : d;
    this.rest = null;
    try {
      for (let f = this.framer(buf); f; f = this.framer(buf)) {
        buf = buf.subarray(f.consumed);
        const w = this.waiting[0];
        if (!w) throw new Error('an answer nothing was sent for');
        w.got.push(Buffer.from(f.frame));
        if (--w.left === 0) {
          this.waiting.shift();
          w.resolve(w.got);
        }
        this.arm();
      }
      if (buf.length) this.rest = Buffer.from(buf);
    } catch (e) {
      this.fail(e as Error);
    }
    return true;
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
