import { describe, expect, it } from 'vitest';
import { CONFIRM_TOKEN_LIFETIME_MS, confirmTokens } from './confirm-token.ts';

const tokens = confirmTokens('test-actions-secret-0123456789');
const claims = {
  action: 'request_callback',
  inputs: { phone: '+44 1234 5678', when: 'morning', adults: 2, urgent: false },
  conversation: 'conversation-1',
};
const NOW = 1_800_000_000_000;

/** The token's payload rewritten by `change` and put back with its old signature: what a forger can do. */
function altered(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [payload, signature] = token.split('.');
  const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  change(data);
  return `${Buffer.from(JSON.stringify(data)).toString('base64url')}.${signature}`;
}

describe('confirmation tokens', () => {
  it('name the action, the checked inputs, the conversation, an id and an expiry five minutes on', () => {
    const token = tokens.issue(claims, NOW);
    expect(tokens.check(token, 'conversation-1', NOW + 1000)).toEqual({
      ...claims,
      id: expect.stringMatching(/^[\w-]{16}$/),
      expires: NOW + CONFIRM_TOKEN_LIFETIME_MS,
    });
    expect(tokens.check(tokens.issue({ ...claims, sub: 'customer-42' }, NOW), 'conversation-1', NOW)).toMatchObject({
      sub: 'customer-42',
    });
    // Two confirmations of the same inputs are two tokens, each used once on its own.
    const ids = [tokens.issue(claims, NOW), tokens.issue(claims, NOW)].map((t) =>
      tokens.check(t, 'conversation-1', NOW),
    );
    expect(ids[0]).not.toEqual(ids[1]);
  });

  it('refuse a forged token: another secret, made up, or not a token at all', () => {
    const other = confirmTokens('another-actions-secret-0123456789').issue(claims, NOW);
    expect(tokens.check(other, 'conversation-1', NOW)).toBe('invalid');
    const made = `${Buffer.from(JSON.stringify({ ...claims, id: 'x', expires: NOW + 1 })).toString('base64url')}.AAAA`;
    expect(tokens.check(made, 'conversation-1', NOW)).toBe('invalid');
    for (const token of [undefined, 42, '', 'a.b.c', 'abc', 'x'.repeat(20_000)]) {
      expect(tokens.check(token, 'conversation-1', NOW)).toBe('invalid');
    }
  });

  it('refuse altered inputs, another action, or a later expiry under the old signature', () => {
    const token = tokens.issue(claims, NOW);
    const changes = [
      (data: Record<string, unknown>) => {
        data.inputs = { ...claims.inputs, phone: '+1 900 555 0100' };
      },
      (data: Record<string, unknown>) => {
        data.action = 'delete_account';
      },
      (data: Record<string, unknown>) => {
        data.expires = NOW + 24 * 3_600_000;
      },
    ];
    for (const change of changes) expect(tokens.check(altered(token, change), 'conversation-1', NOW)).toBe('invalid');
  });

  it('refuse an expired token, at five minutes and a millisecond', () => {
    const token = tokens.issue(claims, NOW);
    expect(tokens.check(token, 'conversation-1', NOW + CONFIRM_TOKEN_LIFETIME_MS)).toMatchObject({
      action: claims.action,
    });
    expect(tokens.check(token, 'conversation-1', NOW + CONFIRM_TOKEN_LIFETIME_MS + 1)).toBe('expired');
  });

  it("refuse another conversation's token", () => {
    const token = tokens.issue(claims, NOW);
    expect(tokens.check(token, 'conversation-2', NOW)).toBe('other_conversation');
    expect(tokens.check(token, undefined, NOW)).toBe('other_conversation');
  });
});
