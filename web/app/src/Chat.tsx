/**
 * Chat with the operator (docs/field-app.md, "Chat") and the working status ("The employee's own
 * status"). Messages written offline wait in the outbox (with their idempotency key) and show as
 * waiting; the conversation is read with app/chat/list every 10 s while the screen is open.
 */
import { useCallback, useEffect, useState } from 'react';
import { ApiError, call, NetworkError, type Device } from './api.ts';
import { enqueue, newKey, type Item } from './outbox.ts';

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

export function WorkStatus({ device }: { device: Device }) {
  const [info, setInfo] = useState<StatusInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setInfo(await call<StatusInfo>('app/status/read', {}, device.token));
      setError(null);
    } catch (e) {
      setError(e instanceof NetworkError ? 'Offline: the status can be changed when the connection returns' : e instanceof ApiError && e.code === 236 ? 'Working statuses are not part of this plan' : String(e));
    }
  }, [device.token]);
  useEffect(() => void load(), [load]);
  if (!info) return <main className="status-screen">{error ? <p className="hint">{error}</p> : <p className="hint">Loading…</p>}</main>;
  if (!info.listing) return <main className="status-screen"><p className="hint">No working statuses are set up for this phone.</p></main>;
  return (
    <main className="status-screen">
      <h2>{info.listing.label}</h2>
      {error ? <p className="error">{error}</p> : null}
      {info.listing.statuses.map((st) => (
        <button
          key={st.id}
          className={info.current_status?.id === st.id ? 'current' : ''}
          style={{ borderLeftColor: `#${st.color}` }}
          disabled={!info.listing!.employee_controlled || info.current_status?.id === st.id}
          onClick={async () => {
            try {
              await call('app/status/assign', { new_status_id: st.id }, device.token);
              await load();
            } catch (e) {
              setError(e instanceof NetworkError ? 'Offline: try again when the connection returns' : String(e));
            }
          }}
        >
          {st.label}
        </button>
      ))}
      {!info.listing.employee_controlled ? <p className="hint">Your supervisor sets your status.</p> : null}
    </main>
  );
}
