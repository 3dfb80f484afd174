/** A server-sent events reader for tests: collects the events and comments of one stream. */
export interface SseEvent {
  event?: string;
  id?: string;
  data?: any;
  comment?: string;
  retry?: number;
}

export interface SseStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** The parsed JSON body when the answer was not a stream (an error). */
  body?: any;
  /** The server ended the stream. */
  readonly ended: boolean;
  /** Waits until an event matching `pred` arrived (after index `from`), at most `ms`. */
  next(pred: (e: SseEvent) => boolean, from?: number, ms?: number): Promise<SseEvent>;
  /** Waits until the server ends the stream. */
  closed(ms?: number): Promise<void>;
  close(): void;
}

function parse(block: string): SseEvent {
  const e: SseEvent = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) e.comment = line.slice(1).trim();
    else {
      const i = line.indexOf(':');
      const k = i < 0 ? line : line.slice(0, i);
      const v = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (k === 'data') e.data = JSON.parse(v);
      else if (k === 'event') e.event = v;
      else if (k === 'id') e.id = v;
      else if (k === 'retry') e.retry = Number(v);
    }
  }
  return e;
}

export async function until(test: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  const events: SseEvent[] = [];
  let ended = false;
  if (res.body && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            events.push(parse(buf.slice(0, i)));
            buf = buf.slice(i + 2);
          }
        }
      } catch {
        /* aborted */
      }
      ended = true;
    })();
  } else ended = true;
  const body = ended ? JSON.parse(await res.text()) : undefined;
  return {
    status: res.status,
    headers: res.headers,
    events,
    body,
    get ended() {
      return ended;
    },
    async next(pred, from = 0, ms = 5000) {
      let found: SseEvent | undefined;
      await until(() => !!(found = events.slice(from).find(pred)), ms, 'an event');
      return found!;
    },
    async closed(ms = 5000) {
      await until(() => ended, ms, 'the stream to end');
    },
    close: () => ac.abort(),
  };
}
