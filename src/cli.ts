/**
 * The admin command: `npm run fsm -- <command>`. Manages what the API cannot (users, sub-users
 * and rights, dealers, tariffs, tracker registration and clones). It opens the same SQLite file
 * as the server (WAL lets both work at once); the gateway notices tracker changes by the
 * sources version the store bumps.
 */
import { statSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { AccountError, createUser } from './accounts/accounts.ts';
import { settingsErrors } from './accounts/settings.ts';
import { DomainError } from './core/errors.ts';
import { APP_PROTOCOL, createActivationCode, formatCode } from './fieldapp/activation.ts';
import { ConfigError, loadConfig } from './config.ts';
import { PROTOCOLS } from '../protocols/index.ts';
import { createMailer } from './mail/mailer.ts';
import { SIMULATE_OPTIONS, SIMULATE_USAGE, simulateCommand } from './simulator/command.ts';
import { SimulationOptionError } from './simulator/run.ts';
import type { DataStore } from './store/contract.ts';
import { openStore, type Store } from './store/index.ts';
import { TARIFF_FIELDS, type TariffChanges, type TariffField } from './store/tariffs.ts';
import { retentionCommand } from './retention/command.ts';
import { compactCommand } from './retention/compact-command.ts';
import type { UserRow } from './store/users.ts';

class UsageError extends Error {}

type Opts = Record<string, string | boolean | undefined>;
interface Ctx {
  store: Store;
  json: boolean;
  out: (text: string, obj?: Record<string, unknown>) => void;
}

const tariffOptions = Object.fromEntries(Object.keys(TARIFF_FIELDS).map((k) => [k.replace(/_/g, '-'), { type: 'string' as const }]));

const COMMANDS: Record<string, { usage: string; options: Record<string, { type: 'string' | 'boolean' }>; run: (ctx: Ctx, o: Opts, pos: string[]) => Promise<void> | void }> = {
  backup: {
    usage: 'backup <file>   (a consistent copy of the live database; the server may keep running)',
    options: {},
    async run(ctx, _o, pos) {
      const file = pos[0];
      if (!file) throw new UsageError('name the file to write the copy to');
      const started = Date.now();
      let shown = -1;
      await ctx.store.backup(file, (copied, total) => {
        const pct = total ? Math.floor((copied / total) * 100) : 100;
        // Progress on a terminal; one line per 10 % elsewhere (and none with --json).
        if (ctx.json || pct === shown || (!process.stderr.isTTY && pct % 10 !== 0)) return;
        shown = pct;
        process.stderr.write(process.stderr.isTTY ? `\rbackup: ${pct}% (${copied}/${total} pages)` : `backup: ${pct}% (${copied}/${total} pages)\n`);
      });
      if (process.stderr.isTTY && !ctx.json) process.stderr.write('\n');
      const bytes = statSync(file).size;
      ctx.out(`backup written to ${file} (${(bytes / 1048576).toFixed(1)} MiB in ${((Date.now() - started) / 1000).toFixed(1)} s); restore: docs/operations.md`, { file, bytes });
    },
  },
  retention: {
    usage: 'retention   (delete data older than each tracker\'s storage period now; the server may keep running)',
    options: {},
    run: (ctx) => retentionCommand(ctx.store, loadConfig(), ctx.out, ctx.json),
  },
  compact: {
    usage: 'compact   (move processed fixes older than FSM_COMPACT_AFTER_HOURS into compact chunks now; the server may keep running)',
    options: {},
    run: (ctx) => compactCommand(ctx.store, loadConfig(), ctx.out, ctx.json),
  },
  'user create': {
    usage: 'user create --login L --password P [--time-zone Z] [--locale L] [--measurement-system metric|imperial|us] [--demo] [--unactivated] | --parent L --login S --password P --rights r1,r2',
    options: { login: { type: 'string' }, password: { type: 'string' }, 'time-zone': { type: 'string' }, locale: { type: 'string' }, 'measurement-system': { type: 'string' }, demo: { type: 'boolean' }, unactivated: { type: 'boolean' }, parent: { type: 'string' }, rights: { type: 'string' } },
    async run(ctx, o) {
      const config = loadConfig();
      const r = await createUser(
        { store: ctx.store, config, mailer: createMailer(config.mail), now: Date.now },
        {
          login: need(o, 'login'),
          password: need(o, 'password'),
          timeZone: o['time-zone'] as string | undefined,
          locale: o.locale as string | undefined,
          measurementSystem: o['measurement-system'] as string | undefined,
          demo: !!o.demo,
          unactivated: !!o.unactivated,
          parentLogin: o.parent as string | undefined,
          rights: o.rights ? String(o.rights).split(',').map((s) => s.trim()).filter(Boolean) : undefined,
        },
      );
      ctx.out(`created user ${r.id}${r.activationMailed ? ' (activation link mailed)' : ''}`, { id: r.id });
    },
  },
  'user update': {
    usage: 'user update --login L [--time-zone Z] [--locale L] [--measurement-system metric|imperial|us]',
    options: { login: { type: 'string' }, 'time-zone': { type: 'string' }, locale: { type: 'string' }, 'measurement-system': { type: 'string' } },
    async run(ctx, o) {
      const u = await ctx.store.data.users.findByLogin(need(o, 'login'));
      if (!u) throw new UsageError(`no user with login ${o.login}`);
      const changes = { time_zone: o['time-zone'] as string | undefined, locale: o.locale as string | undefined, measurement_system: o['measurement-system'] as string | undefined };
      const wrong = settingsErrors(changes);
      if (wrong.length) throw new UsageError(wrong.map((w) => `--${w.parameter.replace('_', '-')}: ${w.error}`).join('; '));
      if (Object.values(changes).every((v) => v === undefined)) throw new UsageError('name at least one setting to change');
      await ctx.store.data.users.updateSettings(u.id, changes);
      const now = (await ctx.store.data.users.get(u.id))!;
      ctx.out(`${u.login}: time zone ${now.time_zone}, locale ${now.locale}, measurement system ${now.measurement_system}`, { id: u.id, time_zone: now.time_zone, locale: now.locale, measurement_system: now.measurement_system });
    },
  },
  'dealer block': {
    usage: 'dealer block --user L',
    options: { user: { type: 'string' } },
    async run(ctx, o) {
      const u = await master(ctx.store.data, need(o, 'user'));
      await ctx.store.data.users.setDealerBlocked(u.id, true);
      ctx.out(`blocked ${u.login} and its sub-users`);
    },
  },
  'dealer unblock': {
    usage: 'dealer unblock --user L',
    options: { user: { type: 'string' } },
    async run(ctx, o) {
      const u = await master(ctx.store.data, need(o, 'user'));
      await ctx.store.data.users.setDealerBlocked(u.id, false);
      ctx.out(`unblocked ${u.login} and its sub-users`);
    },
  },
  'tariff set': {
    usage: `tariff set --user L ${Object.keys(TARIFF_FIELDS).map((k) => `[--${k.replace(/_/g, '-')} V]`).join(' ')}`,
    options: { user: { type: 'string' }, ...tariffOptions },
    async run(ctx, o) {
      const u = await master(ctx.store.data, need(o, 'user'));
      const changes: TariffChanges = {};
      for (const [field, kind] of Object.entries(TARIFF_FIELDS) as Array<[TariffField, string]>) {
        const raw = o[field.replace(/_/g, '-')];
        if (raw === undefined) continue;
        const s = String(raw);
        if (kind === 'int') {
          if (!/^\d+$/.test(s)) throw new UsageError(`--${field.replace(/_/g, '-')} takes a whole number, got "${s}"`);
          changes[field] = Number(s);
        } else if (kind === 'boolean') {
          if (!/^(true|false|1|0|yes|no)$/i.test(s)) throw new UsageError(`--${field.replace(/_/g, '-')} takes true or false, got "${s}"`);
          changes[field] = /^(true|1|yes)$/i.test(s);
        } else changes[field] = s.split(',').map((x) => x.trim()).filter(Boolean);
      }
      if (!Object.keys(changes).length) throw new UsageError('name at least one tariff setting to change');
      // A personal tariff: changing it touches no other user.
      let tariffId = u.tariff_id;
      if (tariffId === 1) {
        tariffId = await ctx.store.data.tariffs.copy(1, `tariff of ${u.login}`);
        await ctx.store.data.users.setTariff(u.id, tariffId);
      }
      await ctx.store.data.tariffs.update(tariffId, changes);
      await ctx.store.data.trackers.setOwnedSourcesTariff(u.id, tariffId);
      ctx.out(`tariff ${tariffId} of ${u.login}: ${JSON.stringify(changes)}`, { id: tariffId });
    },
  },
  'tracker add': {
    usage: 'tracker add --user L --device-id ID --protocol P [--label X] [--model M] [--phone P] [--no-gsm] [--bundled-sim]',
    options: { user: { type: 'string' }, 'device-id': { type: 'string' }, protocol: { type: 'string' }, label: { type: 'string' }, model: { type: 'string' }, phone: { type: 'string' }, 'no-gsm': { type: 'boolean' }, 'bundled-sim': { type: 'boolean' } },
    async run(ctx, o) {
      const u = await master(ctx.store.data, need(o, 'user'));
      const deviceId = need(o, 'device-id').trim();
      const protocol = need(o, 'protocol');
      if (!PROTOCOLS.has(protocol)) throw new UsageError(`unknown protocol ${protocol}; protocols: ${[...PROTOCOLS.keys()].join(', ')}`);
      if (!/^[\x21-\x7e]{1,64}$/.test(deviceId)) throw new UsageError('--device-id takes 1 to 64 printable characters without spaces');
      if (await ctx.store.data.trackers.deviceExists(deviceId)) throw new UsageError(`device ${deviceId} is registered already`);
      const phone = o.phone as string | undefined;
      if (phone !== undefined && !/^\d{5,20}$/.test(phone)) throw new UsageError('--phone takes 5 to 20 digits, international format without plus sign');
      const id = await ctx.store.data.trackers.add({
        userId: u.id,
        deviceId,
        protocol,
        label: (o.label as string | undefined) ?? `${protocol} ${deviceId}`,
        model: o.model as string | undefined,
        phone: phone ?? null,
        tariffId: u.tariff_id,
        hasGsm: !o['no-gsm'],
        bundledSim: !!o['bundled-sim'],
        now: Date.now(),
      });
      ctx.out(`added tracker ${id} (${protocol} ${deviceId}) for ${u.login}`, { id });
    },
  },
  'tracker clone': {
    usage: 'tracker clone --tracker N --to L [--label X]',
    options: { tracker: { type: 'string' }, to: { type: 'string' }, label: { type: 'string' } },
    async run(ctx, o) {
      const t = await trackerArg(ctx.store.data, need(o, 'tracker'));
      const to = await master(ctx.store.data, need(o, 'to'));
      if (t.clone) throw new UsageError(`tracker ${t.id} is itself a clone; clone the original`);
      if (to.id === t.user_id) throw new UsageError(`tracker ${t.id} belongs to ${to.login} already`);
      const id = await ctx.store.data.trackers.clone(t, to.id, (o.label as string | undefined) ?? t.label);
      ctx.out(`cloned tracker ${t.id} to ${to.login} as tracker ${id}`, { id });
    },
  },
  'device unknown': {
    usage: 'device unknown',
    options: {},
    async run(ctx) {
      const list = await ctx.store.data.devices.unknown();
      if (ctx.json) return console.log(JSON.stringify(list));
      if (!list.length) return ctx.out('no unknown devices');
      ctx.out(['device id'.padEnd(20) + 'protocol'.padEnd(11) + 'address'.padEnd(24) + 'first seen'.padEnd(26) + 'last seen'.padEnd(26) + 'count', ...list.map((d) => d.device_id.padEnd(20) + d.protocol.padEnd(11) + d.address.padEnd(24) + new Date(d.first_seen).toISOString().padEnd(26) + new Date(d.last_seen).toISOString().padEnd(26) + d.count)].join('\n'));
    },
  },
  'tracker block': {
    usage: 'tracker block N',
    options: {},
    async run(ctx, _o, pos) {
      const t = await trackerArg(ctx.store.data, pos[0]);
      await ctx.store.data.trackers.setBlocked(t.source_id, true);
      ctx.out(`blocked tracker ${t.id} (device ${t.device_id})`);
    },
  },
  'tracker unblock': {
    usage: 'tracker unblock N',
    options: {},
    async run(ctx, _o, pos) {
      const t = await trackerArg(ctx.store.data, pos[0]);
      await ctx.store.data.trackers.setBlocked(t.source_id, false);
      ctx.out(`unblocked tracker ${t.id} (device ${t.device_id})`);
    },
  },
  'app phone': {
    usage: 'app phone --user L [--label X] [--device-id ID]   (a phone tracker for the field app, and its activation code)',
    options: { user: { type: 'string' }, label: { type: 'string' }, 'device-id': { type: 'string' } },
    async run(ctx, o) {
      const u = await master(ctx.store.data, need(o, 'user'));
      const deviceId = (o['device-id'] as string | undefined)?.trim() ?? (await phoneDeviceId(ctx.store.data));
      if (!/^[\x21-\x7e]{1,64}$/.test(deviceId)) throw new UsageError('--device-id takes 1 to 64 printable characters without spaces');
      if (await ctx.store.data.trackers.deviceExists(deviceId)) throw new UsageError(`device ${deviceId} is registered already`);
      const now = Date.now();
      const id = await ctx.store.data.trackers.add({ userId: u.id, deviceId, protocol: APP_PROTOCOL, label: (o.label as string | undefined) ?? `phone ${deviceId}`, tariffId: u.tariff_id, now });
      const c = createActivationCode(ctx.store, (await ctx.store.data.trackers.getAny(id))!, now);
      ctx.out(`added phone tracker ${id} (${APP_PROTOCOL} ${deviceId}) for ${u.login}; activation code ${formatCode(c.code)}, valid until ${new Date(c.expires).toISOString()}`, { id, device_id: deviceId, code: formatCode(c.code), expires: new Date(c.expires).toISOString() });
    },
  },
  'app code': {
    usage: 'app code N   (a new one-time activation code for the field app on tracker N)',
    options: {},
    async run(ctx, _o, pos) {
      const t = await trackerArg(ctx.store.data, pos[0]);
      let c;
      try {
        c = createActivationCode(ctx.store, t, Date.now());
      } catch (e) {
        throw e instanceof DomainError ? new UsageError(e.message) : e;
      }
      ctx.out(`activation code for tracker ${t.id}: ${formatCode(c.code)}, valid until ${new Date(c.expires).toISOString()}`, { id: t.id, code: formatCode(c.code), expires: new Date(c.expires).toISOString() });
    },
  },
  'app revoke': {
    usage: 'app revoke N   (revoke every device token and the unused code of tracker N)',
    options: {},
    async run(ctx, _o, pos) {
      const t = await trackerArg(ctx.store.data, pos[0]);
      const n = await ctx.store.data.fieldApp.revoke(t.id);
      ctx.out(`revoked ${n} device token(s) of tracker ${t.id}`, { id: t.id, revoked: n });
    },
  },
  simulate: {
    usage: SIMULATE_USAGE,
    options: SIMULATE_OPTIONS,
    run: (ctx, o) =>
      simulateCommand(ctx.store, o, ctx.out, ctx.json).catch((e) => {
        throw e instanceof SimulationOptionError ? new UsageError(e.message) : e;
      }),
  },
};

function need(o: Opts, name: string): string {
  const v = o[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function master(data: DataStore, login: string): Promise<UserRow> {
  const u = await data.users.findByLogin(login);
  if (!u) throw new UsageError(`no user with login ${login}`);
  if (u.parent_id) throw new UsageError(`${login} is a sub-user; name its master`);
  return u;
}

async function trackerArg(data: DataStore, raw: string | undefined) {
  if (!raw || !/^\d+$/.test(raw)) throw new UsageError('name the tracker by its id (a number)');
  const t = await data.trackers.getAny(Number(raw));
  if (!t || t.deleted) throw new UsageError(`no tracker ${raw}`);
  return t;
}

/** A free device id for a phone: 'app-' and twelve random digits. */
async function phoneDeviceId(data: DataStore): Promise<string> {
  for (;;) {
    const id = `app-${randomInt(1e5, 1e6)}${randomInt(1e5, 1e6)}`;
    if (!(await data.trackers.deviceExists(id))) return id;
  }
}

function help(): string {
  return ['usage: npm run fsm -- <command> [options] [--json]', '', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const words = argv.filter((a) => !a.startsWith('-'));
  const name = Object.keys(COMMANDS).find((k) => k === words.slice(0, 2).join(' ')) ?? Object.keys(COMMANDS).find((k) => k === words[0]);
  if (!name) {
    const asked = argv.length === 0 || argv.includes('--help') || argv.includes('help');
    (asked ? console.log : console.error)(asked ? help() : `unknown command: ${argv.join(' ')}\n\n${help()}`);
    return asked ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  let store: Store | undefined;
  let json = false;
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { ...cmd.options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    json = !!values.json;
    const config = loadConfig();
    store = openStore(config.dbFile);
    const out = (text: string, obj?: Record<string, unknown>) => console.log(json ? JSON.stringify(obj ?? { ok: true, message: text }) : text);
    await cmd.run({ store, json, out }, values as Opts, positionals.slice(name.split(' ').length));
    return 0;
  } catch (e) {
    const known = e instanceof UsageError || e instanceof AccountError || e instanceof ConfigError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const msg = known ? (e as Error).message : `failed: ${(e as Error).stack ?? e}`;
    if (json) console.log(JSON.stringify({ error: msg }));
    else console.error(`${msg}${e instanceof UsageError ? `\nusage: npm run fsm -- ${cmd.usage}` : ''}`);
    return known ? 2 : 1;
  } finally {
    await store?.data.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main(process.argv.slice(2));
