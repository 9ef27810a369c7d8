import { defineSemanticTokens, defineTokens } from '@chakra-ui/react';

// Chakra's default colours cut down to what this card uses: the gray and blue palettes, and the bg/fg/border semantic
// tokens without their status variants. build/chakra-palette.ts puts these in place of Chakra's full palette modules
// in the production build, which takes the unused palettes' code off the first paint and their CSS variables off
// start-up. (The dev server and the unit tests keep Chakra's full palette: a colour outside this file shows there but
// not in production, so the browser suite, which runs the production build, is where to check a new one.)
// Values from @chakra-ui/react 3.37 (MIT).

export const colors = defineTokens.colors({
  transparent: { value: 'transparent' },
  current: { value: 'currentColor' },
  black: { value: '#09090B' },
  white: { value: '#FFFFFF' },
  gray: {
    '50': { value: '#fafafa' },
    '100': { value: '#f4f4f5' },
    '200': { value: '#e4e4e7' },
    '300': { value: '#d4d4d8' },
    '400': { value: '#a1a1aa' },
    '500': { value: '#71717a' },
    '600': { value: '#52525b' },
    '700': { value: '#3f3f46' },
    '800': { value: '#27272a' },
    '900': { value: '#18181b' },
    '950': { value: '#111111' },
  },
  blue: {
    '50': { value: '#eff6ff' },
    '100': { value: '#dbeafe' },
    '200': { value: '#bfdbfe' },
    '300': { value: '#a3cfff' },
    '400': { value: '#60a5fa' },
    '500': { value: '#3b82f6' },
    '600': { value: '#2563eb' },
    '700': { value: '#173da6' },
    '800': { value: '#1a3478' },
    '900': { value: '#14204a' },
    '950': { value: '#0c142e' },
  },
});

export const semanticColors = defineSemanticTokens.colors({
  bg: {
    DEFAULT: { value: { _light: '{colors.white}', _dark: '{colors.black}' } },
    subtle: { value: { _light: '{colors.gray.50}', _dark: '{colors.gray.950}' } },
    muted: { value: { _light: '{colors.gray.100}', _dark: '{colors.gray.900}' } },
    emphasized: { value: { _light: '{colors.gray.200}', _dark: '{colors.gray.800}' } },
    inverted: { value: { _light: '{colors.black}', _dark: '{colors.white}' } },
    panel: { value: { _light: '{colors.white}', _dark: '{colors.gray.950}' } },
  },
  fg: {
    DEFAULT: { value: { _light: '{colors.black}', _dark: '{colors.gray.50}' } },
    muted: { value: { _light: '{colors.gray.600}', _dark: '{colors.gray.400}' } },
    subtle: { value: { _light: '{colors.gray.400}', _dark: '{colors.gray.500}' } },
    inverted: { value: { _light: '{colors.gray.50}', _dark: '{colors.black}' } },
  },
  border: {
    DEFAULT: { value: { _light: '{colors.gray.200}', _dark: '{colors.gray.800}' } },
    muted: { value: { _light: '{colors.gray.100}', _dark: '{colors.gray.900}' } },
    subtle: { value: { _light: '{colors.gray.50}', _dark: '{colors.gray.950}' } },
    emphasized: { value: { _light: '{colors.gray.300}', _dark: '{colors.gray.700}' } },
    inverted: { value: { _light: '{colors.gray.800}', _dark: '{colors.gray.200}' } },
  },
  gray: {
    contrast: { value: { _light: '{colors.white}', _dark: '{colors.black}' } },
    fg: { value: { _light: '{colors.gray.800}', _dark: '{colors.gray.200}' } },
    subtle: { value: { _light: '{colors.gray.100}', _dark: '{colors.gray.900}' } },
    muted: { value: { _light: '{colors.gray.200}', _dark: '{colors.gray.800}' } },
    emphasized: { value: { _light: '{colors.gray.300}', _dark: '{colors.gray.700}' } },
    solid: { value: { _light: '{colors.gray.900}', _dark: '{colors.white}' } },
    focusRing: { value: { _light: '{colors.gray.400}', _dark: '{colors.gray.400}' } },
    border: { value: { _light: '{colors.gray.200}', _dark: '{colors.gray.800}' } },
  },
  blue: {
    contrast: { value: { _light: 'white', _dark: 'white' } },
    fg: { value: { _light: '{colors.blue.700}', _dark: '{colors.blue.300}' } },
    subtle: { value: { _light: '{colors.blue.100}', _dark: '{colors.blue.900}' } },
    muted: { value: { _light: '{colors.blue.200}', _dark: '{colors.blue.800}' } },
    emphasized: { value: { _light: '{colors.blue.300}', _dark: '{colors.blue.700}' } },
    solid: { value: { _light: '{colors.blue.600}', _dark: '{colors.blue.600}' } },
    focusRing: { value: { _light: '{colors.blue.500}', _dark: '{colors.blue.500}' } },
    border: { value: { _light: '{colors.blue.500}', _dark: '{colors.blue.400}' } },
  },
});
