/**
 * Outgoing mail. With FSM_SMTP_URL set, messages go to that SMTP server (nodemailer); without,
 * each message is written as an .eml file under data/outbox/, so activation works out of the box.
 */
import nodemailer from 'nodemailer';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface Mail {
  /** One address, or several separated by commas. */
  to: string;
  subject: string;
  text: string;
  attachments?: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function createMailer(cfg: { smtpUrl: string | null; from: string; outboxDir: string }): Mailer {
  if (cfg.smtpUrl) {
    const transport = nodemailer.createTransport(cfg.smtpUrl);
    return {
      async send(m) {
        await transport.sendMail({ from: cfg.from, to: m.to, subject: m.subject, text: m.text, attachments: m.attachments });
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(m) {
      const info = await transport.sendMail({ from: cfg.from, to: m.to, subject: m.subject, text: m.text, attachments: m.attachments });
      mkdirSync(cfg.outboxDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}.eml`;
      writeFileSync(join(cfg.outboxDir, name), info.message as Buffer);
    },
  };
}
