import { Box, chakra, createRecipeContext, Flex, type HTMLChakraProps, type RecipeProps } from '@chakra-ui/react';
import { type FormEvent, type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import {
  HANDOFF_PATH,
  type HandoffBody,
  type HandoffRefusal,
  type HandoffTurn,
  HONEYPOT_FIELD,
  isEmailAddress,
  MAX_EMAIL_LENGTH,
  MAX_HANDOFF_CONVERSATION_BYTES,
  MAX_HANDOFF_MESSAGE,
  MAX_HANDOFF_TURNS,
} from '../../contract/handoff';
import type { MessageKey } from '../../locales/catalogue';
import type { ChatMessage } from '../../machines/chat-machine';
import { serverPath } from '../llm/server-path';
import { t } from '../text';
import { ChatActorContext } from './chat-actor-context';
import { RecipeButton, TextInput } from './controls';
import { useRecordHandoff } from './handoff-offer';
import { tryAgain } from './reply-controls';

// The lazy chunk of "Contact a person" (handoff-offer.tsx): the form the card shows over its conversation.

/** A textarea styled by Chakra's `input` recipe, as the message box is: the card's system has no textarea recipe. */
const TextArea = createRecipeContext({ key: 'input' }).withContext<
  HTMLTextAreaElement,
  HTMLChakraProps<'textarea'> & RecipeProps<'input'>
>('textarea');

/** The sentence for each refusal the server may give; the token's are one: a fresh token is fetched meanwhile. */
const REFUSALS: Record<HandoffRefusal, MessageKey> = {
  unsupported_media_type: 'handoffFailed',
  body_too_large: 'handoffFailed',
  invalid_body: 'handoffFailed',
  invalid_email: 'handoffBadEmail',
  invalid_message: 'handoffNoMessage',
  conversation_too_long: 'handoffLongConversation',
  missing_token: 'handoffExpired',
  invalid_token: 'handoffExpired',
  expired_token: 'handoffExpired',
  too_soon: 'handoffTooSoon',
  replayed_token: 'handoffExpired',
  rate_limited: 'handoffLimited',
};

const TOKEN_REFUSALS = new Set<string>(['missing_token', 'invalid_token', 'expired_token', 'replayed_token']);

/** What went wrong, said in one sentence under the form, and the field the focus goes to. */
interface Problem {
  text: string;
  field: 'email' | 'message';
  /** The field's own text is what is wrong (not the network, a limit or the token). */
  invalid?: boolean;
  /** The site's `contact` link, which a refusal by a limit carries. */
  contact?: string;
}

/** The server's refusal, as it answers one (server/handoff/handoff-route.ts). */
interface RefusalBody {
  error?: { code?: string; limit_message?: string; contact?: string };
}

/**
 * The conversation as it goes with the message: the messages the visitor sees, oldest first, the latest ones that fit
 * the server's limits (50 messages, 32 KB) when it is longer.
 */
export function conversationTurns(messages: readonly ChatMessage[]): HandoffTurn[] {
  const turns = messages
    .filter((message) => message.text.trim() !== '')
    .slice(-MAX_HANDOFF_TURNS)
    .map((message): HandoffTurn => ({ role: message.sender === 'user' ? 'user' : 'assistant', text: message.text }));
  const encoder = new TextEncoder();
  while (turns.length > 0 && encoder.encode(JSON.stringify(turns)).length > MAX_HANDOFF_CONVERSATION_BYTES) {
    turns.shift();
  }
  return turns;
}

/** A form token from the server, or `undefined` when it could not be had (the send then says so). */
function requestToken(): Promise<string | undefined> {
  return fetch(serverPath(HANDOFF_PATH))
    .then((response): Promise<{ token?: unknown }> | object => (response.ok ? response.json() : {}))
    .then((answer) => ('token' in answer ? answer.token : undefined))
    .then(
      (token) => (typeof token === 'string' ? token : undefined),
      () => undefined,
    );
}

/** The form's token: asked for when the form opens, asked for again when it could not be had or was refused. */
function useFormToken() {
  const token = useRef<Promise<string | undefined>>(undefined);
  useEffect(() => {
    token.current = requestToken();
  }, []);
  return {
    take: async () => (await token.current) ?? (await renew(token)),
    renew: () => void renew(token),
  };
}

function renew(token: { current?: Promise<string | undefined> }): Promise<string | undefined> {
  token.current = requestToken();
  return token.current;
}

/** Sends the message: `undefined` once the server has it (202), else what went wrong. */
async function postHandoff(body: HandoffBody, renewToken: () => void): Promise<Problem | undefined> {
  let response: Response;
  try {
    response = await fetch(serverPath(HANDOFF_PATH), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    return { text: t('handoffFailed'), field: 'message' };
  }
  if (response.status === 202) return undefined;
  const error = ((await response.json().catch(() => undefined)) as RefusalBody | null | undefined)?.error;
  const code = error?.code as HandoffRefusal | undefined;
  if (code && TOKEN_REFUSALS.has(code)) renewToken();
  return refusal(code, error, response.headers.get('retry-after'));
}

/** What the visitor wrote in the form. */
interface Written {
  email: string;
  message: string;
  /** The conversation, when it goes with the message. */
  conversation?: HandoffTurn[];
  /** The honeypot's value: empty from a person. */
  trap: string;
}

/**
 * Sends what the visitor wrote, once it is right: a refusal (the form's own check or the server's) is said in one
 * sentence with the focus on the field to change (`focus`); the server's 202 is recorded for the conversation, and
 * `onSent` follows.
 */
function useSend(focus: (field: Problem['field']) => void, onSent: () => void) {
  const recordHandoff = useRecordHandoff();
  const token = useFormToken();
  // In the embed's frame, the host page the visitor reads (the site's `page_context`), as the loader has told it.
  const hostPage = ChatActorContext.useSelector((snapshot) => snapshot.context.hostPage);
  const [problem, setProblem] = useState<Problem>();
  const [sending, setSending] = useState(false);

  const refuse = (next: Problem) => {
    setProblem(next);
    setSending(false);
    focus(next.field);
  };

  const send = async ({ email, message, conversation, trap }: Written) => {
    if (sending) return;
    if (!isEmailAddress(email.trim())) return refuse({ text: t('handoffBadEmail'), field: 'email', invalid: true });
    if (message.trim() === '') return refuse({ text: t('handoffNoMessage'), field: 'message', invalid: true });
    setSending(true);
    const given = await token.take();
    if (given === undefined) return refuse({ text: t('handoffFailed'), field: 'message' });
    const page = hostPage?.current?.path;
    const body: HandoffBody = {
      token: given,
      email: email.trim(),
      message,
      ...(conversation?.length ? { conversation } : {}),
      ...(page ? { page } : {}),
      language: pageLanguage(),
      [HONEYPOT_FIELD]: trap,
    };
    const refused = await postHandoff(body, token.renew);
    if (refused) return refuse(refused);
    recordHandoff(body.email);
    onSent();
  };
  return { send, problem, sending };
}

const pageLanguage = () => document.documentElement.lang || 'en';

/**
 * "Contact a person": "Your email", "Your message" (up to 2,000 characters), "Include this conversation" (checked,
 * saying its length), a honeypot no person sees, and Send. A form token is asked for when it opens. On the server's
 * 202 the card says so and offers it no more in this conversation, and the form closes; on a refusal, the reason in
 * one sentence, the form as typed, the focus on the field to change. Escape and Cancel close it (Escape then does
 * nothing else: a pending reply goes on).
 */
export function HandoffForm({ onClose }: { onClose: () => void }) {
  const messages = ChatActorContext.useSelector((snapshot) => snapshot.context.messages);
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState('');
  const [include, setInclude] = useState(true);
  const [trap, setTrap] = useState('');
  const emailRef = useRef<HTMLInputElement>(null);
  const messageRef = useRef<HTMLTextAreaElement>(null);
  const { send, problem, sending } = useSend(
    (field) => (field === 'email' ? emailRef : messageRef).current?.focus(),
    onClose,
  );
  const id = useId();
  const conversation = conversationTurns(messages);

  useEffect(() => emailRef.current?.focus(), []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send({ email, message, trap, ...(include ? { conversation } : {}) });
  };

  return (
    <chakra.form
      aria-labelledby={`${id}-title`}
      noValidate
      onSubmit={submit}
      onKeyDown={(event: KeyboardEvent) => {
        if (event.key !== 'Escape') return;
        // The card's own Escape (Stop, or closing the embed's panel) leaves a handled key alone.
        event.preventDefault();
        onClose();
      }}
      display="flex"
      flexDirection="column"
      gap="3"
    >
      <chakra.h2 id={`${id}-title`} fontWeight="semibold">
        {t('contactPerson')}
      </chakra.h2>
      <Field id={`${id}-email`} label={t('handoffEmail')}>
        <TextInput
          ref={emailRef}
          id={`${id}-email`}
          type="email"
          name="email"
          autoComplete="email"
          required
          maxLength={MAX_EMAIL_LENGTH}
          fontSize={{ base: 'md', md: 'sm' }}
          {...problemOf(problem, 'email', `${id}-problem`)}
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
      </Field>
      <Field id={`${id}-message`} label={t('handoffMessage')}>
        <TextArea
          ref={messageRef}
          id={`${id}-message`}
          name="handoff-message"
          required
          maxLength={MAX_HANDOFF_MESSAGE}
          rows={4}
          h="auto"
          py="2"
          resize="vertical"
          fontSize={{ base: 'md', md: 'sm' }}
          {...problemOf(problem, 'message', `${id}-problem`)}
          value={message}
          onChange={(event) => setMessage(event.target.value)}
        />
      </Field>
      <IncludeConversation count={conversation.length} checked={include} onChange={setInclude} />
      <Honeypot value={trap} onChange={setTrap} />
      <ProblemLine id={`${id}-problem`} problem={problem} />
      <FormActions sending={sending} onCancel={onClose} />
    </chakra.form>
  );
}

/** Cancel, and Send ("Sending..." and disabled while the message is on its way). */
function FormActions({ sending, onCancel }: { sending: boolean; onCancel: () => void }) {
  return (
    <Flex gap="2" justify="flex-end">
      <RecipeButton type="button" variant="outline" onClick={onCancel}>
        {t('cancel')}
      </RecipeButton>
      <RecipeButton type="submit" colorPalette="accent" _hover={{ bg: 'accent.hover' }} disabled={sending}>
        {t(sending ? 'sending' : 'send')}
      </RecipeButton>
    </Flex>
  );
}

/** A field's part in what went wrong: invalid when its text is the problem, described by the sentence when it is. */
function problemOf(problem: Problem | undefined, field: Problem['field'], sentence: string) {
  if (problem?.field !== field) return {};
  return { 'aria-describedby': sentence, ...(problem.invalid ? { 'aria-invalid': true } : {}) };
}

/** "Include this conversation (4 messages)", checked until the visitor says otherwise; none without a conversation. */
function IncludeConversation({
  count,
  checked,
  onChange,
}: {
  count: number;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  if (count === 0) return null;
  return (
    <chakra.label display="flex" alignItems="center" gap="2" fontSize="sm">
      <chakra.input
        type="checkbox"
        name="include-conversation"
        boxSize="4"
        accentColor="accent.solid"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
      />
      {t(count === 1 ? 'handoffIncludeOne' : 'handoffInclude').replace('{count}', count.toLocaleString(pageLanguage()))}
    </chakra.label>
  );
}

/** A field no person sees or reaches: a script that fills every field fills this one, and is quietly dropped. */
function Honeypot({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Box aria-hidden="true" position="absolute" insetStart="-10000px" w="1px" h="1px" overflow="hidden">
      <input
        type="text"
        name={HONEYPOT_FIELD}
        tabIndex={-1}
        autoComplete="off"
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </Box>
  );
}

/** What went wrong, in one sentence: always in the page, so that what it comes to say is announced. */
function ProblemLine({ id, problem }: { id: string; problem?: Problem }) {
  return (
    <Box id={id} role="alert" fontSize="sm" fontWeight="medium">
      {problem?.text}
      {problem?.contact && (
        <>
          {' '}
          <chakra.a href={problem.contact} target="_blank" rel="noopener noreferrer" textDecoration="underline">
            {t('contactUs')}
          </chakra.a>
        </>
      )}
    </Box>
  );
}

function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <Flex direction="column" gap="1">
      <chakra.label htmlFor={id} fontSize="sm" fontWeight="medium">
        {label}
      </chakra.label>
      {children}
    </Flex>
  );
}

/** A refusal in one sentence: the site's own words and when to try again for a limit, the field it is about. */
function refusal(code: HandoffRefusal | undefined, error: RefusalBody['error'], retryAfter: string | null): Problem {
  const key: MessageKey = code && Object.hasOwn(REFUSALS, code) ? REFUSALS[code] : 'handoffFailed';
  const field = key === 'handoffBadEmail' ? 'email' : 'message';
  if (code !== 'rate_limited') {
    return { text: t(key), field, invalid: key === 'handoffBadEmail' || key === 'handoffNoMessage' };
  }
  const seconds = Number(retryAfter);
  const text = `${error?.limit_message ?? t(key)}${seconds > 0 ? ` ${tryAgain(seconds)}` : ''}`;
  return { text, field, ...(error?.contact ? { contact: error.contact } : {}) };
}
