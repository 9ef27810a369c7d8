import { ChakraProvider } from '@chakra-ui/react';
import type { ReactNode } from 'react';
import type { InspectionEvent, Observer } from 'xstate';
import type { chatMachine } from '../machines/chat-machine';
import { ChatActorContext } from './chat/chat-actor-context';
import { ChatCard } from './chat/chat-card';
import { getSystem } from './system';

export interface AppProps {
  /** The chat machine with its `fetchReply` actor provided: the openai one in the app, a fake in tests. */
  logic: typeof chatMachine;
  /** An inspector's observer (development only). */
  inspect?: Observer<InspectionEvent>;
  /** The card: the page's own by default, the embedded one in the embed loader's frame. */
  card?: ReactNode;
}

export function App({ logic, inspect, card = <ChatCard /> }: AppProps) {
  return (
    <ChakraProvider value={getSystem()}>
      <ChatActorContext.Provider logic={logic} options={{ inspect }}>
        {card}
      </ChatActorContext.Provider>
    </ChakraProvider>
  );
}
