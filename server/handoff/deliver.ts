import { createHmac } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { HandoffMessage } from './handoff-request.ts';
import type { Channel } from './outbox-types.ts';

/** How long one attempt on a channel may take before it counts as failed (and is tried again later). */
export const DELIVERY_TIMEOUT_MS = 30_000;

/** The mail's subject: the site's title, so that an inbox shared by several sites tells them apart. */
export const mailSubject = (title: string) => `[${title}] A visitor's question`;

/** The message as text: what the visitor wrote, where, and the conversation as Markdown. */
export function handoffText(message: HandoffMessage): string {
  const lines = [`A visitor (${message.email}) wrote:`, '', message.message, ''];
  if (message.page) lines.push(`Page: ${message.page}`);
  lines.push(`Language: ${message.language}`);
  if (message.conversation.length > 0) {
    lines.push('', '## The conversation', '');
    for (const turn of message.conversation) {
      lines.push(`**${turn.role === 'user' ? 'Visitor' : 'Assistant'}:** ${turn.text}`, '');
    }
  }
  lines.push('', 'Reply to this mail to answer the visitor.');
  return lines.join('\n');
}

/** Sends a message on one channel; rejects when it did not arrive (the outbox keeps it for the next attempt). */
export type Deliver = (channel: Channel, message: HandoffMessage) => Promise<void>;

export interface DeliverySettings {
  title: string;
  email?: { to: string; smtpUrl: string; from?: string };
  webhook?: { url: string; secret?: string };
  timeoutMs?: number;
}

/** The sender when `HANDOFF_FROM` is unset: the SMTP user when it is an address, else `assistant@` the SMTP host. */
function senderOf(smtpUrl: string, from?: string): string {
  if (from) return from;
  const url = new URL(smtpUrl);
  const user = decodeURIComponent(url.username);
  return user.includes('@') ? user : `assistant@${url.hostname}`;
}

/**
 * The channels as the settings give them: SMTP through nodemailer, and a signed JSON POST. nodemailer is loaded with
 * the first mail (0.12 s of CPU), so that a server or command that sends none does not load it.
 */
export function deliverer({ title, email, webhook, timeoutMs = DELIVERY_TIMEOUT_MS }: DeliverySettings): Deliver {
  let transport: Promise<Transporter> | undefined;
  const mailer = (smtpUrl: string) =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: smtpUrl,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      }),
    ));
  return async (channel, message) => {
    if (channel === 'email') {
      if (!email) throw new Error('no SMTP_URL');
      await (await mailer(email.smtpUrl)).sendMail({
        from: senderOf(email.smtpUrl, email.from),
        to: email.to,
        replyTo: message.email,
        subject: mailSubject(title),
        text: handoffText(message),
      });
      return;
    }
    if (!webhook) throw new Error('no webhook');
    const body = JSON.stringify({ ...message, text: handoffText(message), title });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (webhook.secret) {
      headers['x-assistant-signature'] = `sha256=${createHmac('sha256', webhook.secret).update(body).digest('hex')}`;
    }
    const response = await fetch(webhook.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`the webhook answered ${response.status}`);
  };
}
