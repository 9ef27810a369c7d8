import { type ComponentType, createContext, useContext } from 'react';

/** "New conversation", given by the app where the site keeps the conversation (`persist: tab`); elsewhere nothing. */
export const NewConversationContext = createContext<ComponentType | undefined>(undefined);

/** Where the cards show "New conversation", when the site has it. */
export function NewConversationSlot() {
  const NewConversation = useContext(NewConversationContext);
  return NewConversation ? <NewConversation /> : null;
}
