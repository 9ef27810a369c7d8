import { createActorContext } from '@xstate/react';
import { chatMachine } from '../../machines/chat-machine';

/** The running chat machine, shared by the card's components. The app passes the provided machine as `logic`. */
export const ChatActorContext = createActorContext(chatMachine);
