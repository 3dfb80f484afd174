/**
 * The generated password of the first master user goes to a file only the server's user can
 * read, never to the log (logs are kept and shipped; issue 10, item 13). README: First start.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIRST_PASSWORD_FILE = 'first-master-password.txt';

/** Writes `login` and `password` to <dataDir>/first-master-password.txt (mode 0600); answers its path. */
export function writeFirstPassword(dataDir: string, account: { login: string; password: string }): string {
  const file = join(dataDir, FIRST_PASSWORD_FILE);
  // A new file, so the mode applies (an old file would keep its permissions).
  rmSync(file, { force: true });
  writeFileSync(file, `login: ${account.login}\npassword: ${account.password}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}
