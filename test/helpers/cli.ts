import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the real admin command (`npm run fsm -- ...` runs the same file) against a data directory. */
export function fsm(dataDir: string, ...args: string[]): { code: number; stdout: string; stderr: string; json: any } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: { ...process.env, FSM_DATA_DIR: dataDir }, encoding: 'utf8' });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    /* not JSON */
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}
