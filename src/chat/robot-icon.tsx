import { chakra } from '@chakra-ui/react';

/** A robot head, drawn here rather than pulling in an icon library for one glyph. Decorative. */
export function RobotIcon() {
  return (
    <chakra.svg
      aria-hidden="true"
      boxSize="6"
      flexShrink="0"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
    >
      <path d="M12 8V4H8" />
      <rect x="4" y="8" width="16" height="12" rx="2" />
      <path d="M2 14h2M20 14h2M15 13v2M9 13v2" />
    </chakra.svg>
  );
}
