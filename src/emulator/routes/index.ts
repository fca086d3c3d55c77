// Every route of the service, in one table.

import type { RouteDef } from '../router.js';
import { activityRoutes } from './activity.js';
import { amendmentRoutes } from './amendments.js';
import { apiKeyRoutes } from './api-keys.js';
import { automationRoutes } from './automations.js';
import { collectionRoutes } from './collections.js';
import { columnRoutes } from './columns.js';
import { memberRoutes } from './members.js';
import { moduleAccessRoutes } from './module-access.js';
import { moduleRoutes } from './modules.js';
import { notificationRoutes } from './notifications.js';
import { recordValueRoutes } from './record-values.js';
import { recordRoutes } from './records.js';
import { workspaceRoutes } from './workspaces.js';

export const allRoutes: RouteDef[] = [
  ...apiKeyRoutes,
  ...workspaceRoutes,
  ...memberRoutes,
  ...moduleRoutes,
  ...collectionRoutes,
  ...recordRoutes,
  ...recordValueRoutes,
  ...columnRoutes,
  ...amendmentRoutes,
  ...automationRoutes,
  ...activityRoutes,
  ...moduleAccessRoutes,
  ...notificationRoutes,
];
