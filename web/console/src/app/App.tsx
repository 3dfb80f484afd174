/**
 * The console's frame: sign-in until there is a session, then the navigation, the live status and
 * the current screen. The session is checked with user/get_info (which also gives the user's time
 * zone); an ended session at any call brings back the sign-in screen with a note.
 */
import { Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Api, sessionStore, type Session as StoredSession } from '../api/client.ts';
import type { Tracker } from '../api/types.ts';
import { t } from '../i18n/i18n.ts';
import { LiveStates, type LiveMode } from '../live/live.ts';
import { SignIn } from '../screens/signin/SignIn.tsx';
import { Session, type SessionContext } from './context.ts';
import { navigate, useRoute } from './router.ts';
import { preloadFirstScreen, SCREENS } from './screens.ts';

export const LIVE = { rateLimitSeconds: 1, pollSeconds: 5 };

export function App() {
  const [stored, setStored] = useState<StoredSession | null>(() => sessionStore.load());
  const [note, setNote] = useState<string | null>(null);

  const end = useCallback((why: string | null) => {
    sessionStore.save(null);
    setStored(null);
    setNote(why);
  }, []);

  useEffect(() => {
    if (!stored) preloadFirstScreen();
  }, [stored]);

  if (!stored) {
    return (
      <SignIn
        note={note}
        onSignedIn={(s) => {
          sessionStore.save(s);
          setNote(null);
          setStored(s);
        }}
      />
    );
  }
  return <SignedIn key={stored.hash} stored={stored} onEnded={end} />;
}

function SignedIn({ stored, onEnded }: { stored: StoredSession; onEnded: (why: string | null) => void }) {
  const api = useMemo(() => new Api(stored, () => onEnded(t('signin.ended'))), [stored, onEnded]);
  const [timeZone, setTimeZone] = useState<string | null>(null);
  const [live, setLive] = useState<LiveStates | null>(null);
  const [trackers, setTrackers] = useState<Tracker[] | null>(null);
  const [mode, setMode] = useState<LiveMode>('connecting');
  const route = useRoute();

  useEffect(() => {
    let stop = () => {};
    let cancelled = false;
    void (async () => {
      try {
        const info = await api.call<{ user_info: { time_zone: string } }>('user/get_info');
        if (cancelled) return;
        setTimeZone(info.user_info.time_zone || 'UTC');
        const { list } = await api.call<{ list: Tracker[] }>('tracker/list');
        if (cancelled) return;
        setTrackers(list);
        const l = new LiveStates(api, list, LIVE);
        const offMode = l.onMode(setMode);
        l.start();
        setLive(l);
        stop = () => {
          offMode();
          l.stop();
        };
      } catch {
        /* an ended session was reported through the API client; other failures show on the screens */
      }
    })();
    return () => {
      cancelled = true;
      stop();
    };
  }, [api]);

  const signOut = useCallback(() => {
    void api.signOut().finally(() => onEnded(null));
  }, [api, onEnded]);

  const ctx: SessionContext | null = useMemo(() => (timeZone && trackers ? { api, timeZone, trackers, live, signOut } : null), [api, timeZone, trackers, live, signOut]);
  const screen = SCREENS.find((s) => s.path === route.path) ?? SCREENS[0];
  const Screen = screen.component;

  return (
    <div className="shell">
      <a className="skip" href="#main">
        {t('app.skip')}
      </a>
      <header className="topbar">
        <span className="brand">{t('app.title')}</span>
        <nav aria-label={t('nav.label')}>
          <ul>
            {SCREENS.map((s) => (
              <li key={s.path}>
                <a
                  href={s.path}
                  aria-current={s === screen ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    navigate(s.path);
                  }}
                >
                  {t(s.title)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className={`live live-${mode}`} role="status">
          {mode === 'socket' ? t('live.socket') : mode === 'polling' ? t('live.polling', { seconds: LIVE.pollSeconds }) : t('live.connecting')}
        </span>
        <span className="who" title={t('nav.signedInAs', { login: stored.login })}>
          {t('nav.signedInAs', { login: stored.login })}
        </span>
        <button type="button" onClick={signOut}>
          {t('nav.signOut')}
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {ctx ? (
          <Session.Provider value={ctx}>
            <Suspense fallback={<p className="pad">…</p>}>
              <Screen />
            </Suspense>
          </Session.Provider>
        ) : (
          <p className="pad">{t('trackers.loading')}</p>
        )}
      </main>
    </div>
  );
}
