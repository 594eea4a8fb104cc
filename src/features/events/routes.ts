import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { openEventStream } from './openStream.js';

const DESCRIPTION = `Server-Sent Events (text/event-stream) of the caller's organization, for live upload and processing
screens. Authenticated like every route (x-api-key, Authorization, or the session cookie a browser's
EventSource sends). Each message has an \`id\` (increasing; resume with the \`Last-Event-ID\` header, or
\`?lastEventId=\` where headers cannot be set), an \`event\` type and one \`data\` line of JSON:
\`media.created\`, \`media.status\`, \`media.thumbnail\`, \`media.deleted\` (data: datasetId, mediaId, mediaType,
name, path, parentPath, rootMediaId, status, reason, at; media.status adds \`waiting\` [{stage, model}];
media.deleted adds \`deletedCount\`), \`job.progress\` (job, jobType, remaining, status; a generation's: job
\`generate\`, jobId, done, total, progress, status), and the control
messages \`stream.open\` (the id it continues from) and \`reset\` (the Last-Event-ID is older than the log
keeps: reload). A comment line \`: heartbeat\` comes every EVENTS_HEARTBEAT_SECONDS. See the README.`;

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/events',
    tag: 'events',
    summary: 'Live item and job events of the organization (Server-Sent Events); resume with Last-Event-ID',
    description: DESCRIPTION,
    query: z.object({
      datasetId: z
        .string()
        .optional()
        .describe("only this collection's item events (organization-wide ones, job progress, still come)"),
      lastEventId: z
        .string()
        .optional()
        .describe('resume after this event id (for clients that cannot send the Last-Event-ID header)'),
    }),
    produces: 'text/event-stream',
    responses: {
      200: 'an open stream of events',
      400: 'Last-Event-ID is not an event id',
      403: "another organization's collection",
      404: 'no such collection',
      503: 'the server is shutting down',
    },
    handle: async ({ services, principal, query, ctx }) => {
      const stream = await openEventStream(services, principal, {
        datasetId: query.datasetId,
        lastEventId: ctx.get('last-event-id') || query.lastEventId,
      });
      ctx.status = 200;
      ctx.set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        // nginx and friends would otherwise buffer the stream.
        'X-Accel-Buffering': 'no',
        // The stream is the whole connection: when it ends (shutdown), the socket goes too.
        Connection: 'close',
      });
      // A stream is idle between events: no socket timeout, and each message leaves at once.
      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      return stream;
    },
  }),
];
