/**
 * The form that asks for a report (report/tracker/generate): its type, the trackers, the period and
 * the members a type requires (the speed limit of speed violations). Answers the new report's id.
 */
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client.ts';
import { useSession } from '../../app/context.ts';
import { Field } from '../../app/ui.tsx';
import { t } from '../../i18n/i18n.ts';
import { fromInput, nowIn, toInput, wallMs, wallString } from '../../util/time.ts';
import { errorText } from '../signin/SignIn.tsx';
import { PLUGINS } from './plugins.ts';

export function ReportForm({ onGenerated }: { onGenerated: (id: number) => void }) {
  const { api, trackers, timeZone } = useSession();
  const today = nowIn(timeZone);
  const [pluginId, setPluginId] = useState(PLUGINS[0].id);
  const [chosen, setChosen] = useState<Set<number>>(() => new Set(trackers.map((tr) => tr.id)));
  const [from, setFrom] = useState(toInput(`${today.slice(0, 10)} 00:00:00`));
  const [to, setTo] = useState(toInput(wallString(wallMs(today) + 60_000)));
  const [maxSpeed, setMaxSpeed] = useState('90');
  const [minMinutes, setMinMinutes] = useState('1');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const plugin = PLUGINS.find((p) => p.id === pluginId)!;

  const toggle = (id: number) =>
    setChosen((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!chosen.size) return setError(t('reports.needTracker'));
    setBusy(true);
    setError(null);
    try {
      const extra = plugin.speedLimit ? { max_speed: Number(maxSpeed), min_duration_minutes: Number(minMinutes) } : {};
      const r = await api.call<{ id: number }>('report/tracker/generate', {
        from: fromInput(from),
        to: fromInput(to),
        trackers: trackers.filter((tr) => chosen.has(tr.id)).map((tr) => tr.id),
        plugin: { plugin_id: pluginId, ...extra },
      });
      onGenerated(r.id);
    } catch (err) {
      setError(err instanceof ApiError && err.code === 211 ? t('reports.tooLong', { span: spanText(err.extra.max_time_span) }) : errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="task-form" onSubmit={submit} noValidate aria-labelledby="report-form-heading">
      <h3 id="report-form-heading">{t('reports.new')}</h3>
      <Field id="r-type" label="reports.type">
        <select id="r-type" value={pluginId} onChange={(e) => setPluginId(Number(e.target.value))}>
          {PLUGINS.map((p) => (
            <option key={p.id} value={p.id}>
              {t(p.title)}
            </option>
          ))}
        </select>
      </Field>
      <fieldset className="checklist">
        <legend>{t('reports.trackers', { chosen: chosen.size, total: trackers.length })}</legend>
        <div className="actions">
          <button type="button" className="small" onClick={() => setChosen(new Set(trackers.map((tr) => tr.id)))}>
            {t('reports.all')}
          </button>
          <button type="button" className="small" onClick={() => setChosen(new Set())}>
            {t('reports.none')}
          </button>
        </div>
        <ul>
          {trackers.map((tr) => (
            <li key={tr.id}>
              <label>
                <input type="checkbox" checked={chosen.has(tr.id)} onChange={() => toggle(tr.id)} /> {tr.label}
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <div className="period-fields">
        <Field id="r-from" label="history.from">
          <input id="r-from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} required />
        </Field>
        <Field id="r-to" label="history.to">
          <input id="r-to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} required />
        </Field>
      </div>
      {plugin.oneDay && <p className="hint">{t('reports.oneDay')}</p>}
      {plugin.speedLimit && (
        <div className="row2">
          <Field id="r-speed" label="reports.maxSpeed">
            <input id="r-speed" type="number" min={1} max={1000} value={maxSpeed} onChange={(e) => setMaxSpeed(e.target.value)} />
          </Field>
          <Field id="r-minutes" label="reports.minMinutes">
            <input id="r-minutes" type="number" min={0} max={1440} value={minMinutes} onChange={(e) => setMinMinutes(e.target.value)} />
          </Field>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? t('reports.generating') : t('reports.generate')}
        </button>
      </div>
    </form>
  );
}

/** `P31D` as words ("31 days"); another duration as the server wrote it. */
function spanText(span: unknown): string {
  const days = /^P(\d+)D$/.exec(String(span));
  return days ? t(days[1] === '1' ? 'reports.day' : 'reports.days', { n: days[1] }) : String(span);
}
