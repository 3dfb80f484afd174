/**
 * A tracker's panel: its last point, sensors, counters, inputs and chat, each read from the API
 * when the panel opens (tracker/get_last_gps_point, get_diagnostics, get_counters, get_inputs,
 * tracker/chat/list) and the last point kept current by the live states.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import type { ChatMessage, Sensor, SourceState, Tracker } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { navigate } from '../../app/router.ts';
import { formatNumber, t, type MessageKey } from '../../i18n/i18n.ts';
import { errorText } from '../signin/SignIn.tsx';
import { speedText, statusText } from './status.ts';

interface Details {
  point: { lat: number; lng: number; alt: number; satellites: number; get_time: string; heading: number; speed: number } | null;
  sensors: Sensor[];
  counters: { type: string; value: number; update_time: string }[];
  inputs: boolean[];
  chat: ChatMessage[] | null;
}

/** A call whose "nothing yet" answers (no point yet, a device without chat) are empty, not errors. */
async function optional<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof ApiError && [201, 204, 214, 236].includes(e.code)) return null;
    throw e;
  }
}

export function TrackerPanel({ tracker, state, onClose }: { tracker: Tracker; state: SourceState | undefined; onClose: () => void }) {
  const { api } = useSession();
  const [details, setDetails] = useState<Details | null>(null);
  const [error, setError] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    const id = { tracker_id: tracker.id };
    try {
      const [point, diag, counters, inputs, chat] = await Promise.all([
        optional(api.call<{ value: Details['point'] }>('tracker/get_last_gps_point', id)),
        optional(api.call<{ inputs: Sensor[] }>('tracker/get_diagnostics', id)),
        optional(api.call<{ list: Details['counters'] }>('tracker/get_counters', id)),
        optional(api.call<{ inputs: boolean[] }>('tracker/get_inputs', id)),
        optional(api.call<{ list: ChatMessage[] }>('tracker/chat/list', { ...id, limit: 50, ascending: false })),
      ]);
      setDetails({ point: point?.value ?? null, sensors: diag?.inputs ?? [], counters: counters?.list ?? [], inputs: inputs?.inputs ?? [], chat: chat ? [...chat.list].reverse() : null });
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, [api, tracker.id]);

  useEffect(() => {
    setDetails(null);
    void load();
    heading.current?.focus();
  }, [load]);

  // The last point follows the live state between loads.
  const live = state?.gps.location ? state : undefined;
  const point = details?.point;

  return (
    <aside className="panel" aria-labelledby="panel-heading">
      <div className="panel-head">
        <h2 id="panel-heading" tabIndex={-1} ref={heading}>
          {tracker.label}
        </h2>
        <button type="button" className="icon" onClick={onClose} aria-label={t('panel.close')}>
          ×
        </button>
      </div>
      <p className="sub">
        {statusText(state)}
        {state?.movement_status ? ` · ${t(`movement.${state.movement_status}` as MessageKey)}` : ''}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <section aria-labelledby="p-last">
        <h3 id="p-last">{t('panel.lastPoint')}</h3>
        {live || point ? (
          <dl className="facts">
            <dt>{t('panel.time')}</dt>
            <dd>{live?.gps.updated ?? point?.get_time}</dd>
            <dt>{t('panel.position')}</dt>
            <dd>{`${(live?.gps.location?.lat ?? point!.lat).toFixed(5)}, ${(live?.gps.location?.lng ?? point!.lng).toFixed(5)}`}</dd>
            <dt>{t('panel.speed')}</dt>
            <dd>{live ? speedText(live) : t('unit.kmh', { value: formatNumber(point!.speed) })}</dd>
            <dt>{t('panel.heading')}</dt>
            <dd>{`${live?.gps.heading ?? point!.heading}°`}</dd>
            <dt>{t('panel.altitude')}</dt>
            <dd>{`${live?.gps.alt ?? point!.alt} m`}</dd>
            {point && (
              <>
                <dt>{t('panel.satellites')}</dt>
                <dd>{point.satellites}</dd>
              </>
            )}
            <dt>{t('panel.device')}</dt>
            <dd>{[tracker.source.model, tracker.source.device_id].filter(Boolean).join(' · ')}</dd>
          </dl>
        ) : (
          <p className="empty">{t('panel.none')}</p>
        )}
        <button type="button" onClick={() => navigate(`/history?tracker=${tracker.id}`)}>
          {t('panel.history')}
        </button>
      </section>
      <section aria-labelledby="p-sensors">
        <h3 id="p-sensors">{t('panel.sensors')}</h3>
        {details?.sensors.length ? (
          <dl className="facts">
            {details.sensors.map((s) => (
              <FactRow key={s.name} term={s.label || s.name} value={`${typeof s.value === 'number' ? formatNumber(s.value, 2) : String(s.value)}${s.units ? ` ${s.units}` : ''}`} />
            ))}
          </dl>
        ) : (
          <p className="empty">{t('panel.none')}</p>
        )}
      </section>
      <section aria-labelledby="p-counters">
        <h3 id="p-counters">{t('panel.counters')}</h3>
        {details?.counters.length ? (
          <dl className="facts">
            {details.counters.map((c) => (
              <FactRow key={c.type} term={t(`counter.${c.type}` as MessageKey)} value={t(c.type === 'odometer' ? 'unit.km' : c.type === 'engine_hours' ? 'unit.hours' : 'unit.litres', { value: formatNumber(c.value, 1) })} />
            ))}
          </dl>
        ) : (
          <p className="empty">{t('panel.none')}</p>
        )}
      </section>
      <section aria-labelledby="p-inputs">
        <h3 id="p-inputs">{t('panel.inputs')}</h3>
        {details?.inputs.length ? (
          <ul className="inputs">
            {details.inputs.map((on, i) => (
              <li key={i} className={on ? 'on' : 'off'}>
                {t('panel.inputN', { n: i + 1 })}: <strong>{on ? t('panel.on') : t('panel.off')}</strong>
              </li>
            ))}
          </ul>
        ) : (
          <p className="empty">{t('panel.none')}</p>
        )}
      </section>
      {details?.chat && <Chat trackerId={tracker.id} messages={details.chat} onSent={load} />}
    </aside>
  );
}

function FactRow({ term, value }: { term: string; value: string }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </>
  );
}

function Chat({ trackerId, messages, onSent }: { trackerId: number; messages: ChatMessage[]; onSent: () => Promise<void> }) {
  const { api } = useSession();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  async function send(e: FormEvent) {
    e.preventDefault();
    if (!text.trim()) return;
    try {
      await api.call('tracker/chat/send', { tracker_id: trackerId, message: text.trim() });
      setText('');
      setError(null);
      await onSent();
    } catch (err) {
      setError(t('panel.chatFailed', { description: errorText(err) }));
    }
  }
  return (
    <section aria-labelledby="p-chat">
      <h3 id="p-chat">{t('panel.chat')}</h3>
      {messages.length ? (
        <ol className="chat">
          {messages.map((m) => (
            <li key={m.id} className={m.type === 'INCOMING' ? 'in' : 'out'}>
              <span className="sr-only">{m.type === 'INCOMING' ? t('panel.incoming') : t('panel.outgoing')}: </span>
              <span className="text">{m.text}</span>
              <span className="time">
                {m.submit_time} · {m.status}
              </span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="empty">{t('panel.chatEmpty')}</p>
      )}
      <form onSubmit={send} className="chat-form">
        <label htmlFor="chat-text" className="sr-only">
          {t('panel.chatMessage')}
        </label>
        <input id="chat-text" value={text} onChange={(e) => setText(e.target.value)} placeholder={t('panel.chatMessage')} />
        <button type="submit">{t('panel.chatSend')}</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
