/**
 * Chat with the operator (docs/field-app.md, "Chat") and the working status ("The employee's own
 * status"). Messages written offline wait in the outbox (with their idempotency key) and show as
 * waiting; the conversation is read with app/chat/list every 10 s while the screen is open.
 */
import { useCallback, useEffect, useState } from 'react';
import { ApiError, call, NetworkError, type Device } from './api.ts';
import { enqueue, newKey, type Item, type StatusJob } from './outbox.ts';

interface Message {
  id: number;
  submit_time: string;
  text: string;
  type: string;
}

export function Chat({ device, outbox, onQueued }: { device: Device; outbox: Item[]; onQueued: () => void }) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setMessages((await call<{ list: Message[] }>('app/chat/list', {}, device.token)).list);
      setError(null);
    } catch (e) {
      setError(e instanceof NetworkError ? 'Offline: showing the messages read before' : e instanceof ApiError && e.code === 236 ? 'Chat is not part of this plan' : String(e));
    }
  }, [device.token]);
  const waiting = outbox.filter((i) => i.kind === 'chat' && !i.error).length;
  useEffect(() => {
    void load();
    const t = setInterval(load, 10_000);
    return () => clearInterval(t);
  }, [load, waiting]);
  return (
    <main className="chat">
      {error ? <p className="hint">{error}</p> : null}
      <ul>
        {messages.map((m) => (
          <li key={m.id} className={m.type === 'INCOMING' ? 'mine' : 'theirs'}>
            {m.text}
            <small>{m.submit_time.slice(11, 16)}</small>
          </li>
        ))}
        {outbox.flatMap((i) =>
          i.kind === 'chat' ? [
            <li key={`o${i.id}`} className="mine waiting-msg">
              {i.text}
              <small>{i.error ? `not sent: ${i.error}` : 'waiting'}</small>
            </li>,
          ] : [],
        )}
      </ul>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!text.trim()) return;
          await enqueue({ kind: 'chat', key: newKey(), text: text.trim(), time: Date.now() });
          setText('');
          onQueued();
        }}
      >
        <input aria-label="Message" value={text} onChange={(e) => setText(e.target.value)} placeholder="Message to the operator" maxLength={20000} />
        <button className="primary">Send</button>
      </form>
    </main>
  );
}

interface StatusInfo {
  listing: { label: string; employee_controlled: boolean; statuses: { id: number; label: string; color: string }[] } | null;
  current_status: { id: number; label: string } | null;
}

const STATUS_KEY = 'fsm.app.status';
export const clearStatus = () => localStorage.removeItem(STATUS_KEY);

function cachedStatus(): StatusInfo | null {
  try {
    return JSON.parse(localStorage.getItem(STATUS_KEY) ?? 'null');
  } catch {
    return null;
  }
}

/**
 * The working status: the listing as last read (kept for offline starts); a status tapped goes to
 * the outbox with its idempotency key and shows as chosen, waiting to be sent, until the server has it.
 */
export function WorkStatus({ device, outbox, onQueued }: { device: Device; outbox: Item[]; onQueued: () => void }) {
  const [info, setInfo] = useState<StatusInfo | null>(cachedStatus);
  const [error, setError] = useState<string | null>(null);
  const [offline, setOffline] = useState(false);
  const waiting = outbox.filter((i): i is Item & StatusJob => i.kind === 'status' && !i.error);
  const pending = waiting[waiting.length - 1];
  const load = useCallback(async () => {
    try {
      const read = await call<StatusInfo>('app/status/read', {}, device.token);
      localStorage.setItem(STATUS_KEY, JSON.stringify(read));
      setInfo(read);
      setError(null);
      setOffline(false);
    } catch (e) {
      if (e instanceof NetworkError) setOffline(true);
      else setError(e instanceof ApiError && e.code === 236 ? 'Working statuses are not part of this plan' : String(e));
    }
  }, [device.token]);
  // Read again when the screen opens and whenever a waiting change has been sent.
  useEffect(() => void load(), [load, waiting.length]);
  if (!info) return <main className="status-screen">{error ? <p className="hint">{error}</p> : <p className="hint">{offline ? 'Offline: the statuses show once the connection returns' : 'Loading…'}</p>}</main>;
  if (!info.listing) return <main className="status-screen"><p className="hint">No working statuses are set up for this phone.</p></main>;
  const current = pending ? pending.statusId : info.current_status?.id;
  return (
    <main className="status-screen">
      <h2>{info.listing.label}</h2>
      {error ? <p className="error">{error}</p> : null}
      {pending ? <p className="waiting">{pending.label}: saved on this phone, sent when the connection returns.</p> : offline ? <p className="hint">Offline: a status you choose is sent when the connection returns.</p> : null}
      {info.listing.statuses.map((st) => (
        <button
          key={st.id}
          className={current === st.id ? (pending ? 'current pending' : 'current') : ''}
          style={{ borderLeftColor: `#${st.color}` }}
          disabled={!info.listing!.employee_controlled || current === st.id}
          onClick={async () => {
            await enqueue({ kind: 'status', key: newKey(), statusId: st.id, label: st.label });
            onQueued();
          }}
        >
          {st.label}
        </button>
      ))}
      {!info.listing.employee_controlled ? <p className="hint">Your supervisor sets your status.</p> : null}
    </main>
  );
}
