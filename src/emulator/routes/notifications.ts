// The caller's notifications (spec dialect only; the deployed server has no such routes).

import type { NotificationDoc } from '../docs.js';
import type { RouteDef } from '../router.js';
import type { World } from '../world.js';
import { ok } from './helpers.js';

function mine(w: World, userId: string): NotificationDoc[] {
  const out: NotificationDoc[] = [];
  for (const id of w.state.notificationsByUser.get(userId)) {
    const n = w.state.notifications.get(id);
    if (n && !n.isDeleted) out.push(n);
  }
  return out;
}

function own(w: World, id: string, userId: string): NotificationDoc {
  const n = w.state.notifications.get(id);
  if (!n || n.isDeleted || n.user !== userId) throw w.rules.notFound('notification');
  return n;
}

export const notificationRoutes: RouteDef[] = [
  {
    method: 'GET',
    template: '/notifications',
    only: 'spec',
    handler: ({ w, user, query }) => {
      let rows = mine(w, user._id).reverse();
      const isRead = query.get('isRead');
      if (isRead === 'true' || isRead === 'false') rows = rows.filter((n) => n.isRead === (isRead === 'true'));
      const type = query.get('type');
      if (type) rows = rows.filter((n) => n.type === type);
      const limit = Math.floor(Number(query.get('limit')));
      if (query.has('limit') && Number.isFinite(limit)) rows = rows.slice(0, Math.min(100, Math.max(1, limit)));
      return ok({ notifications: rows.map((n) => w.ser.notification(n)) });
    },
  },
  {
    method: 'GET',
    template: '/notifications/unread-count',
    only: 'spec',
    handler: ({ w, user }) => ok({ count: mine(w, user._id).filter((n) => !n.isRead).length }),
  },
  {
    method: 'PATCH',
    template: '/notifications/{id}/read',
    only: 'spec',
    handler: ({ w, user, params }) => {
      const n = own(w, params.id!, user._id);
      if (!n.isRead) {
        const at = w.state.clock.now().toISOString();
        n.isRead = true;
        n.readAt = at;
        n.updatedAt = at;
      }
      return ok({ notification: w.ser.notification(n) });
    },
  },
  {
    method: 'POST',
    template: '/notifications/read-all',
    only: 'spec',
    handler: ({ w, user }) => {
      const at = w.state.clock.now().toISOString();
      for (const n of mine(w, user._id)) {
        if (n.isRead) continue;
        n.isRead = true;
        n.readAt = at;
        n.updatedAt = at;
      }
      return ok({ message: 'All notifications marked as read' });
    },
  },
  {
    method: 'DELETE',
    template: '/notifications/{id}',
    only: 'spec',
    handler: ({ w, user, params }) => {
      const n = own(w, params.id!, user._id);
      n.isDeleted = true;
      n.deletedAt = w.state.clock.now().toISOString();
      w.state.notificationsByUser.remove(user._id, n._id);
      return ok({ message: 'Notification deleted' });
    },
  },
];
