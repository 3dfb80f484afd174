/**
 * The console's one translation mechanism: `t('key', {vars})` looks a message up in the active
 * language and fills `{name}` placeholders. English is built in; another language is a file beside
 * en.ts with the same keys, loaded on demand by `setLanguage` (see docs/console.md). Numbers are
 * formatted for the same locale.
 */
import { en, type MessageKey, type Messages } from './en.ts';

/** Languages besides English: code -> loader of its messages (none yet; add `de: () => import('./de.ts')`). */
const LOADERS: Record<string, () => Promise<{ messages: Partial<Messages> }>> = {};

let messages: Partial<Messages> = {};
let locale = 'en';

export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  const template = messages[key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

export function formatNumber(value: number, digits = 0): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(value);
}

/** The best language among those we have for the browser's preferences (or a user's setting). */
export function pickLanguage(preferred: readonly string[]): string {
  for (const p of preferred) {
    const code = p.toLowerCase().split('-')[0];
    if (code === 'en' || code in LOADERS) return code;
  }
  return 'en';
}

export async function setLanguage(code: string): Promise<void> {
  locale = code;
  messages = code === 'en' || !(code in LOADERS) ? {} : (await LOADERS[code]()).messages;
  document.documentElement.lang = code;
}

export type { MessageKey };
