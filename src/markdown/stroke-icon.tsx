import type { ReactNode } from 'react';

/** A 14 px line icon in the text's colour, hidden from assistive technology (its button carries the name). */
export function StrokeIcon({ children }: { children: ReactNode }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      width="14"
      height="14"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
    >
      {children}
    </svg>
  );
}
