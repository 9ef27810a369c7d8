/**
 * Told once a visitor's message to a person is taken (never its text): in the embed, the host page hears a `handoff`
 * event. Its own tiny module, so that the embed listens without loading the form.
 */
export const handoffSent = new EventTarget();
