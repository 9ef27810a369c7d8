import { Component, type ErrorInfo, type ReactNode } from 'react';

interface FaultBoundaryProps {
  children: ReactNode;
  /** What shows instead once rendering `children` has thrown: something that cannot throw (plain text). */
  fallback: ReactNode;
}

/**
 * Keeps a fault where it happens: when rendering its children throws, it shows `fallback` instead, and the rest of
 * the card (the box, Send, Stop, Retry, the embed's close button) carries on. Without it, React unmounts the whole
 * app on any error while rendering. Once tripped it stays on the fallback: the same content would throw again.
 */
export class FaultBoundary extends Component<FaultBoundaryProps, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    // Seen in the console, as an uncaught error would be, but without taking the card with it.
    console.error('A message could not be shown as rendered', error, info.componentStack);
  }

  render() {
    return this.state.failed ? this.props.fallback : this.props.children;
  }
}
