import { createRecipeContext, type HTMLChakraProps, type RecipeProps } from '@chakra-ui/react';

// Chakra's input and button recipes on plain elements. Chakra's own `Input` wraps Ark's `Field.Input` (form-field
// machinery and a textarea auto-resizer) and its `Button` brings a loading spinner; the card uses neither, and
// leaving them out keeps their code off the first paint.

/** A text input styled by Chakra's `input` recipe. */
export const TextInput = createRecipeContext({ key: 'input' }).withContext<
  HTMLInputElement,
  HTMLChakraProps<'input'> & RecipeProps<'input'>
>('input');

/** A button styled by Chakra's `button` recipe. */
export const RecipeButton = createRecipeContext({ key: 'button' }).withContext<
  HTMLButtonElement,
  HTMLChakraProps<'button'> & RecipeProps<'button'>
>('button');
