/**
 * Public API of the events feature: the live feed over the event log (the composition root builds it and
 * hands it out as Services.events) and the GET /api/events route.
 */
export { createEventFeed, type EventFeed, type EventFeedOptions } from './feed.js';
export { eventRoutes } from './routes.js';
