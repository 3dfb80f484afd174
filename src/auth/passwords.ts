/** Password hashing with argon2id (memory-hard; the native binding runs off the event loop). */
import { hash, verify } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';

export const hashPassword = (password: string): Promise<string> => hash(password);

export async function checkPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash to verify against when the login does not exist, so both paths take the same time. */
let dummy: Promise<string> | undefined;
export const dummyHash = () => (dummy ??= hash(randomBytes(16).toString('hex')));

/** A random password for the first master user: 16 characters from an unambiguous alphabet. */
export function randomPassword(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from(randomBytes(16), (b) => alphabet[b % alphabet.length]).join('');
}

/** Spec: 1 to 40 printable characters. */
export const PASSWORD_RULE = /^[\x20-\x7e\u00a0-\uffff]{1,40}$/u;
