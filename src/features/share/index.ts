/** Albums and share links (issue 28): the owners' routes and the visitors' (`/api/share/:token/…`). */
import { albumRoutes } from './routes/albums.js';
import { linkRoutes } from './routes/links.js';
import { visitorRoutes } from './routes/visitor.js';

export { shareLinkLive } from './links.js';

export const shareRoutes = [...albumRoutes, ...linkRoutes, ...visitorRoutes];
