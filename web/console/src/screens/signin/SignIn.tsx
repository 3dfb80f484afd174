/** Sign-in (user/auth): login and password, the API's refusal in words, the reason a session ended. */
import { useState, type FormEvent } from 'react';
import { Api, ApiError, NetworkError, type Session } from '../../api/client.ts';
import { t, type MessageKey } from '../../i18n/i18n.ts';

export function errorText(e: unknown): string {
  if (e instanceof ApiError) {
    const key = `error.${e.code}` as MessageKey;
    return ['error.102', 'error.103', 'error.104', 'error.105'].includes(key) ? t(key, { description: e.description }) : t('error.generic', { description: e.description, code: e.code });
  }
  if (e instanceof NetworkError) return t('error.network');
  return String(e);
}

export function SignIn({ note, onSignedIn }: { note: string | null; onSignedIn: (s: Session) => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!login.trim() || !password) {
      setError(t('signin.required'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await Api.signIn(login.trim(), password));
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  }

  return (
    <main className="signin">
      <form onSubmit={submit} noValidate aria-labelledby="signin-heading" aria-describedby={error ? 'signin-error' : undefined}>
        <h1 id="signin-heading">{t('signin.heading')}</h1>
        <p>{t('signin.intro')}</p>
        {note && !error && (
          <p className="note" role="status">
            {note}
          </p>
        )}
        {error && (
          <p className="error" id="signin-error" role="alert">
            {error}
          </p>
        )}
        <label htmlFor="login">{t('signin.login')}</label>
        <input id="login" name="login" autoComplete="username" autoFocus value={login} onChange={(e) => setLogin(e.target.value)} aria-invalid={!!error} />
        <label htmlFor="password">{t('signin.password')}</label>
        <input id="password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-invalid={!!error} />
        <button type="submit" disabled={busy}>
          {busy ? t('signin.busy') : t('signin.submit')}
        </button>
      </form>
    </main>
  );
}
