/**
 * The field app's screens (docs/field-app.md, "The app"): activation, the task list, a task with its
 * place and form, and what waits in the outbox. Everything the employee does goes to the outbox
 * first (outbox.ts) and is sent from there.
 */
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { ApiError, call, loadDevice, NetworkError, saveDevice, type Device } from './api.ts';
import { clearOutbox, enqueue, flush, flushSoon, items, newKey, onOutboxChange, type Item } from './outbox.ts';
import { usePositions } from './positions.ts';
import { clearTasks, useTasks, type Task } from './tasks.ts';
import { FormView } from './FormView.tsx';
import { Chat, clearStatus, WorkStatus } from './Chat.tsx';

/** MapLibre only when a task is opened: the task list stays light. */
const TaskMap = lazy(() => import('./TaskMap.tsx'));

export function App() {
  const [device, setDevice] = useState<Device | null>(loadDevice);
  const signOut = useCallback(async (why?: string) => {
    saveDevice(null);
    clearTasks();
    clearStatus();
    await clearOutbox();
    if (why) sessionStorage.setItem('fsm.app.notice', why);
    setDevice(null);
  }, []);
  if (!device) return <Activate onActivated={(d) => (saveDevice(d), setDevice(d))} />;
  return <Main device={device} signOut={signOut} />;
}

function Activate({ onActivated }: { onActivated: (d: Device) => void }) {
  const fromLink = new URLSearchParams(location.search).get('code') ?? '';
  const [code, setCode] = useState(fromLink);
  const [error, setError] = useState<string | null>(sessionStorage.getItem('fsm.app.notice'));
  const [busy, setBusy] = useState(false);
  async function activate() {
    setBusy(true);
    setError(null);
    try {
      const a = await call<{ token: string; tracker_id: number; label: string }>('app/activate', { code, label: navigator.userAgent.slice(0, 200) });
      const self = await call<{ time_zone: string }>('app/read', {}, a.token);
      sessionStorage.removeItem('fsm.app.notice');
      history.replaceState(null, '', '/app/');
      onActivated({ token: a.token, trackerId: a.tracker_id, label: a.label, timeZone: self.time_zone });
    } catch (e) {
      setError(e instanceof NetworkError ? 'No connection to the server' : e instanceof ApiError && e.code === 102 ? 'This code is wrong, used or expired. Ask your operator for a new one.' : e instanceof ApiError && e.code === 105 ? 'Too many wrong codes: wait a few minutes.' : String(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="activate">
      <img src="/app/icon.svg" alt="" width={72} height={72} />
      <h1>Activate this phone</h1>
      <p>Type the code your operator gave you, or open the link of its QR code.</p>
      <form onSubmit={(e) => (e.preventDefault(), void activate())}>
        <label htmlFor="code">Activation code</label>
        <input id="code" autoComplete="off" autoCapitalize="characters" placeholder="K7QM-4XRT" value={code} onChange={(e) => setCode(e.target.value)} />
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : null}
        <button className="primary" disabled={busy || code.replace(/[\s-]/g, '').length < 8}>
          Activate
        </button>
      </form>
    </main>
  );
}

function useOnline(): boolean {
  const [online, setOnline] = useState(navigator.onLine);
  useEffect(() => {
    const on = () => setOnline(true);
    const off = () => setOnline(false);
    addEventListener('online', on);
    addEventListener('offline', off);
    return () => (removeEventListener('online', on), removeEventListener('offline', off));
  }, []);
  return online;
}

function Main({ device, signOut }: { device: Device; signOut: (why?: string) => Promise<void> }) {
  const revoked = useCallback(() => void signOut('This phone was signed out by your operator. Ask for a new code.'), [signOut]);
  const send = useCallback(() => void flush(device, revoked), [device, revoked]);
  const sendFix = useCallback(() => void flushSoon(device, revoked), [device, revoked]);
  const online = useOnline();
  const { tasks, live } = useTasks(device, revoked);
  const { last, error: gpsError } = usePositions(sendFix);
  const [outbox, setOutbox] = useState<Item[]>([]);
  const [open, setOpen] = useState<number | null>(null);
  const [tab, setTab] = useState<'tasks' | 'chat' | 'status'>('tasks');
  useEffect(() => {
    const refresh = () => void items().then(setOutbox);
    refresh();
    const off = onOutboxChange(refresh);
    // Sent again when the connection returns, and every 15 s besides (a lost answer, a server restart).
    addEventListener('online', send);
    const timer = setInterval(send, 15_000);
    send();
    return () => (off(), removeEventListener('online', send), clearInterval(timer));
  }, [send]);
  const task = tab === 'tasks' ? tasks.find((t) => t.id === open) : undefined;
  const waiting = outbox.filter((i) => !i.error);
  return (
    <div className="main">
      <header>
        {task ? (
          <button className="back" onClick={() => setOpen(null)} aria-label="Back to tasks">
            ‹
          </button>
        ) : null}
        <strong>{task ? task.label : tab === 'chat' ? 'Chat with the operator' : tab === 'status' ? 'Working status' : device.label}</strong>
        <span className={`dot ${online && live ? 'on' : 'off'}`} title={online ? (live ? 'Live' : 'Connecting') : 'Offline'}>
          {online ? (live ? 'Live' : 'Connecting') : 'Offline'}
        </span>
      </header>
      {waiting.length ? (
        <p className="waiting" role="status">
          Waiting to be sent: {summary(waiting)}
        </p>
      ) : null}
      {outbox
        .filter((i) => i.error)
        .map((i) => (
          <p className="error" key={i.id}>
            Not accepted: {i.kind === 'form' ? `form of ${i.label}` : i.kind === 'status' ? `status ${i.label}` : i.kind}: {i.error}
          </p>
        ))}
      {tab === 'chat' ? (
        <Chat device={device} outbox={outbox} onQueued={send} />
      ) : tab === 'status' ? (
        <WorkStatus device={device} outbox={outbox} onQueued={send} />
      ) : task ? (
        <TaskView task={task} device={device} position={last} waiting={outbox.some((i) => i.kind === 'form' && i.taskId === task.id && !i.error)} onQueued={send} />
      ) : (
        <>
          <ul className="tasks">
            {tasks.map((t) => (
              <li key={t.id}>
                <button onClick={() => setOpen(t.id)}>
                  <span className="label">{t.label}</span>
                  <span className={`status s-${t.status}`}>{STATUS[t.status] ?? t.status}</span>
                  <span className="addr">{t.location.address}</span>
                  <span className="when">{span(t.from, t.to)}</span>
                </button>
              </li>
            ))}
            {!tasks.length ? <li className="empty">No tasks for now.</li> : null}
          </ul>
          <footer>
            <p>{gpsError ?? (last ? `Position ±${Math.round(last.accuracy ?? 0)} m at ${new Date(last.time).toLocaleTimeString()}` : 'Waiting for a position')}</p>
            <button onClick={() => void signOut()}>Sign out</button>
          </footer>
          <CheckIn position={last} onQueued={send} />
        </>
      )}
      <nav className="tabs">
        {(['tasks', 'chat', 'status'] as const).map((t) => (
          <button key={t} aria-current={tab === t ? 'page' : undefined} onClick={() => (setTab(t), setOpen(null))}>
            {t === 'tasks' ? 'Tasks' : t === 'chat' ? 'Chat' : 'Status'}
          </button>
        ))}
      </nav>
    </div>
  );
}

const STATUS: Record<string, string> = { unassigned: 'Unassigned', assigned: 'To do', arrived: 'Arrived', done: 'Done', failed: 'Failed', delayed: 'Delayed' };

function statusText(t: Task): string {
  if (t.status === 'arrived' && t.arrival_date) return `Arrived at ${t.arrival_date.slice(11, 16)}`;
  return STATUS[t.status] ?? t.status;
}

/** A task's window: the times only when it is within one day. */
function span(from: string, to: string): string {
  return from.slice(0, 10) === to.slice(0, 10) ? `${from.slice(11, 16)} – ${to.slice(11, 16)}` : `${from.slice(0, 16)} – ${to.slice(0, 16)}`;
}

/** A check-in where the employee stands: comment and photos, kept in the outbox until sent. */
function CheckIn({ position, onQueued }: { position: { lat: number; lng: number; accuracy: number | null } | null; onQueued: () => void }) {
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState('');
  const [photos, setPhotos] = useState<File[]>([]);
  const [note, setNote] = useState<string | null>(null);
  if (!open)
    return (
      <section className="checkin">
        {note ? <p className="hint">{note}</p> : null}
        <button className="primary" onClick={() => (setOpen(true), setNote(null))} disabled={!position}>
          Check in here
        </button>
      </section>
    );
  return (
    <section className="checkin form">
      <h2>Check-in</h2>
      <label htmlFor="checkin-comment">Comment</label>
      <textarea id="checkin-comment" rows={2} maxLength={1024} value={comment} onChange={(e) => setComment(e.target.value)} />
      <label htmlFor="checkin-photos">Photos</label>
      <input id="checkin-photos" type="file" accept="image/*" capture="environment" multiple onChange={(e) => setPhotos([...(e.target.files ?? [])].slice(0, 20))} />
      <button
        className="primary"
        onClick={async () => {
          const p = position!;
          await enqueue({ kind: 'checkin', key: newKey(), comment: comment.trim(), photos: photos.map((f) => ({ blob: f, name: f.name || 'photo.jpg' })), location: { lat: p.lat, lng: p.lng, ...(p.accuracy === null ? {} : { precision: Math.round(p.accuracy) }) }, time: Date.now() });
          setOpen(false);
          setComment('');
          setPhotos([]);
          setNote('Check-in saved: it is sent as soon as the connection allows.');
          onQueued();
        }}
      >
        Send check-in
      </button>
    </section>
  );
}

function summary(list: Item[]): string {
  const n = (k: Item['kind']) => list.filter((i) => i.kind === k).length;
  return [
    [n('form'), 'form', 'forms'],
    [n('position'), 'position', 'positions'],
    [n('chat'), 'message', 'messages'],
    [n('checkin'), 'check-in', 'check-ins'],
    [n('status'), 'status change', 'status changes'],
  ]
    .filter(([c]) => c)
    .map(([c, one, many]) => `${c} ${c === 1 ? one : many}`)
    .join(', ');
}

function TaskView({ task, device, position, waiting, onQueued }: { task: Task; device: Device; position: { lat: number; lng: number; accuracy: number | null } | null; waiting: boolean; onQueued: () => void }) {
  const [queued, setQueued] = useState(false);
  const { lat, lng } = task.location;
  return (
    <main className="task">
      <p className={`status s-${task.status}`}>{statusText(task)}</p>
      <p>{task.location.address}</p>
      {task.description ? <p>{task.description}</p> : null}
      <p>{span(task.from, task.to)}</p>
      <Suspense fallback={<div className="task-map" data-state="loading" />}>
        <TaskMap place={task.location} here={position} />
      </Suspense>
      <a className="route" href={`geo:${lat},${lng}?q=${lat},${lng}`}>
        Route to the place
      </a>
      {task.form ? (
        task.form.submitted ? (
          <p className="done">Form submitted {task.form.submitted}</p>
        ) : waiting || queued ? (
          <p className="waiting">The form is saved on this phone and is sent when the connection returns.</p>
        ) : (
          <FormView
            task={task}
            onSubmit={async ({ values, files }) => {
              await enqueue({ kind: 'form', key: newKey(), taskId: task.id, formId: task.form!.id, label: task.label, values, files, location: position ? { lat: position.lat, lng: position.lng } : { lat, lng }, time: Date.now() });
              setQueued(true);
              onQueued();
            }}
          />
        )
      ) : null}
      <p className="hint">Tracker {device.label}</p>
    </main>
  );
}
