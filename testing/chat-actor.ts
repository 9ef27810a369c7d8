import { type Actor, createActor } from 'xstate';
import { type ChatInput, chatMachine } from '../machines/chat-machine';
import { createControllableFetchReply } from './controllable-reply';

export type ChatActor = Actor<typeof chatMachine>;

/** The chat machine started with a reply actor the test settles, its delays (short ones) and its input. */
export function startChat(
  delays: { slowHint?: number; replyTimeout?: number; limitWait?: number } = {},
  input?: ChatInput,
) {
  const fake = createControllableFetchReply();
  const actor: ChatActor = createActor(chatMachine.provide({ actors: { fetchReply: fake.logic }, delays }), { input });
  actor.start();
  return { actor, fake };
}

/** Types `text` into the box and sends it, as the visitor does. */
export function submit(actor: ChatActor, text: string) {
  actor.send({ type: 'draft.change', text });
  actor.send({ type: 'message.submit' });
}
