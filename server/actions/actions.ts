// The actions room's one entry (issue 49): the owner's API calls the model may ask for, as tools, called and signed,
// with the visitor's identity from the host page and a signed confirmation before a write.
export {
  type Action,
  type ActionInput,
  type ActionInputs,
  type InputValue,
  MAX_INPUT_LENGTH,
  placeholdersOf,
} from './action-types.ts';
export { checkArguments, toolDefinition } from './tool-schema.ts';
