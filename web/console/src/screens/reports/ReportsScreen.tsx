/**
 * Reports: ask for a report (report/tracker/generate), watch it being made (report/tracker/list,
 * read again every second while one is queued or in progress), show a ready one in the page
 * (report/tracker/retrieve), download it as xlsx or pdf (report/tracker/download) or as CSV made
 * from the shown tables, and delete it (report/tracker/delete).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReportItem, ReportObject } from '../../api/types.ts';
import { useSession } from '../../app/context.ts';
import { ConfirmDelete, Notices } from '../../app/ui.tsx';
import { t, type MessageKey } from '../../i18n/i18n.ts';
import { errorText } from '../signin/SignIn.tsx';
import { reportCsv } from './report-csv.ts';
import { ReportForm } from './ReportForm.tsx';
import { ReportView } from './ReportView.tsx';

const POLL_MS = 1000;

/** Hands a file to the browser as a download. */
function save(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ReportsScreen() {
  const { api } = useSession();
  const [reports, setReports] = useState<ReportItem[] | null>(null);
  const [open, setOpen] = useState<ReportObject | null>(null);
  const [waitingFor, setWaitingFor] = useState<number | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<number | null>(null);
  const waitingRef = useRef(waitingFor);
  waitingRef.current = waitingFor;

  const show = useCallback(
    async (id: number) => {
      try {
        const r = await api.call<{ report: ReportObject }>('report/tracker/retrieve', { report_id: id });
        setOpen(r.report);
        setError(null);
      } catch (e) {
        setError(errorText(e));
      }
    },
    [api],
  );

  const load = useCallback(async () => {
    try {
      const r = await api.call<{ list: ReportItem[] }>('report/tracker/list');
      setReports(r.list);
      // The report just asked for opens by itself once it is ready.
      const mine = r.list.find((x) => x.id === waitingRef.current);
      if (mine && (mine.state === 'ready' || mine.state === 'failed')) {
        setWaitingFor(null);
        if (mine.state === 'ready') void show(mine.id);
      }
    } catch (e) {
      setError(errorText(e));
    }
  }, [api, show]);

  const busy = reports?.some((r) => r.state === 'queued' || r.state === 'in_progress') ?? false;
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [busy, load]);

  const download = async (r: ReportItem, format: 'xlsx' | 'pdf' | 'csv') => {
    try {
      if (format === 'csv') {
        const report = open?.id === r.id ? open : (await api.call<{ report: ReportObject }>('report/tracker/retrieve', { report_id: r.id })).report;
        save(new Blob([reportCsv(report)], { type: 'text/csv;charset=utf-8' }), `${r.title}.csv`);
      } else {
        const file = await api.download('report/tracker/download', { report_id: r.id, format });
        save(file.blob, file.filename);
      }
    } catch (e) {
      setError(errorText(e));
    }
  };

  const remove = async (r: ReportItem) => {
    setConfirm(null);
    try {
      await api.call('report/tracker/delete', { report_id: r.id });
      if (open?.id === r.id) setOpen(null);
      setNote(t('reports.deleted', { title: r.title }));
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  };

  const newestFirst = reports ? [...reports].reverse() : null;
  return (
    <div className="reports">
      <section className="dispatch-side" aria-labelledby="reports-heading">
        <div className="list-head">
          <h2 id="reports-heading">{t('reports.heading')}</h2>
          {reports && <span className="count">{t('reports.count', { count: reports.length })}</span>}
        </div>
        <ReportForm
          onGenerated={(id) => {
            setWaitingFor(id);
            setNote(null);
            void load();
          }}
        />
        <Notices note={note} error={error} />
        <h3 className="sub-head">{t('reports.made')}</h3>
        {newestFirst && newestFirst.length === 0 && <p className="empty pad">{t('reports.noReports')}</p>}
        <ul className="report-list" aria-label={t('reports.made')}>
          {newestFirst?.map((r) => (
            <li key={r.id} className={open?.id === r.id ? 'selected' : undefined}>
              <div className="name">{r.title}</div>
              <div className="meta">{t('reports.period', { from: r.from, to: r.to })}</div>
              <State report={r} />
              <div className="actions">
                {r.state === 'ready' && (
                  <>
                    <button type="button" className="small" onClick={() => void show(r.id)} aria-label={t('reports.showNamed', { title: r.title, id: r.id })}>
                      {t('reports.show')}
                    </button>
                    {(['xlsx', 'pdf', 'csv'] as const).map((f) => (
                      <button key={f} type="button" className="small" onClick={() => void download(r, f)} aria-label={t('reports.downloadAs', { format: f.toUpperCase(), title: r.title, id: r.id })}>
                        {f.toUpperCase()}
                      </button>
                    ))}
                  </>
                )}
                {confirm === r.id ? (
                  <ConfirmDelete question={t('reports.confirmDelete', { title: r.title })} onYes={() => void remove(r)} onNo={() => setConfirm(null)} />
                ) : (
                  <button type="button" className="small danger" onClick={() => setConfirm(r.id)} aria-label={t('reports.deleteNamed', { title: r.title, id: r.id })}>
                    {t('reports.delete')}
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      </section>
      <section className="report-main" aria-label={t('reports.result')}>
        {open ? <ReportView key={open.id} report={open} /> : <p className="empty pad">{t(waitingFor ? 'reports.waiting' : 'reports.pick')}</p>}
      </section>
    </div>
  );
}

function State({ report: r }: { report: ReportItem }) {
  if (r.state === 'failed') return <p className="state failed">{t('reports.failed', { error: r.error ?? '' })}</p>;
  if (r.state === 'ready') return <p className="state">{t('reports.ready', { created: r.created })}</p>;
  const label = t(`reports.state.${r.state}` as MessageKey, { percent: r.percent });
  return (
    <p className="state">
      <progress max={100} value={r.percent} aria-label={t('reports.progress', { title: r.title })} /> {label}
    </p>
  );
}
