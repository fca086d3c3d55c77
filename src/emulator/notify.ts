// Notifications (spec dialect only: the deployed server has no notification routes).

import type { World } from './world.js';

export interface NotificationInput {
  user: string;
  type: 'mention' | 'assignment' | 'invite' | 'comment' | 'status_change' | 'deadline' | 'system';
  title: string;
  message: string;
  workspace: string | null;
  module: string | null;
  record: string | null;
}

export function notify(w: World, at: string, n: NotificationInput): void {
  if (w.rules.observed) return;
  w.state.addNotification({
    _id: w.state.ids.id(),
    ...n,
    isRead: false,
    readAt: null,
    createdAt: at,
    updatedAt: at,
    isDeleted: false,
    deletedAt: null,
  });
}
