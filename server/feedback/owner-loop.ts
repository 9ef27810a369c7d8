// The owner's loop's one entry (feedback.ts is its core): reply tokens, votes, the counts in files or Redis.
export { FileCountStore } from './count-store.ts';
export { createFeedback, type Feedback } from './feedback.ts';
export { feedbackRoutes } from './feedback-routes.ts';
export { RedisCountStore } from './redis-count-store.ts';
