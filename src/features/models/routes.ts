import { defineRoute } from '../../http/route.js';
import { listModels } from './listModels.js';

export const modelRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/models',
    tag: 'models',
    summary:
      'Every catalog model: state (installed, downloading, queued, missing, failed), bytes done and total, ' +
      'licence, size, the roles it serves and the last error; and the background download (admin)',
    responses: { 403: 'admin only' },
    handle: ({ services, principal }) => listModels(services, principal),
  }),
];
